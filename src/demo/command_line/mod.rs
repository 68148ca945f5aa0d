//! The firmware's command line (read through semihosting: `cargo run -- OPTIONS`) and the two
//! modes it turns on that are not a section of the story:
//!
//! - [`options`]: the words, parsed into [`Options`](options::Options);
//! - [`perf_stat`]: `-e EVENTS`, `-r N`, `-x SEP`: perf stat of SPU3's run on the core's real
//!   PMU, instead of the demo;
//! - [`profile`]: `--profile`: the sampling profiler over the SPU runs of the host table (the
//!   SPU runs open its sampled windows), its checks and files after the demo.

pub mod options;
pub mod perf_stat;
pub mod profile;
