//! The disassembler against GNU objdump 2.40 (built for spu-elf), word by word:
//! `tests/data/spu_objdump_sweep.txt` holds objdump's text for every 11-bit opcode prefix with
//! eight patterns of the other 21 bits, then one word per binutils `spu-insns.h` entry, each at
//! its address in a raw binary (`tools/oracles/spu_objdump_sweep.py` made it).

#[path = "support/objdump_sweep.rs"]
mod objdump_sweep;

use objdump_sweep::{PATTERNS, SWEEP_WORDS, sweep};
use pmprobe_spu_isa::{NoSymbols, disassemble_word};

#[test]
fn the_fixture_is_the_documented_sweep() {
    let lines = sweep();
    assert!(lines.len() > SWEEP_WORDS, "{} lines", lines.len());
    for (index, line) in lines.iter().enumerate() {
        assert_eq!(line.pc as usize, index * 4, "{line:?}");
    }
    for (index, line) in lines.iter().take(SWEEP_WORDS).enumerate() {
        let prefix = (index / PATTERNS.len()) as u32;
        let pattern = PATTERNS[index % PATTERNS.len()];
        assert_eq!(line.word, prefix << 21 | pattern, "{line:?}");
    }
}

#[test]
fn every_word_prints_as_objdump_prints_it() {
    let mut differences = Vec::new();
    for line in sweep() {
        let mut ours = String::new();
        disassemble_word(line.word, line.pc, &NoSymbols, &mut ours).unwrap();
        if ours != line.text {
            differences.push(format!(
                "{:05x} {:08x}: objdump `{}`, ours `{ours}`",
                line.pc, line.word, line.text
            ));
        }
    }
    assert!(
        differences.is_empty(),
        "{} words differ, the first:\n{}",
        differences.len(),
        differences[..differences.len().min(25)].join("\n")
    );
}
