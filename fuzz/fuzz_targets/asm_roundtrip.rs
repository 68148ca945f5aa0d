//! Fuzz target: assemble -> disassemble -> assemble gives the same words. The checks are in `fuzz/checks/asm_roundtrip.rs`.
#![no_main]

#[path = "../checks/asm_roundtrip.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
