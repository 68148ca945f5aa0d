//! Fuzz target: arbitrary argument vectors through spusim's option parser and whole runs. The checks are in `fuzz/checks/spusim_options.rs`.
#![no_main]

#[path = "../checks/spusim_options.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
