//! Fuzz target: generated expressions through the SPU assembler's expression parser, against a reference evaluator. The checks are in `fuzz/checks/asm_expression.rs`.
#![no_main]

#[path = "../checks/asm_expression.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
