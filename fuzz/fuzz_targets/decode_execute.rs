//! Fuzz target: random words as a local-store image, decoded and executed. The checks are in `fuzz/checks/decode_execute.rs`.
#![no_main]

#[path = "../checks/decode_execute.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
