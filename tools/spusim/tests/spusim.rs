//! One test binary for spusim's integration tests: each file below is a module of it (why one
//! binary per area: the README's "Tests"). Each file declares the support modules it uses itself,
//! so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "bad_input.rs"]
mod bad_input;
#[path = "check_dma.rs"]
mod check_dma;
#[path = "cli.rs"]
mod cli;
#[path = "cli_listeners.rs"]
mod cli_listeners;
#[path = "ctf.rs"]
mod ctf;
#[path = "demo_kernels.rs"]
mod demo_kernels;
#[path = "dma.rs"]
mod dma;
#[path = "elf.rs"]
mod elf;
#[path = "errors.rs"]
mod errors;
#[path = "fuzz_seeds.rs"]
mod fuzz_seeds;
#[path = "host_options.rs"]
mod host_options;
#[path = "include_and_cpp.rs"]
mod include_and_cpp;
#[path = "link.rs"]
mod link;
#[path = "profile.rs"]
mod profile;
#[path = "profile_perf_data.rs"]
mod profile_perf_data;
#[path = "runtimes.rs"]
mod runtimes;
