//! Fuzz target: arbitrary bytes through the binary and din trace decoders. The checks are in `fuzz/checks/trace_decode.rs`.
#![no_main]

#[path = "../checks/trace_decode.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
