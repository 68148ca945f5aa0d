//! Fuzz target: sequences of MFC operations in both timings against a reference written from
//! the CBEA's rules. The checks are in `fuzz/checks/mfc.rs`.
#![no_main]

#[path = "../checks/mfc.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
