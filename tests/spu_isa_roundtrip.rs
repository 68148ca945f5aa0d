//! Round trip: for every base mnemonic, every variant/synonym and every accepted operand form,
//! assemble a line with random in-range operands, disassemble the words in the listing syntax,
//! assemble the listing again and require identical words. The decoded mnemonic and feature
//! bits are checked against the table row / variant the line was written for.

use std::fmt::Write as _;

use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::isa::{Mnemonic, OPCODES, OperandKind, VARIANTS};
use pmprobe::spu::isa::{NoSymbols, SymbolLookup, Syntax, decode};

#[path = "support/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

/// Operand text for `kind` with a random value in the documented range.
fn operand(kind: OperandKind, rng: &mut XorShift) -> String {
    use OperandKind::*;
    let reg = |rng: &mut XorShift| match rng.range(0, 9) {
        0 => "$lr".to_string(),
        1 => "$sp".to_string(),
        2 => format!("{}", rng.range(0, 127)),
        _ => format!("${}", rng.range(0, 127)),
    };
    match kind {
        Rt | Ra | Rb | Rc => reg(rng),
        Spr => format!("$sp{}", rng.range(0, 127)),
        Channel => match rng.range(0, 2) {
            0 => "SPU_WrOutMbox".to_string(),
            _ => format!("$ch{}", rng.range(0, 127)),
        },
        S3 | S7N | S7 => rng.range(-64, 63).to_string(),
        S6 => rng.range(-32, 31).to_string(),
        U3 | U5 | U6 | U7 | U7A | U7B => rng.range(0, 127).to_string(),
        S10B => rng.range(-128, 255).to_string(),
        S10 => rng.range(-512, 511).to_string(),
        S16 => rng.range(-32768, 32767).to_string(),
        X16 => match rng.range(0, 1) {
            0 => format!("{:#x}", rng.range(0, 65535)),
            _ => rng.range(-32768, 65535).to_string(),
        },
        U18 => rng.range(0, 262_143).to_string(),
        U14 => rng.range(0, 16383).to_string(),
        MemS14 => format!("{}({})", rng.range(-512, 511) * 16, reg(rng)),
        MemU7 => format!("{}({})", rng.range(0, 127), reg(rng)),
        S11 | S11I => match rng.range(0, 2) {
            0 => "near".to_string(),
            _ => format!(".{:+}", rng.range(-255, 255) * 4),
        },
        R18 => match rng.range(0, 2) {
            0 => "far".to_string(),
            1 => "_start".to_string(),
            _ => format!(".{:+}", rng.range(-100, 100) * 4),
        },
        S18 => match rng.range(0, 1) {
            0 => "far".to_string(),
            _ => format!("{:#x}", rng.range(0, 65535) * 4),
        },
    }
}

struct Case {
    name: &'static str,
    base: Mnemonic,
    feature: u8,
    printed_as_variant: bool,
    forms: &'static [&'static [OperandKind]],
}

fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = OPCODES
        .iter()
        .map(|row| Case {
            name: row.name,
            base: row.mnemonic,
            feature: 0,
            printed_as_variant: false,
            forms: row.forms,
        })
        .collect();
    out.extend(VARIANTS.iter().map(|v| Case {
        name: v.name,
        base: v.base,
        feature: v.feature,
        printed_as_variant: !v.synonym,
        forms: v.forms,
    }));
    out
}

#[test]
fn every_mnemonic_variant_and_form_round_trips() {
    let mut rng = XorShift(0x0005_eed0_f5b0_1234);
    for round in 0..8 {
        let mut source = String::from("_start:\n");
        let mut expected = Vec::new();
        for case in cases() {
            // GNU `as` reads `nop` with an operand as its `.nop` pseudo-op (a byte count):
            // only the operand-less form is the instruction.
            let forms = case
                .forms
                .iter()
                .filter(|form| case.base != Mnemonic::Nop || form.is_empty());
            for form in forms {
                let ops: Vec<String> = form.iter().map(|k| operand(*k, &mut rng)).collect();
                if expected.len() == 20 {
                    source.push_str("near: ");
                }
                writeln!(source, "  {} {}", case.name, ops.join(", ")).unwrap();
                expected.push((case.name, case.base, case.feature, case.printed_as_variant));
            }
        }
        source.push_str("far: stop\n");
        let mut image = vec![0u8; 4096];
        let program = assemble::<8>(&source, &mut image)
            .unwrap_or_else(|e| panic!("round {round}: {e}\n{source}"));
        assert_eq!(program.len, (expected.len() + 1) * 4);

        // Listing with the same labels.
        let mut listing = String::new();
        for (i, (name, base, feature, as_variant)) in expected.iter().enumerate() {
            let pc = (i * 4) as u32;
            let word = u32::from_be_bytes(image[i * 4..i * 4 + 4].try_into().unwrap());
            let inst = decode(word).unwrap();
            assert_eq!(inst.mnemonic, *base, "{name}: {word:#010x}");
            assert_eq!(inst.feature_bits(), *feature, "{name}: {word:#010x}");
            if let Some(label) = program.symbols.symbol_at(pc) {
                write!(listing, "{label}: ").unwrap();
            }
            let text = inst
                .display_as(pc, &program.symbols, Syntax::Listing)
                .to_string();
            let printed = text.split(['\t', ' ']).next().unwrap();
            if *as_variant {
                assert_eq!(printed, *name, "{text}");
            } else {
                // Synonyms print as their base name plus the feature letters (d = 0x20, e = 0x10),
                // as binutils prints the first table entry of an opcode; `syscall` with an
                // immediate as itself, mtspr having no field for it.
                let mut want = base.name().to_string();
                if *name == "syscall" && word & 0x7f << 14 != 0 {
                    want = "syscall".to_string();
                }
                if feature & 0x20 != 0 {
                    want.push('d');
                }
                if feature & 0x10 != 0 {
                    want.push('e');
                }
                assert_eq!(printed, want, "{text}");
            }
            writeln!(listing, "{text}").unwrap();
        }
        listing.push_str("far: stop\n");
        let mut image2 = vec![0u8; 4096];
        let program2 = assemble::<8>(&listing, &mut image2)
            .unwrap_or_else(|e| panic!("round {round}: {e}\n{listing}"));
        assert_eq!(program2.len, program.len);
        for i in 0..expected.len() {
            assert_eq!(
                image[i * 4..i * 4 + 4],
                image2[i * 4..i * 4 + 4],
                "round {round} line {}: {}",
                i + 2,
                listing.lines().nth(i).unwrap()
            );
        }
    }
}

#[test]
fn listing_without_symbols_round_trips_with_relative_addresses() {
    let source =
        "loop: ai $3,$3,-1\n hbrr br_at,loop\n nop\nbr_at: brnz $3,loop\n bra 0x40\n stop 0x2000";
    let mut image = [0u8; 64];
    let program = assemble::<4>(source, &mut image).unwrap();
    let (mut listing, mut objdump) = (String::new(), String::new());
    for pc in (0..program.len).step_by(4) {
        let inst = decode(u32::from_be_bytes(image[pc..pc + 4].try_into().unwrap())).unwrap();
        let pc = pc as u32;
        writeln!(
            listing,
            "{}",
            inst.display_as(pc, &NoSymbols, Syntax::Listing)
        )
        .unwrap();
        writeln!(
            objdump,
            "{}",
            inst.display_as(pc, &NoSymbols, Syntax::Objdump)
        )
        .unwrap();
    }
    // pc-relative operands as distances from `.` (gas takes a number as the offset itself);
    // `nop` without its `$0`, which gas would read as a `.nop` byte count.
    assert_eq!(
        listing,
        "ai\t$3,$3,-1\nhbrr\t.+0x8,.-0x4\nnop\nbrnz\t$3,.-0xc\nbra\t0x40\nstop\t8192\t# 2000\n"
    );
    // objdump leaves the signal out, so its text would lose it.
    assert_eq!(
        objdump,
        "ai\t$3,$3,-1\nhbrr\t0xc,0x0\nnop\t$0\nbrnz\t$3,0x0\nbra\t0x40\nstop\n"
    );
    let mut image2 = [0u8; 64];
    assemble::<4>(&listing, &mut image2).unwrap();
    assert_eq!(image, image2);
}

/// Random words: decoding and disassembling never panics, and each word's listing line,
/// assembled at the word's address, gives the word back.
#[test]
fn random_words_reassemble_from_their_listing_line() {
    let mut rng = XorShift(0x0dd_ba11_cafe_f00d);
    let mut reassembled = 0;
    for _ in 0..20_000 {
        let word = rng.next() as u32;
        let pc = (rng.range(0, 255) * 4) as u32;
        let Ok(inst) = decode(word) else { continue };
        let text = inst.display_as(pc, &NoSymbols, Syntax::Listing).to_string();
        let source = format!(".space {pc}\n{text}\n");
        let mut image = vec![0u8; 2048];
        assemble::<1>(&source, &mut image).unwrap_or_else(|e| panic!("{word:#010x} `{text}`: {e}"));
        let p = pc as usize;
        let word2 = u32::from_be_bytes(image[p..p + 4].try_into().unwrap());
        assert_eq!(word2, word, "`{text}` at {pc:#x}");
        reassembled += 1;
    }
    assert!(reassembled > 1000, "{reassembled}");
}
