//! What the assembler tests share: assembling a source and reading back its words or error.
// Each test file uses a subset of these.
#![allow(dead_code)]

use pmprobe_spu_isa::asm::{AsmError, assemble};

pub fn words(image: &[u8], len: usize) -> Vec<u32> {
    image[..len]
        .chunks(4)
        .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn asm_words(source: &str) -> Vec<u32> {
    let mut image = vec![0u8; 1024];
    let program = assemble::<16>(source, &mut image).unwrap_or_else(|e| panic!("{e}"));
    words(&image, program.len)
}

pub fn asm_err(source: &str) -> AsmError {
    let mut image = vec![0u8; 1024];
    assemble::<16>(source, &mut image).expect_err("must fail")
}

pub fn at(e: AsmError) -> (u32, u32) {
    (e.line, e.column)
}
