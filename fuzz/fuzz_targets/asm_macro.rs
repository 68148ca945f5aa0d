//! Fuzz target: generated macros and repeats through the SPU assembler's expander, against a reference expander. The checks are in `fuzz/checks/asm_macro.rs`.
#![no_main]

#[path = "../checks/asm_macro.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
