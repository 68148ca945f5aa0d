//! Assembler: whole programs (expected words built from the SPU encoding rules by hand) and
//! one test per error kind (line, column and kind). The expression nesting limit is tested in
//! `spu_isa_asm_nesting.rs`.

// Words are spelled field by field, zero fields included, to mirror the ISA layout.
#![allow(clippy::identity_op)]

use pmprobe::spu::isa::OperandKind;
use pmprobe::spu::isa::asm::{AsmErrorKind, Name, assemble};

#[path = "support/asm.rs"]
mod asm;
#[path = "support/xorshift.rs"]
mod xorshift;
use asm::{asm_err, asm_words, at, words};
use xorshift::XorShift;

// ---- programs -------------------------------------------------------------------------

#[test]
fn countdown_loop() {
    let src = "_start: il $3,10\nloop:   ai $3,$3,-1\n        brnz $3,loop\n        stop 0x2000\n";
    let mut image = [0u8; 64];
    let program = assemble::<4>(src, &mut image).unwrap();
    assert_eq!(program.len, 16);
    assert_eq!(program.text_len, 16);
    assert_eq!(program.data_len, 0);
    assert_eq!(program.entry, 0);
    assert_eq!(program.symbol("loop"), Some(4));
    assert_eq!(program.symbol("nope"), None);
    assert_eq!(
        words(&image, 16),
        [
            0x204 << 21 | 10 << 7 | 3,              // il $3,10
            0x0e0 << 21 | 0x3ff << 14 | 3 << 7 | 3, // ai $3,$3,-1
            0x108 << 21 | 0xffff << 7 | 3,          // brnz $3,-4 bytes
            0x0000_2000,                            // stop 0x2000
        ]
    );
}

#[test]
fn function_call_with_link_register() {
    let src = "
        .text
        .global _start
_start: il $3,5
        brsl $lr,func      # call
        stop
func:   a $3,$3,$3
        bi $lr
";
    assert_eq!(
        asm_words(src),
        [
            0x204 << 21 | 5 << 7 | 3,
            0x198 << 21 | 2 << 7, // brsl $0,+8 bytes
            0,                    // stop
            0x0c0 << 21 | 3 << 14 | 3 << 7 | 3,
            0x1a8 << 21, // bi $0
        ]
    );
}

#[test]
fn data_section_follows_text_at_align_0x80() {
    // spu-ld's default script: `. = ALIGN(0x80)` between the text and the data.
    let src = "
        .data
src:    .word 1, 2, 3, 0xffffffff
dst:    .space 16
        .text
_start: ila $4,src
        lqd $5,0($4)
        stqd $5,16($4)
        stop
";
    let mut image = [0xaau8; 256];
    let program = assemble::<8>(src, &mut image).unwrap();
    assert_eq!(
        (program.text_len, program.data_start, program.data_len),
        (16, 0x80, 32)
    );
    assert_eq!(program.len, 0xa0);
    assert_eq!(program.symbol("src"), Some(0x80));
    assert_eq!(program.symbol("dst"), Some(0x90));
    assert_eq!(
        words(&image, 16),
        [
            0x210 << 21 | 0x80 << 7 | 4,        // ila $4,0x80
            0x1a0 << 21 | 4 << 7 | 5,           // lqd $5,0($4)
            0x120 << 21 | 1 << 14 | 4 << 7 | 5, // stqd $5,16($4)
            0,
        ]
    );
    // The gap between the segments is zeroed, the data follows.
    assert!(image[16..0x80].iter().all(|&b| b == 0));
    assert_eq!(
        words(&image[0x80..], 32),
        [1, 2, 3, 0xffff_ffff, 0, 0, 0, 0]
    );
    // Bytes after the program are untouched.
    assert_eq!(image[0xa0], 0xaa);
}

#[test]
fn entry_point_is_the_global_start_label() {
    // spu-ld's default script says ENTRY(_start): the global `_start`. spu-ld 2.40 linking
    // these two sources gave e_entry 4 for the first and, with "warning: cannot find entry
    // symbol _start; defaulting to 00000000" (the start of .text), 0 for the second.
    let mut image = [0u8; 64];
    let global = ".global _start\nhelper: bi $lr\n_start: brsl $lr,helper\n stop";
    let program = assemble::<4>(global, &mut image).unwrap();
    assert_eq!((program.entry, program.entry_defined), (4, true));
    assert_eq!(program.symbols.len(), 2);
    let local = "helper: bi $lr\n_start: brsl $lr,helper\n stop";
    let program = assemble::<4>(local, &mut image).unwrap();
    assert_eq!((program.entry, program.entry_defined), (0, false));
}

#[test]
fn hints_encode_split_offsets() {
    // hbrr at 0 hints the branch at 0x10 (ROL = 4 words) to target loop = 0.
    let src = "loop: hbrr br_at,loop\n nop\n nop\n nop\nbr_at: br loop\n hbr br_at,$7\n hbra br_at,0x100\n hbrp";
    let w = asm_words(src);
    assert_eq!(w[0], 0x090 << 21 | 4);
    assert_eq!(w[4], 0x190 << 21 | 0xfffc << 7); // br -16 bytes
    // hbr at 0x14: branch at 0x10 = -1 word -> ROH (bits 16-17) = 0b11, ROL = 0x7f.
    assert_eq!(w[5], 0x1ac << 21 | 0b11 << 14 | 7 << 7 | 0x7f);
    // hbra at 0x18: branch -2 words -> 9-bit 0x1fe: ROH (bits 7-8) = 0b11, ROL = 0x7e.
    assert_eq!(w[6], 0x080 << 21 | 0b11 << 23 | (0x100 >> 2) << 7 | 0x7e);
    assert_eq!(w[7], 0x1ac << 21 | 0x40 << 14);
}

#[test]
fn syntax_details() {
    let src = "A $3,$4,$5 ; nop ; lnop   # two statements and a comment\n\
               x: y: il 3,-1\n\
               ilhu $3,label@h\n\
               iohl $3,label@l\n\
               br .+8\n\
               lr $6,$sp\n\
               wrch SPU_WrOutMbox,$3\n\
               rdch $3,$ch29\n\
               label: ai $3,$3,0x10 + 2*3 - (1)\n\
               ceqi $3,$3,010\n\
               fsmbi $3,0b1010";
    let w = asm_words(src);
    assert_eq!(w[0], 0x0c0 << 21 | 5 << 14 | 4 << 7 | 3);
    assert_eq!(w[1], 0x4020_0000);
    assert_eq!(w[2], 0x0020_0000);
    assert_eq!(w[3], 0x204 << 21 | 0xffff << 7 | 3);
    let label = 10 * 4; // the 11th word
    assert_eq!(w[4], 0x208 << 21 | (label >> 16) << 7 | 3);
    assert_eq!(w[5], 0x304 << 21 | (label & 0xffff) << 7 | 3);
    assert_eq!(w[6], 0x190 << 21 | 2 << 7);
    assert_eq!(w[7], 0x020 << 21 | 1 << 7 | 6); // ori $6,$1,0
    assert_eq!(w[8], 0x10d << 21 | 28 << 7 | 3);
    assert_eq!(w[9], 0x00d << 21 | 29 << 7 | 3);
    assert_eq!(w[10], 0x0e0 << 21 | 21 << 14 | 3 << 7 | 3);
    assert_eq!(w[11], 0x3e0 << 21 | 8 << 14 | 3 << 7 | 3); // octal 010 = 8
    assert_eq!(w[12], 0x194 << 21 | 0b1010 << 7 | 3);
}

#[test]
fn text_alignment_pads_with_nop_lnop_like_gnu_as() {
    let w = asm_words("il $3,1\n.align 4\nstop\n.balign 8\n.p2align 3\nstop");
    let (nop, lnop) = (0x4020_0000, 0x0020_0000);
    // The section's alignment is 16 (`.align 4`): gas rounds its size to it with the same
    // padding (`md_section_align`), so a last `lnop` follows the last `stop`.
    assert_eq!(
        w,
        [0x204 << 21 | 1 << 7 | 3, lnop, nop, lnop, 0, lnop, 0, lnop]
    );
}

#[test]
fn data_directives() {
    let src = ".data\n.word 0x01020304\n.space 3,0xee\n.align 2\n.long -1\n.zero 4\n.int lbl\nlbl: .skip 4";
    let mut image = [0u8; 64];
    let program = assemble::<4>(src, &mut image).unwrap();
    assert_eq!(program.data_start, 0);
    assert_eq!(
        &image[..program.len],
        &[
            1, 2, 3, 4, 0xee, 0xee, 0xee, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0,
            0, 0
        ]
    );
}

#[test]
fn error_display_names_line_column_and_expectation() {
    let e = asm_err("nop\n  ai $3,$3,600");
    assert_eq!(
        e.to_string(),
        "2:12: operand 3: value 600 out of range, expected -512..=511"
    );
    let e = asm_err("heq $1");
    assert_eq!(
        e.to_string(),
        "1:1: `heq` takes `$rt,$ra,$rb` or `$ra,$rb`, found 1 operand(s)"
    );
}

// ---- one test per error kind ---------------------------------------------------------

#[test]
fn error_unknown_mnemonic() {
    let e = asm_err("nop\n  frobnicate $1");
    assert_eq!(at(e), (2, 3));
    assert_eq!(
        e.kind,
        AsmErrorKind::UnknownMnemonic(Name::new("frobnicate"))
    );
}

#[test]
fn error_unknown_directive() {
    let e = asm_err("  .bogus 1");
    assert_eq!(
        (at(e), e.kind),
        ((1, 3), AsmErrorKind::UnknownDirective(Name::new(".bogus")))
    );
}

#[test]
fn error_wrong_operand_count() {
    let e = asm_err("a $1,$2");
    assert_eq!(at(e), (1, 1));
    assert_eq!(
        e.kind,
        AsmErrorKind::WrongOperandCount {
            mnemonic: Name::new("a"),
            found: 2,
            expected: &[&[OperandKind::Rt, OperandKind::Ra, OperandKind::Rb]],
        }
    );
}

#[test]
fn error_expected_register() {
    let e = asm_err("a $1,$2,xyz");
    assert_eq!((at(e), e.kind), ((1, 9), AsmErrorKind::ExpectedRegister));
    let e = asm_err("lqd $3,16(5x)");
    assert_eq!(
        e.kind,
        AsmErrorKind::UnexpectedToken {
            expected: "end of register operand"
        }
    );
}

#[test]
fn error_register_out_of_range() {
    let e = asm_err("a $1,$2,$128");
    assert_eq!(
        (at(e), e.kind),
        ((1, 9), AsmErrorKind::RegisterOutOfRange { value: 128 })
    );
    let e = asm_err("rdch $3,$ch200");
    assert_eq!(e.kind, AsmErrorKind::RegisterOutOfRange { value: 200 });
}

#[test]
fn error_expected_expression() {
    let e = asm_err("il $3,");
    assert_eq!((at(e), e.kind), ((1, 7), AsmErrorKind::ExpectedExpression));
    // `$4` where no register is expected is a symbol name to gas (it warns), here undefined.
    let e = asm_err("il $3,$4");
    assert_eq!(
        (at(e), e.kind),
        ((1, 7), AsmErrorKind::UnknownLabel(Name::new("$4")))
    );
}

#[test]
fn error_expected_constant() {
    let e = asm_err("x: .space x");
    assert_eq!((at(e), e.kind), ((1, 11), AsmErrorKind::ExpectedConstant));
}

#[test]
fn error_invalid_number() {
    assert_eq!(asm_err("il $3,0x").kind, AsmErrorKind::InvalidNumber);
    assert_eq!(asm_err("il $3,12ab").kind, AsmErrorKind::InvalidNumber);
    assert_eq!(
        asm_err("il $3,99999999999999999999").kind,
        AsmErrorKind::InvalidNumber
    );
    assert_eq!(at(asm_err("il $3,09")), (1, 7)); // octal digit 9
}

#[test]
fn error_unexpected_token() {
    let e = asm_err("il $3,5 6");
    assert_eq!(
        (at(e), e.kind),
        (
            (1, 9),
            AsmErrorKind::UnexpectedToken {
                expected: "end of operand"
            }
        )
    );
    // `.text N` switches to subsection N: only 0 is implemented.
    assert!(matches!(
        asm_err(".text 1").kind,
        AsmErrorKind::UnsupportedDirective { .. }
    ));
    assert_eq!(asm_err(".text x").kind, AsmErrorKind::ExpectedConstant);
    let e = asm_err("lqd $3,16$1");
    assert!(matches!(e.kind, AsmErrorKind::UnexpectedToken { .. }));
}

#[test]
fn error_immediate_out_of_range() {
    // The ranges of tc-spu.c's `arg_encode` (checked against gas 2.40, which stops with
    // "Constant expression N out of range, [lo, hi]" on each of these).
    let range = |src: &str| match asm_err(src).kind {
        AsmErrorKind::ImmediateOutOfRange {
            value, min, max, ..
        } => (value, min, max),
        other => panic!("{other:?}"),
    };
    assert_eq!(range("ai $1,$2,512"), (512, -512, 511));
    assert_eq!(range("ai $1,$2,-513"), (-513, -512, 511));
    assert_eq!(range("il $3,32768"), (32768, -32768, 32767));
    assert_eq!(range("ilhu $3,65536"), (65536, -32768, 65535));
    assert_eq!(range("iohl $3,-32769"), (-32769, -32768, 65535));
    assert_eq!(range("fsmbi $3,0x10000"), (0x10000, -32768, 65535));
    assert_eq!(range("andbi $3,$3,512"), (512, -512, 511));
    assert_eq!(range("ila $3,-1"), (-1, 0, 262_143));
    assert_eq!(range("shli $3,$3,128"), (128, 0, 127));
    assert_eq!(range("rotmi $3,$3,-65"), (-65, -64, 63));
    assert_eq!(range("rothmi $3,$3,-33"), (-33, -32, 31));
    assert_eq!(range("cflts $3,$3,128"), (128, 0, 127));
    assert_eq!(range("stop 16384"), (16384, 0, 16383));
    assert_eq!(range("lqd $3,8192($1)"), (8192, -8192, 8191));
    assert_eq!(range("lqa $3,262144"), (262_144, -131_072, 262_143));
    assert_eq!(range("br 0x40000"), (0x40000, -262_144, 262_143));
    assert_eq!(range("hbrr 1024,0"), (1024, -1024, 1023));
    assert_eq!(at(asm_err("nop\nai $1,$2, 512")), (2, 11));
}

#[test]
fn unchecked_and_truncated_fields_follow_gas() {
    // gas does not check A_S3/A_S7N/A_U3/A_U7 (the `cbd` offset included): 7 bits are kept.
    // `cwd $3,128($1)`: RI7 0x1f6, I7 = 128 & 0x7f = 0.
    assert_eq!(asm_words("cwd $3,128($1)"), [0x1f6 << 21 | 1 << 7 | 3]);
    // D-form offsets are shifted right by 4 and byte addresses by 2, without an alignment
    // check: `lqd $3,8($1)` is offset 0, `lqa $3,0x42` address 0x40.
    assert_eq!(asm_words("lqd $3,8($1)"), [0x1a0 << 21 | 1 << 7 | 3]);
    assert_eq!(asm_words("lqa $3,0x42"), [0x061 << 23 | 0x10 << 7 | 3]);
    // A constant is cut to a C int: `il $3,0x100000005` is `il $3,5`.
    assert_eq!(asm_words("il $3,0x100000005"), [0x081 << 23 | 5 << 7 | 3]);
    // Data is truncated to its width (gas warns): `.word 0x100000000` is 0.
    assert_eq!(
        asm_words(".word 0x100000000\n.word 0x1ffffffff"),
        [0, 0xffff_ffff]
    );
    // An instruction goes wherever the section is (gas does not align it): 2 bytes in.
    let mut image = [0u8; 16];
    let program = assemble::<4>(".space 2\nstop 5", &mut image).unwrap();
    assert_eq!((program.len, &image[..6]), (6, &[0, 0, 0, 0, 0, 5][..]));
}

#[test]
fn error_unreachable_target() {
    let mut image = vec![0u8; 0x40000];
    // A hint's branch address 1028 bytes ahead: gas's A_S11 range is -1024..1023.
    let e = assemble::<4>("hbrr far,0\n.space 1024\nfar: br 0", &mut image).unwrap_err();
    assert_eq!(
        (at(e), e.kind),
        (
            (1, 6),
            AsmErrorKind::UnreachableTarget {
                offset: 1028,
                min: -1024,
                max: 1023
            }
        )
    );
}

#[test]
fn error_unknown_label() {
    let e = asm_err("nop\n brnz $3,nowhere");
    assert_eq!(
        (at(e), e.kind),
        ((2, 10), AsmErrorKind::UnknownLabel(Name::new("nowhere")))
    );
}

#[test]
fn error_duplicate_label() {
    let e = asm_err("x: nop\n\nx: nop");
    assert_eq!(
        (at(e), e.kind),
        ((3, 1), AsmErrorKind::DuplicateLabel(Name::new("x")))
    );
}

#[test]
fn error_too_many_symbols() {
    let mut image = [0u8; 64];
    let e = assemble::<2>("a1: nop\na2: nop\na3: nop", &mut image).unwrap_err();
    assert_eq!(
        (at(e), e.kind),
        ((3, 1), AsmErrorKind::TooManySymbols { capacity: 2 })
    );
}

#[test]
fn error_image_overflow() {
    let mut image = [0u8; 8];
    let e = assemble::<2>("nop\nnop\nnop", &mut image).unwrap_err();
    assert_eq!(
        (at(e), e.kind),
        ((3, 1), AsmErrorKind::ImageOverflow { capacity: 8 })
    );
    // Text of 4 bytes puts .data at ALIGN(0x80): a word there does not fit 128 bytes.
    let mut image = [0u8; 128];
    let e = assemble::<2>("nop\n.data\n.word 1", &mut image).unwrap_err();
    assert_eq!(
        (at(e), e.kind),
        ((3, 7), AsmErrorKind::ImageOverflow { capacity: 128 })
    );
}

#[test]
fn error_invalid_alignment() {
    // gas takes a byte alignment that is a power of two; a larger exponent than 31 is 31.
    let e = asm_err(".balign 3");
    assert_eq!(
        (at(e), e.kind),
        ((1, 9), AsmErrorKind::InvalidAlignment { value: 3 })
    );
    assert_eq!(
        asm_err(".p2align -1").kind,
        AsmErrorKind::InvalidAlignment { value: -1 }
    );
}

// ---- robustness ----------------------------------------------------------------------

/// Random text and mutated programs never panic; every error points inside the source.
#[test]
fn garbage_input_gives_errors_not_panics() {
    const CHARS: &[u8] = b"$,()0123456789abcxlrsp._:;#\n -+*~@hLqdi ";
    const PROGRAM: &str = "_start: il $3,10\nloop: ai $3,$3,-1 ; hbrr br,loop\nbr: brnz $3,loop\n\
                           lqd $4,16($sp)\n.data\nv: .word loop, 0x10\n.align 4\n.space 8,1\n";
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    for i in 0..20_000 {
        let source: Vec<u8> = if i % 2 == 0 {
            let len = (rng.next() % 40) as usize;
            (0..len)
                .map(|_| CHARS[(rng.next() % CHARS.len() as u64) as usize])
                .collect()
        } else {
            let mut bytes = PROGRAM.as_bytes().to_vec();
            for _ in 0..(1 + rng.next() % 3) {
                let at = (rng.next() % bytes.len() as u64) as usize;
                bytes[at] = CHARS[(rng.next() % CHARS.len() as u64) as usize];
            }
            bytes
        };
        let source = String::from_utf8(source).unwrap();
        let mut image = [0u8; 96];
        if let Err(e) = assemble::<3>(&source, &mut image) {
            let line = source.split('\n').nth(e.line as usize - 1).unwrap();
            assert!(e.column as usize <= line.len() + 1, "{e} in {source:?}");
        }
    }
}

#[test]
fn data_alignment_beyond_0x80_moves_the_data_start() {
    // Text is 4 bytes; the data starts at ALIGN(0x80) = 0x80, and .data's 64-byte alignment
    // keeps it there; the `.align 6` after one word pads to 0xc0, and gas rounds the
    // section's size to 64 bytes, so its 8 bytes of words take 128.
    let src = "nop\n.data\na: .word 1\n.align 6\nb: .word 2\n.text\nlqa $3,b";
    let mut image = [0u8; 256];
    let program = assemble::<4>(src, &mut image).unwrap();
    assert_eq!(program.data_start, 0x80);
    assert_eq!(program.symbol("a"), Some(0x80));
    assert_eq!(program.symbol("b"), Some(0xc0));
    assert_eq!(program.len, 0x100);
    assert_eq!(&image[0xc0..0xc4], &[0, 0, 0, 2]);
    // lqa $3,0xc0: I16 = 0x30.
    assert_eq!(
        &image[4..8],
        &(0x184u32 << 21 | 0x30 << 7 | 3).to_be_bytes()
    );
}
