//! Fuzz target: arbitrary text through the SPU assembler. The checks are in `fuzz/checks/assemble.rs`.
#![no_main]

#[path = "../checks/assemble.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
