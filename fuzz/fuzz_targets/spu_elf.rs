//! Fuzz target: arbitrary bytes through the SPU ELF reader, assembled programs through the writer and back. The checks are in `fuzz/checks/spu_elf.rs`.
#![no_main]

#[path = "../checks/spu_elf.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check(data));
