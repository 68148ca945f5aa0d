//! Fuzz target: the PMU driver's 32-to-64-bit counter extension against a model, across wraps. The checks are in `fuzz/checks/pmu_extension.rs`.
#![no_main]

#[path = "../checks/pmu_extension.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
