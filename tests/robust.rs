//! One test binary for the robustness checks' (committed fuzz seeds, every SPU mode on bad input)
//! integration tests: each file below is a module of it (why one binary per area: the README's
//! "Tests"). Each file declares the support modules it uses itself, so a support module two files
//! use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "robust_fuzz_seeds.rs"]
mod robust_fuzz_seeds;
#[path = "robust_spu_modes.rs"]
mod robust_spu_modes;
