//! The listing rendering reassembles: every word of the objdump sweep
//! (`tests/data/spu_objdump_sweep.txt`), written as its listing line at its own address,
//! assembles back to the same word.

#[path = "support/objdump_sweep.rs"]
mod objdump_sweep;

use std::collections::BTreeMap;

use objdump_sweep::sweep;
use pmprobe_spu_isa::asm::assemble;
use pmprobe_spu_isa::{NoSymbols, Syntax, decode};

/// Assembles `text` at `pc`: the word there, or the error.
fn reassemble(text: &str, pc: u32) -> Result<u32, String> {
    let source = format!(".space {pc}\n{text}\n");
    let mut image = vec![0u8; pc as usize + 4];
    assemble::<1>(&source, &mut image).map_err(|e| e.to_string())?;
    let at = pc as usize;
    Ok(u32::from_be_bytes(image[at..at + 4].try_into().unwrap()))
}

#[test]
fn the_sweep_reassembles_from_its_listing() {
    // printed mnemonic -> (lines refused, the first)
    let mut refused: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut unjustified_long = Vec::new();
    let (mut reassembled, mut as_long) = (0, 0);
    for line in sweep() {
        let Ok(inst) = decode(line.word) else {
            continue;
        };
        let text = inst
            .display_as(line.pc, &NoSymbols, Syntax::Listing)
            .to_string();
        if text.starts_with(".long") {
            // Only where objdump's own text, assembled, does not give the word back.
            as_long += 1;
            if reassemble(line.text, line.pc) == Ok(line.word) {
                unjustified_long.push(format!("{:08x} `{}`", line.word, line.text));
            }
        }
        match reassemble(&text, line.pc) {
            Ok(word) if word == line.word => reassembled += 1,
            Ok(word) => wrong.push(format!(
                "{:05x} {:08x} `{text}` -> {word:08x}",
                line.pc, line.word
            )),
            Err(error) => {
                let mnemonic = text.split(['\t', ' ']).next().unwrap().to_string();
                let entry = refused.entry(mnemonic).or_default();
                if entry.0 == 0 {
                    entry.1 = format!("{:05x} {:08x} `{text}`: {error}", line.pc, line.word);
                }
                entry.0 += 1;
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "lines assemble to other words:\n{}",
        wrong.join("\n")
    );
    assert!(
        unjustified_long.is_empty(),
        "written as .long, yet objdump's text reassembles:\n{}",
        unjustified_long.join("\n")
    );
    let report: Vec<String> = refused
        .iter()
        .map(|(m, (n, first))| format!("{m} ({n} lines): {first}"))
        .collect();
    assert!(
        refused.is_empty(),
        "listing lines the assembler refuses:\n{}",
        report.join("\n")
    );
    // Every word objdump decodes was tried; most reassemble as instructions.
    let decodable = sweep()
        .iter()
        .filter(|l| !l.text.starts_with(".long"))
        .count();
    assert_eq!(
        reassembled + refused.values().map(|(n, _)| n).sum::<usize>(),
        decodable
    );
    assert!(
        reassembled - as_long > 9000,
        "{reassembled} reassembled, {as_long} as .long"
    );
    println!("{reassembled} of {decodable} reassembled, {as_long} of them as .long");
}
