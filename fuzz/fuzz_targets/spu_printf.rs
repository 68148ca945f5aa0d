//! Fuzz target: the SPU runtimes' printf and lv2's print server on arbitrary formats and
//! arguments. The checks are in `fuzz/checks/spu_printf.rs`.
#![no_main]

#[path = "../checks/spu_printf.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
