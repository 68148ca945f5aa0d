//! Fuzz target: register writes, reads and event feeds on the emulated PMU against the reference model. The checks are in `fuzz/checks/pmu.rs`.
#![no_main]

#[path = "../checks/pmu.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
