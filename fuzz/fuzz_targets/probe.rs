//! Fuzz target: probe points, manager and PC event queue against a model. The checks are in `fuzz/checks/probe.rs`.
#![no_main]

#[path = "../checks/probe.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
