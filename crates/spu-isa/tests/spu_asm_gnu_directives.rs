//! GNU `as` 2.40 compatibility of the SPU assembler's directives: pseudo-ops without their
//! dot (SPU gas's `NO_PSEUDO_DOT`), gas's `.nop`, the `w`/`l` alignments, `.extern`,
//! redefinitions of symbols, data truncated as gas truncates it, and the directives gas
//! knows that are refused with a reason. Expected bytes are computed here from
//! binutils' opcode table (`spu-insns.h`: the 11-bit opcode at bit 21) and gas's rules
//! (`read.c`, `tc-spu.c`); each source was also assembled with gas 2.40 + ld 2.40 for
//! spu-elf, which gave the same bytes.

// Words are spelled field by field to mirror the ISA layout.
#![allow(clippy::identity_op)]

use pmprobe_spu_isa::asm::{AsmErrorKind, Name, assemble};

#[path = "support/asm.rs"]
mod asm;
use asm::{asm_err, asm_words, words};

/// `APUOP(M_NOP, RR, 0x201, "nop", _A1(A_T))` with RT 0: what gas's `.nop` emits.
const NOP: u32 = 0x201 << 21;
/// `APUOP(M_LNOP, RR, 0x001, "lnop", _A0())`.
const LNOP: u32 = 0x001 << 21;

/// `il rt,i16`: `APUOP(M_IL, RI16, 0x204, "il", _A2(A_T,A_S16))`.
fn il(rt: u32, imm: i32) -> u32 {
    0x204 << 21 | ((imm as u32) & 0xffff) << 7 | rt
}

#[test]
fn directives_need_no_dot_and_take_any_case() {
    // read.c looks a statement's first word up in the pseudo-op table, lower-cased, before
    // macros and instructions: `GLOBL` is `.globl`, `Long` `.long`, `ALIGN 3` SPU's `.align`
    // (a power of two), `byte` `.byte`, `TEXT` `.text`.
    let src = "
        GLOBL _start
        global f
        TYPE f, @function
_start: il $3, 1
f:      Long 5
        ALIGN 3
        byte 1, 2, 3, 4
        data
        Word 0x01020304
        TEXT
        stop
";
    let mut image = [0u8; 256];
    let program = assemble::<8>(src, &mut image).unwrap();
    // il, .long 5 at 4, .align 3 (8 bytes): nothing to pad at 8; 4 bytes; stop at 12.
    assert_eq!(words(&image, 16), [il(3, 1), 5, 0x0102_0304, 0]);
    // .data at spu-ld's ALIGN(0x80).
    assert_eq!(program.symbol("f"), Some(4));
    assert_eq!(words(&image[0x80..], 4), [0x0102_0304]);
}

#[test]
fn set_and_eqv_without_a_dot_are_instructions() {
    // tc-spu.c's md_pseudo_table: `{"set", NULL, 0}` and `{"eqv", NULL, 0}` make them
    // mnemonics; `eqv` is one (APUOP(M_EQV, RR, 0x249, ...)), `set` is not.
    assert_eq!(
        asm_words("eqv $3, $4, $5"),
        [0x249 << 21 | 5 << 14 | 4 << 7 | 3]
    );
    assert_eq!(
        asm_err("set x, 5").kind,
        AsmErrorKind::UnknownMnemonic(Name::new("set"))
    );
    // With the dot they are the assignment directives.
    assert_eq!(asm_words(".set x, 5\n.eqv y, x + 1\nil $3, y"), [il(3, 6)]);
}

#[test]
fn nop_is_gas_s_nop_pseudo_op() {
    // read.c `s_nop`: one `nop` (RT 0), then more while fewer bytes than the operand were
    // written, if the operand is a constant where it is read. GCC's SPU back end wrote
    // `nop 127` meaning the instruction `nop $127`; gas 2.40 makes it 32 nops (128 bytes).
    assert_eq!(asm_words("nop"), [NOP]);
    assert_eq!(asm_words("NOP"), [NOP]);
    assert_eq!(asm_words("nop 127"), [NOP; 32]);
    assert_eq!(asm_words("nop 8"), [NOP; 2]);
    assert_eq!(asm_words("nop 7"), [NOP; 2]);
    assert_eq!(asm_words(".nop 0"), [NOP]);
    // `$127` here is a symbol (gas's names may start with `$`), never defined: one nop.
    assert_eq!(asm_words("nop $127"), [NOP]);
    // A symbol defined later is no constant where it is read: one nop, as gas makes.
    assert_eq!(asm_words("nop N\nN = 8"), [NOP]);
    assert_eq!(asm_words("N = 8\nnop N"), [NOP; 2]);
    // A macro named `nop` is never called without the dot: the pseudo-op comes first.
    assert_eq!(asm_words(".macro nop\nstop\n.endm\nnop"), [NOP]);
    assert!(matches!(
        asm_err("nop 12, 3").kind,
        AsmErrorKind::UnexpectedToken { .. }
    ));
}

#[test]
fn byte_and_pattern_alignments() {
    // `.balignw`/`.balignl` (bytes) and `.p2alignw`/`.p2alignl` (exponent) fill with a 2- or
    // 4-byte pattern, big-endian, repeated from the start of the padding; the maximum skips
    // a padding larger than it. Without a fill, code is padded with nop/lnop.
    let src = "
_start: stop
        .data
        .byte 1, 2
        .balignw 8, 0x1234
        .byte 3, 4, 5, 6
        .balignl 16, 0xaabbccdd
        .byte 7, 8
        .p2alignw 3, 0x5566
        .byte 9, 10, 11, 12
        .p2alignl 4, 0x01020304
        .byte 13, 14, 15, 16
        .balignl 16, 0x11223344, 5
        .byte 17, 18
        .balignw 16, 0x7788, 12
        .byte 19
        .balign 4, 0x1ff
        .text
        .balignl 16
        .extern nowhere
";
    let mut image = [0u8; 256];
    let program = assemble::<4>(src, &mut image).unwrap();
    // .text: stop, then `.balignl 16` without a fill: code padding (lnop, nop, lnop).
    assert_eq!(words(&image, 16), [0, LNOP, NOP, LNOP]);
    let expected: [u8; 52] = [
        1, 2, 0x12, 0x34, 0x12, 0x34, 0x12, 0x34, // .balignw 8 from 2
        3, 4, 5, 6, 0xaa, 0xbb, 0xcc, 0xdd, // .balignl 16 from 12
        7, 8, 0x55, 0x66, 0x55, 0x66, 0x55, 0x66, // .p2alignw 3 from 18
        9, 10, 11, 12, 1, 2, 3, 4, // .p2alignl 4 from 28
        13, 14, 15, 16, // .balignl 16, max 5: 12 bytes to pad, skipped
        17, 18, 0x77, 0x88, 0x77, 0x88, 0x77, 0x88, 0x77, 0x88, 0x77,
        0x88, // .balignw 16, max 12
        19, 0xff, 0xff, 0xff, // `.balign 4, 0x1ff`: the fill keeps its low byte
    ];
    assert_eq!(&image[0x80..0x80 + 52], &expected[..]);
    // The section's alignment is 16: gas rounds its size from 52 to 64 with zeros.
    assert_eq!(program.len, 0x80 + 64);
    // gas: "alignment padding (3 bytes) not a multiple of 2".
    assert_eq!(
        asm_err(".data\n.byte 1\n.balignw 4, 1").kind,
        AsmErrorKind::AlignmentPadding {
            padding: 3,
            pattern: 2
        }
    );
}

#[test]
fn a_label_may_redefine_a_set_or_equ_symbol() {
    // A symbol of `.set`/`.equ`/`=` is volatile in gas: a later assignment or label gives it
    // a new value; a use sees the value of its place, and a use before any definition the
    // first definition's.
    let src = "
_start: il $2, x          # 5, the first definition
        .equ x, 5
        il $3, x          # 5
x:      stop              # at 8
        il $4, x          # the label: 8
        N = 1
        il $5, N          # 1
        N = 2
        il $6, N          # 2
        il $7, M          # 7, the first of M's values
        M = 7
        M = 8
        il $8, M          # 8
";
    assert_eq!(
        asm_words(src),
        [
            il(2, 5),
            il(3, 5),
            0,
            il(4, 8),
            il(5, 1),
            il(6, 2),
            il(7, 7),
            il(8, 8)
        ]
    );
    // A label, `.equiv`, `.eqv` and `==` define a symbol once (gas: "symbol `x' is already
    // defined").
    for src in [
        ".equiv x, 1\nx: stop",
        ".eqv x, 1\nx: stop",
        "x == 1\nx = 2",
        "x: stop\n.set x, 1",
        ".set x, 1\n.eqv x, 2",
    ] {
        assert!(
            matches!(
                asm_err(src).kind,
                AsmErrorKind::AlreadyDefined(_) | AsmErrorKind::DuplicateLabel(_)
            ),
            "{src}"
        );
    }
}

#[test]
fn data_is_truncated_to_its_width_and_strings_join() {
    let src = "
_start: stop
        .data
        .word 0x100000000, 0x1ffffffff, -0x80000001
        .byte 256, -129, 0x1ff
        .short 70000
        .word 1+                 # a missing operand is 0 (gas warns)
        .octa -2
        .sleb128 -1, 300, -300
        .uleb128 300
        .string16 \"ab\"
        .ascii \"x\" \"y\", \"z\"
        .asciz \"p\"\"q\"
        .2byte 0x1234
        .4byte 7
        .dc.b 1
        .dc.w 2
        .dc.l 3
        .ds.w 1, 7
        .dcb.b 2, 9
        .float 1.5e
";
    let mut image = [0u8; 256];
    let program = assemble::<4>(src, &mut image).unwrap();
    let mut expected = vec![0u8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff];
    expected.extend_from_slice(&[0, 0x7f, 0xff]); // .byte: low bytes
    expected.extend_from_slice(&[0x11, 0x70]); // 70000 = 0x11170
    expected.extend_from_slice(&[0, 0, 0, 1]);
    expected.extend_from_slice(&[0xff; 15]); // .octa -2, sign-extended
    expected.push(0xfe);
    expected.extend_from_slice(&[0x7f, 0xac, 0x02, 0xd4, 0x7d]); // sleb128
    expected.extend_from_slice(&[0xac, 0x02]); // uleb128
    expected.extend_from_slice(&[0, b'a', 0, b'b', 0, 0]); // 2-byte characters
    expected.extend_from_slice(b"xyzpq\0"); // adjacent strings join
    expected.extend_from_slice(&[0x12, 0x34, 0, 0, 0, 7, 1, 0, 2, 0, 0, 0, 3, 0, 7, 9, 9]);
    expected.extend_from_slice(&0x3fc0_0000u32.to_be_bytes()); // `1.5e` is 1.5
    assert_eq!(&image[0x80..program.len], &expected[..]);
}

/// `ai rt,ra,s10`: `APUOP(M_AI, RI10, 0x1c, "ai", _A3(A_T,A_A,A_S10))` (8-bit opcode).
fn ai(rt: u32, ra: u32, imm: i32) -> u32 {
    0x1c << 24 | ((imm as u32) & 0x3ff) << 14 | ra << 7 | rt
}

/// `APUOP(M_STOP, RR, 0x000, "stop", _A1(A_S14))` with code 0.
const STOP: u32 = 0;

#[test]
fn reloc_is_taken_where_ld_leaves_the_bytes_as_they_are() {
    // ld-spu/pic.s's form. elf32-spu.c's relocate_section turns the instruction at an
    // R_SPU_ADD_PIC into `ai` only for a symbol no object defines; every symbol here is
    // defined, so the linked bytes are the instructions as written, as ld 2.40 gave them.
    // Names are elf32-spu.c's howto names, in any case (`strcasecmp`), or BFD_RELOC_NONE;
    // the symbol is optional; an offset at the section's end is inside (write.c's
    // get_frag_for_reloc takes `address <= fr_address + fr_fix`).
    let src = "
_start: il $3, 0
x:      .reloc .,SPU_ADD_PIC,x
        ai $3, $3, x
        .reloc .-4, spu_add_pic, x+4
        .reloc ., SPU_NONE
        .reloc _start, BFD_RELOC_NONE
        stop
        .reloc ., SPU_ADD_PIC
";
    let mut image = [0u8; 64];
    assemble::<8>(src, &mut image).unwrap();
    assert_eq!(words(&image, 12), [il(3, 0), ai(3, 3, 4), STOP]);
}

#[test]
fn reloc_that_ld_would_resolve_into_the_bytes_is_refused() {
    // R_SPU_ADDR32 (also as BFD_RELOC_32) makes ld write the symbol's address: a linked
    // image has no linker left to do it.
    for (src, reloc) in [
        ("x: stop\n.reloc x, SPU_ADDR32, x", "SPU_ADDR32"),
        ("x: stop\n.reloc x, BFD_RELOC_32, x", "BFD_RELOC_32"),
        ("x: stop\n.reloc x, spu_rel16, x", "spu_rel16"),
    ] {
        assert_eq!(
            asm_err(src).kind,
            AsmErrorKind::UnsupportedRelocation(Name::new(reloc)),
            "{src}"
        );
    }
    // gas: "unrecognized reloc type" (R_ is no part of a howto name).
    assert_eq!(
        asm_err("x: stop\n.reloc x, R_SPU_ADD_PIC, x").kind,
        AsmErrorKind::UnknownRelocation(Name::new("R_SPU_ADD_PIC"))
    );
    // gas: "reloc not within (fixed part of) section": 8 bytes of code, offset 12.
    let e = asm_err("_start: il $3, 0\n.reloc .+8, SPU_ADD_PIC, _start\nstop");
    assert_eq!(e.kind, AsmErrorKind::RelocationOutsideSection);
    assert_eq!(asm::at(e), (2, 8));
    // The symbol must be defined, like any other.
    assert!(matches!(
        asm_err("stop\n.reloc ., SPU_ADD_PIC, nowhere").kind,
        AsmErrorKind::UnknownLabel(_)
    ));
}

#[test]
fn directives_gas_knows_that_are_refused_say_why() {
    let why = |src: &str| match asm_err(src).kind {
        AsmErrorKind::UnsupportedDirective { name, why } => (name.to_string(), why),
        other => panic!("{src}: {other:?}"),
    };
    // gas 2.40 for SPU has no CFI ("CFI is not supported for this target"), nor `.nops`.
    assert!(why(".cfi_startproc").1.contains("CFI"));
    assert!(why("cfi_endproc").1.contains("CFI"));
    assert!(why(".nops 8").1.contains("SPU"));
    // A name with a dot that gas does not know either.
    assert_eq!(
        asm_err(".frobnicate").kind,
        AsmErrorKind::UnknownDirective(Name::new(".frobnicate"))
    );
    // `.endmacro` is no gas directive: the macro's `.endm` is missing.
    assert_eq!(
        asm_err(".macro m\nnop\n.endmacro\n").kind,
        AsmErrorKind::MissingEnd { expected: ".endm" }
    );
}
