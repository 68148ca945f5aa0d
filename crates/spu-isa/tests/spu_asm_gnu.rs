//! GNU `as` compatibility of the SPU assembler: each construct of GNU-style sources, with the
//! words GNU `as` produces computed here from binutils `include/opcode/spu-insns.h` (the
//! 11-bit OPCODE column placed at bit 21, operand fields per `tc-spu.c` `arg_encode`) and
//! the generic gas rules (`expr.c` precedence, `read.c` directives), never copied from this
//! assembler's output.

// Words are spelled field by field to mirror the ISA layout.
#![allow(clippy::identity_op)]

use pmprobe_spu_isa::asm::{AsmErrorKind, assemble};

#[path = "support/asm.rs"]
mod asm;
use asm::{asm_err, asm_words};

/// `il rt,i16`: spu-insns.h `APUOP(M_IL, RI16, 0x204, "il", _A2(A_T,A_S16))`.
fn il(rt: u32, imm: i32) -> u32 {
    0x204 << 21 | ((imm as u32) & 0xffff) << 7 | rt
}

/// `ai rt,ra,i10`: `APUOP(M_AI, RI10, 0x0e0, "ai", _A3(A_T,A_A,A_S10))`.
fn ai(rt: u32, ra: u32, imm: i32) -> u32 {
    0x0e0 << 21 | ((imm as u32) & 0x3ff) << 14 | ra << 7 | rt
}

/// `brnz rt,target`: `APUOP(M_BRNZ, RI16, 0x108, ...)`, I16 = byte offset / 4.
fn brnz(rt: u32, offset: i32) -> u32 {
    0x108 << 21 | (((offset >> 2) as u32) & 0xffff) << 7 | rt
}

/// `br target`: `APUOP(M_BR, RI16, 0x190, "br", _A1(A_R18))`.
fn br(offset: i32) -> u32 {
    0x190 << 21 | (((offset >> 2) as u32) & 0xffff) << 7
}

const NOP: u32 = 0x201 << 21; // APUOP(M_NOP2, RR, 0x201, "nop", _A0())
const LNOP: u32 = 0x001 << 21; // APUOP(M_LNOP, RR, 0x001, "lnop", _A0())

#[test]
fn expressions_follow_gas_precedence_and_operators() {
    // gas op_rank: * / % << >> (8) above | ^ & ! (7) above + - (5) above comparisons (4).
    let src = "
        il $3, 1 + 2 * 3          # 7
        il $4, 1 << 4 | 1         # (1<<4)|1 = 17
        il $5, 2 + 3 & 1          # 2 + (3&1) = 3
        il $6, 100 / 7 % 4        # (100/7)%4 = 2
        il $7, ~0 ^ 0xff          # -256
        il $8, 'A                 # 65
        il $9, (3 > 2) + (2 == 2) # -1 + -1 = -2
        il $10, !0 + !5           # 1 + 0
        il $11, 5 ! 1             # 5 | ~1 = -1
        il $12, -1 >> 60          # unsigned shift: 15
        il $13, 7 / 0             # gas divides by 1: 7
        il $14, 1 && 2 || 0       # 1
";
    assert_eq!(
        asm_words(src),
        [
            il(3, 7),
            il(4, 17),
            il(5, 3),
            il(6, 2),
            il(7, -256),
            il(8, 65),
            il(9, -2),
            il(10, 1),
            il(11, -1),
            il(12, 15),
            il(13, 7),
            il(14, 1),
        ]
    );
}

#[test]
fn comments_separators_and_assignments() {
    let src = "
        /* a block comment
           over two lines */ il $3, N   # N is assigned later
        N = 4 * 4
        .set M, N + 1 ; il $4, M
        .equ K, M << 1
        il $5, K /* inline */ ; il $6, K@h ; il $7, 0x12345678@l
        .equiv E, 3
        il $8, E
";
    assert_eq!(
        asm_words(src),
        [
            il(3, 16),
            il(4, 17),
            il(5, 34),
            il(6, 0),
            il(7, 0x5678),
            il(8, 3)
        ]
    );
    assert_eq!(
        asm_err(".equiv E, 1\n.equiv E, 2").kind,
        AsmErrorKind::AlreadyDefined(pmprobe_spu_isa::asm::Name::new("E"))
    );
}

#[test]
fn numeric_local_labels_resolve_backward_and_forward() {
    let src = "
1:      ai $3, $3, -1
        brnz $3, 1b        # back to 0
        br 1f              # forward to 16
        nop
1:      br 1b              # the second 1: itself
";
    assert_eq!(
        asm_words(src),
        [ai(3, 3, -1), brnz(3, -4), br(8), NOP, br(0)]
    );
    assert_eq!(
        asm_err("br 2b").kind,
        AsmErrorKind::UndefinedLocalLabel {
            number: 2,
            forward: false
        }
    );
}

#[test]
fn register_and_channel_names() {
    // rdch/wrch: APUOP(M_RDCH, RR, 0x00d), APUOP(M_WRCH, RR, 0x10d); channel in the RA field.
    // bi: APUOP(M_BI, RR, 0x1a8, _A1(A_A)).
    let src = "
        rdch $3, $SPU_RdInMbox      # channel 29
        wrch $MFC_Cmd, $4           # channel 21
        wrch $ch28, $lr
        rdch $5, 24                 # MFC_RdTagStat by number
        ai $sp, $sp, -32
        bi $lr
        .set rX, 9
        ai rX, rX, 1
";
    assert_eq!(
        asm_words(src),
        [
            0x00d << 21 | 29 << 7 | 3,
            0x10d << 21 | 21 << 7 | 4,
            0x10d << 21 | 28 << 7 | 0,
            0x00d << 21 | 24 << 7 | 5,
            ai(1, 1, -32),
            0x1a8 << 21,
            ai(9, 9, 1),
        ]
    );
}

#[test]
fn data_directives_are_big_endian_like_gas() {
    let src = "
        .data
        .byte 1, -1, 'a
        .short 0x1234
        .hword -2
        .ascii \"hi\\n\"
        .asciz \"A\\101\\x42\"
        .balign 4
        .word 0xdeadbeef
        .quad -2
        .float 1.5
        .double -2.0
        .fill 2, 3, 0x010203
";
    let mut image = [0u8; 256];
    let program = assemble::<8>(src, &mut image).unwrap();
    let data = &image[program.data_start..program.len];
    let mut expected = vec![1u8, 0xff, b'a', 0x12, 0x34, 0xff, 0xfe, b'h', b'i', b'\n'];
    expected.extend_from_slice(&[b'A', b'A', b'B', 0]);
    expected.extend_from_slice(&[0, 0]); // .balign 4 from offset 14
    expected.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    expected.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]);
    expected.extend_from_slice(&0x3fc0_0000u32.to_be_bytes()); // 1.5 IEEE single
    expected.extend_from_slice(&0xc000_0000_0000_0000u64.to_be_bytes()); // -2.0 double
    // .fill 2, 3, v: each 3-byte unit holds the low 3 bytes of v, big-endian.
    expected.extend_from_slice(&[1, 2, 3, 1, 2, 3]);
    // gas rounds the section's size to its alignment (`.balign 4`) with zeros.
    expected.extend_from_slice(&[0, 0]);
    assert_eq!(data, &expected[..]);
}

#[test]
fn macros_with_defaults_keywords_and_counter() {
    let src = "
        .macro load reg, value=5
        il \\reg, \\value
        .endm
        .macro twice op:req, n
        \\op \\n
        \\op \\n, 7
        .endm
        .macro lbl
.Lx\\@: br .Lx\\@
        .endm
        load $3
        load $4, 9
        load value=2, reg=$5
        twice load $6
        lbl
        lbl
";
    assert_eq!(
        asm_words(src),
        [
            il(3, 5),
            il(4, 9),
            il(5, 2),
            il(6, 5),
            il(6, 7),
            br(0),
            br(0),
        ]
    );
}

#[test]
fn repeats_and_conditionals() {
    let src = "
        .rept 2
        nop
        .endr
        .irp r, 3, 4
        il $\\r, \\r
        .endr
        .irpc c, 56
        il $\\c, 1
        .endr
        X = 2
        .if X == 2
        il $7, 7
        .elseif X == 3
        il $7, 8
        .else
        il $7, 9
        .endif
        .ifdef X
        il $8, 1
        .endif
        .ifndef Y
        il $9, 1
        .endif
        .ifc a, b
        il $10, 1
        .endif
";
    assert_eq!(
        asm_words(src),
        [
            NOP,
            NOP,
            il(3, 3),
            il(4, 4),
            il(5, 1),
            il(6, 1),
            il(7, 7),
            il(8, 1),
            il(9, 1)
        ]
    );
}

#[test]
fn recursive_macros_stop_at_a_limit_error() {
    let e = asm_err(".macro r\n r\n.endm\n r\n");
    assert!(matches!(e.kind, AsmErrorKind::NestingLimit { .. }), "{e:?}");
    let e = asm_err(".rept 65536\n.rept 65536\nnop\n.endr\n.endr\n");
    assert!(
        matches!(
            e.kind,
            AsmErrorKind::ExpansionLimit { .. } | AsmErrorKind::ImageOverflow { .. }
        ),
        "{e:?}"
    );
    assert_eq!(
        asm_err(".if 1\nnop\n").kind,
        AsmErrorKind::MissingEnd { expected: ".endif" }
    );
}

#[test]
fn alignment_org_and_code_padding() {
    let src = "
        nop
        .p2align 4
        il $3, 1
        .org 0x20
        .balign 8, 0xff
        lnop
";
    // spu_handle_align: after `nop` at 0, lnop at 4, then nop/lnop pairs. The `.balign 8,
    // 0xff` at 0x20 has nothing to pad; the section's size is then rounded to its alignment
    // (16, from `.p2align 4`) with the same code padding (`md_section_align`). Checked with
    // gas 2.40.
    assert_eq!(
        asm_words(src),
        [
            NOP,
            LNOP,
            NOP,
            LNOP,
            il(3, 1),
            0,
            0,
            0,
            LNOP,
            LNOP,
            NOP,
            LNOP
        ]
    );
    assert!(matches!(
        asm_err("nop\nnop\n.org 4").kind,
        AsmErrorKind::OrgBackwards { .. }
    ));
}

#[test]
fn errors_name_what_gas_would_reject() {
    assert!(matches!(
        asm_err(".include \"x.s\"").kind,
        AsmErrorKind::NeedsFileAccess(_)
    ));
    assert!(matches!(
        asm_err(".endif").kind,
        AsmErrorKind::UnmatchedEnd(_)
    ));
    assert!(matches!(
        asm_err(".section .bss\n.word 1").kind,
        AsmErrorKind::NonZeroInBss
    ));
    assert_eq!(asm_err("/* open").kind, AsmErrorKind::UnterminatedComment);
    let e = asm_err("ai $3,$3,600");
    assert_eq!(
        e.kind,
        AsmErrorKind::ImmediateOutOfRange {
            operand: 3,
            value: 600,
            min: -512,
            max: 511
        }
    );
}
