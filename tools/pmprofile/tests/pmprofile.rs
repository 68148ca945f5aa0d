//! One test binary for pmprofile's integration tests: each file below is a module of it (why one
//! binary per area: the README's "Tests"). Each file declares the support modules it uses itself,
//! so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "cli.rs"]
mod cli;
#[path = "firefox_export.rs"]
mod firefox_export;
#[path = "frame_record.rs"]
mod frame_record;
#[path = "perf_data.rs"]
mod perf_data;
#[path = "profile_aggregation.rs"]
mod profile_aggregation;
#[path = "symbolize_firmware.rs"]
mod symbolize_firmware;
