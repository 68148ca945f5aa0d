//! One test binary for the sampler's integration tests: each file below is a module of it (why one
//! binary per area: the README's "Tests"). Each file declares the support modules it uses itself,
//! so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "sampling_frame_walk.rs"]
mod sampling_frame_walk;
#[path = "sampling_sampler.rs"]
mod sampling_sampler;
#[path = "sampling_wire.rs"]
mod sampling_wire;
