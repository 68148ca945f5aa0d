//! One test binary for the CTF trace writer's integration tests: each file below is a module of it
//! (why one binary per area: the README's "Tests"). Each file declares the support modules it uses
//! itself, so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "ctf_spu_trace.rs"]
mod ctf_spu_trace;
#[path = "ctf_stream.rs"]
mod ctf_stream;
