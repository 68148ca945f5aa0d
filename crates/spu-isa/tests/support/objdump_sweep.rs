//! Reads `tests/data/spu_objdump_sweep.txt` (GNU objdump's text for a sweep of SPU words; see
//! `tools/oracles/spu_objdump_sweep.py`).

// Each test uses part of it.
#![allow(dead_code)]

/// The low-21-bit patterns of the sweep, in the fixture's order (the script's `PATTERNS`).
pub const PATTERNS: [u32; 8] = [
    0x000000, 0x1fffff, 0x0aaaaa, 0x155555, 0x1fc000, 0x0c4183, 0x081a05, 0x003fff,
];

/// Words of the prefix sweep, before the table entries.
pub const SWEEP_WORDS: usize = 2048 * PATTERNS.len();

/// One fixture line: the word at `pc` and objdump's text for it.
#[derive(Debug)]
pub struct Line {
    pub pc: u32,
    pub word: u32,
    pub text: &'static str,
}

/// Every line of the fixture, in address order.
pub fn sweep() -> Vec<Line> {
    include_str!("../data/spu_objdump_sweep.txt")
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let mut parts = line.splitn(3, ' ');
            let mut hex = |what| {
                let field = parts.next().unwrap_or_else(|| panic!("no {what}: {line}"));
                u32::from_str_radix(field, 16).unwrap_or_else(|_| panic!("bad {what}: {line}"))
            };
            let pc = hex("address");
            let word = hex("word");
            let text = parts.next().unwrap_or_else(|| panic!("no text: {line}"));
            Line { pc, word, text }
        })
        .collect()
}
