//! GNU `as` 2.40 compatibility of the SPU assembler's operands: registers as `tc-spu.c`'s
//! `get_reg` reads them, pc-relative operands (a constant is the offset, an address the
//! target), and each immediate kind's range as `arg_encode` gives it. Expected words are
//! computed here from binutils' opcode table (`spu-insns.h`) and `tc-spu.c`; each source
//! was also assembled with gas 2.40 + ld 2.40 for spu-elf, which gave the same words.

// Words are spelled field by field to mirror the ISA layout.
#![allow(clippy::identity_op)]

use pmprobe::spu::isa::asm::{AsmErrorKind, assemble};

#[path = "support/asm.rs"]
mod asm;
use asm::{asm_err, asm_words, words};

/// An RR word: 11-bit opcode, RB at 14, RA at 7, RT at 0.
fn rr(op: u32, rb: u32, ra: u32, rt: u32) -> u32 {
    op << 21 | rb << 14 | ra << 7 | rt
}

/// An RI10 word (`ai`: `APUOP(M_AI, RI10, 0x0e0, ...)`, `stqd` 0x120, `lqd` 0x1a0).
fn ri10(op: u32, imm: i32, ra: u32, rt: u32) -> u32 {
    op << 21 | ((imm as u32) & 0x3ff) << 14 | ra << 7 | rt
}

/// An RI16 word (`il` 0x204, `br` 0x190, `brsl` 0x198, `lqr` 0x19c, `stqr` 0x11c, `brz`
/// 0x100, `bra` 0x180, `lqa` 0x184).
fn ri16(op: u32, i16: i32, rt: u32) -> u32 {
    op << 21 | ((i16 as u32) & 0xffff) << 7 | rt
}

/// An RI7 word (`rotqmbii` 0x1f9, `roti` 0x078, `cbd` 0x1f4, `shli` 0x07b...).
fn ri7(op: u32, imm: i32, ra: u32, rt: u32) -> u32 {
    op << 21 | ((imm as u32) & 0x7f) << 14 | ra << 7 | rt
}

/// `hbrr s11, r18` (LBT, 0x090): ROH (2 bits) at 23, I16 at 7, ROL (7 bits) at 0.
fn hbrr(branch: i32, target: i32) -> u32 {
    let b = branch >> 2;
    0x090 << 21
        | ((b >> 7) as u32 & 3) << 23
        | ((target >> 2) as u32 & 0xffff) << 7
        | (b as u32 & 0x7f)
}

#[test]
fn registers_are_read_as_get_reg_reads_them() {
    // `$N`, the longest register name (any case), or an expression (after an optional `$`)
    // whose value is a constant where it is read: a symbol defined before, `(2+1)`.
    let src = "
        .equ k0, 127
        .set s1, 5
_start: a $k0, $k0, $k0
        ai $s1, $(2+1), 3
        il (2+1), 0
        stqd $(0), 16($1)
        ai $SP, $LR, 1
        ai $fp, $rp, 1
        ai s1, k0, 1
        ai (s1), $(k0-1), 1
        rdch $3, $SPU_RdInMbox
        rdch $3, $ch5
        rdch $3, $(7)
        rdch $3, $k0
        mfspr $3, $sp5
        mfspr $3, $s1
        lqd $3, 0($(1))
        lqd $3, (16)($sp)
";
    assert_eq!(
        asm_words(src),
        [
            rr(0x0c0, 127, 127, 127),
            ri10(0x0e0, 3, 3, 5),
            ri16(0x204, 0, 3),
            ri10(0x120, 1, 1, 0),
            ri10(0x0e0, 1, 0, 1),
            ri10(0x0e0, 1, 0, 127),
            ri10(0x0e0, 1, 127, 5),
            ri10(0x0e0, 1, 126, 5),
            rr(0x00d, 0, 29, 3), // SPU_RdInMbox is channel 29
            rr(0x00d, 0, 5, 3),
            rr(0x00d, 0, 7, 3),
            rr(0x00d, 0, 127, 3),
            rr(0x00c, 0, 5, 3), // mfspr: APUOP(M_MFSPR, RR, 0x00c, ...)
            rr(0x00c, 0, 5, 3),
            ri10(0x1a0, 0, 1, 3),
            ri10(0x1a0, 1, 1, 3),
        ]
    );
}

#[test]
fn a_register_expression_past_127_spills_as_in_gas() {
    // get_reg ORs `value << pos` into the word unchecked: `$(130)` as RT of `ai` sets RT to
    // 130 & 127 = 2 and RA's low bit. And `$200-190`: 200 is no register, so gas reads an
    // expression from where the digits end, `-190`.
    assert_eq!(asm_words("ai $(130), $3, 1"), [ri10(0x0e0, 1, 3, 0) | 130]);
    assert_eq!(
        asm_words("ai $200-190, $3, 1"),
        [ri10(0x0e0, 1, 3, 0) | (-190i64 as u32)]
    );
}

#[test]
fn a_register_symbol_must_be_defined_before_and_names_win() {
    // gas reads `$k` as a register only if `k` is a constant where it is read.
    assert_eq!(
        asm_err("ai $3, $k, 1\n.equ k, 5").kind,
        AsmErrorKind::ExpectedRegister
    );
    // A label is an address, no register.
    assert_eq!(
        asm_err("k: ai $3, $k, 1").kind,
        AsmErrorKind::ExpectedRegister
    );
    // The longest name the text starts with wins, so `$lrx` is `$lr` and then junk, even
    // with a symbol `lrx` defined; `$sp` is no special-purpose register name.
    assert!(matches!(
        asm_err(".equ lrx, 5\nbi $lrx").kind,
        AsmErrorKind::UnexpectedToken { .. }
    ));
    assert_eq!(
        asm_err("mfspr $3, $sp").kind,
        AsmErrorKind::ExpectedRegister
    );
    // `$128` is out of range with nothing after it to read as an expression.
    assert_eq!(
        asm_err("bi $128").kind,
        AsmErrorKind::RegisterOutOfRange { value: 128 }
    );
}

#[test]
fn pc_relative_operands_take_a_constant_as_the_offset_and_an_address_as_the_target() {
    // tc-spu.c's get_imm encodes an O_constant as it is (`br 0x14` at 8 branches to
    // 0x1c); a label, `.`, `label+4` or a symbol defined later goes to a fixup, resolved
    // as the distance from the instruction. No alignment check: `br 2` is offset 0.
    let src = "
_start: nop
        nop
        br 0x14           # 0x08: offset 0x14
        br .              # 0x0c: 0
        br .+8            # 0x10: 8
        br L              # 0x14: L - 0x14
        br L+4            # 0x18
        brsl $lr, L       # 0x1c
        lqr $3, 0x20      # 0x20: offset 0x20
        lqr $3, L         # 0x24
        stqr $3, .-16     # 0x28
        hbrr .+8, L       # 0x2c: both relative
        hbrr 8, 12        # 0x30: both constants
        brz $3, -4        # 0x34
        br 2              # 0x38: 2 >> 2 = 0
        br B              # 0x3c: B is defined later: the address 0x40
        lqr $3, B         # 0x40
L:      stop              # 0x44
        .equ A, 0x40
        br A              # 0x48: A is a constant here: the offset 0x40
        B = 0x40
";
    let words = asm_words(src);
    let l = 0x44;
    assert_eq!(
        words,
        [
            0x201 << 21,
            0x201 << 21,
            ri16(0x190, 0x14 >> 2, 0),
            ri16(0x190, 0, 0),
            ri16(0x190, 8 >> 2, 0),
            ri16(0x190, (l - 0x14) >> 2, 0),
            ri16(0x190, (l + 4 - 0x18) >> 2, 0),
            ri16(0x198, (l - 0x1c) >> 2, 0),
            ri16(0x19c, 0x20 >> 2, 3),
            ri16(0x19c, (l - 0x24) >> 2, 3),
            ri16(0x11c, -16 >> 2, 3),
            hbrr(8, l - 0x2c),
            hbrr(8, 12),
            ri16(0x100, -4 >> 2, 3),
            ri16(0x190, 0, 0),
            ri16(0x190, (0x40 - 0x3c) >> 2, 0),
            ri16(0x19c, (0x40 - 0x40) >> 2, 3),
            0,
            ri16(0x190, 0x40 >> 2, 0),
        ]
    );
}

#[test]
fn pc_relative_targets_in_another_section_are_distances() {
    // `.text.b` follows `.text` in spu-ld's `.text` output section.
    let src = "_start: stop\n.section .text.b, \"ax\"\nt: br _start\nbr t\nbrsl $lr, _start";
    assert_eq!(
        asm_words(src),
        [
            0,
            ri16(0x190, -4 >> 2, 0),
            ri16(0x190, -4 >> 2, 0),
            ri16(0x198, -12 >> 2, 0)
        ]
    );
}

#[test]
fn immediate_ranges_are_gas_s() {
    // arg_encode: A_S10B -512..511 (gas only warns outside -128..255); A_S3, A_S7N, A_U3,
    // A_U7 unchecked (7 bits kept); A_S6 -32..31; A_U5/A_U6 0..127; A_S14 -8192..8191 cut
    // by 4 bits; a constant is a C int.
    let src = "
        andbi $3, $4, -512
        andbi $3, $4, 511
        orbi $3, $4, 300
        rotqmbii $3, $4, 1000
        roti $3, $4, -1000
        rotqbii $3, $4, -5
        dftsv $3, $4, 300
        cbd $3, 200($4)
        rothmi $3, $4, -32
        shli $3, $4, 127
        lqd $3, 17($4)
        lqa $3, 5
        il $3, 0x100000005
";
    assert_eq!(
        asm_words(src),
        [
            ri10(0x0b0, -512, 4, 3),
            ri10(0x0b0, 511, 4, 3),
            ri10(0x030, 300, 4, 3), // orbi: APUOP(M_ORBI, RI10, 0x030, ...)
            ri7(0x1f9, 1000, 4, 3),
            ri7(0x078, -1000, 4, 3),
            ri7(0x1f8, -5, 4, 3),
            ri7(0x3bf, 300, 4, 3),
            ri7(0x1f4, 200, 4, 3),
            ri7(0x07d, -32, 4, 3),
            ri7(0x07b, 127, 4, 3),
            ri10(0x1a0, 1, 4, 3),
            ri16(0x184, 1, 3),
            ri16(0x204, 5, 3),
        ]
    );
    // Outside the ranges: gas's "Constant expression N out of range, [lo, hi]".
    for (src, value, min, max) in [
        ("andbi $3,$4,512", 512, -512, 511),
        ("rothmi $3,$4,32", 32, -32, 31),
        ("rotmi $3,$4,64", 64, -64, 63),
        ("shli $3,$4,-1", -1, 0, 127),
        ("cflts $3,$4,128", 128, 0, 127),
        ("lqd $3,8192($4)", 8192, -8192, 8191),
        ("lqa $3,262144", 262_144, -131_072, 262_143),
        ("stop 16384", 16384, 0, 16383),
        ("ila $3,-1", -1, 0, 262_143),
        ("ilh $3,-32769", -32769, -32768, 65535),
        ("hbrr -1025,0", -1025, -1024, 1023),
        ("br -262145", -262_145, -262_144, 262_143),
    ] {
        match asm_err(src).kind {
            AsmErrorKind::ImmediateOutOfRange {
                value: v,
                min: lo,
                max: hi,
                ..
            } => assert_eq!((v, lo, hi), (value, min, max), "{src}"),
            other => panic!("{src}: {other:?}"),
        }
    }
}

#[test]
fn addresses_take_only_plus_or_minus_a_number() {
    // expr.c: "invalid operands (.text and *ABS* sections) for `*'"; `-L`: "expression too
    // complex".
    for src in [
        "L: il $3, L*2",
        "L: il $3, L&0xff",
        "L: il $3, L+L",
        "L: il $3, -L",
    ] {
        assert!(
            matches!(asm_err(src).kind, AsmErrorKind::InvalidOperands { .. }),
            "{src}"
        );
    }
    // A difference in one section is a number; an address plus a number an address.
    let mut image = [0u8; 64];
    let program =
        assemble::<4>("nop\nL: il $3, L-_start+2\n_start: ila $4, L+4", &mut image).unwrap();
    assert_eq!(
        words(&image, program.len),
        [0x201 << 21, ri16(0x204, -2, 3), 0x210 << 21 | 8 << 7 | 4]
    );
}

#[test]
fn character_constants_are_read_as_gas_scrubs_them() {
    // gas's input scrubber (app.c) turns a character constant into its number before anything
    // else reads the line: the next character, or `\\` and an escape (b f n r t; any other
    // character stands for itself, so `'\\0'` is `'0'`, 48), then an optional closing quote.
    // A `;`, `#` or `,` inside one is that character. spu-as 2.40 assembled these bytes.
    let src = ".byte 'A','B'\n.byte 'A'+1, '\\n', ' ', ';', '#', '\\0', '\\\\', '\\'', 'z\n.byte ',', '\\t'\n.align 2\nil $3, 'A'+1\n";
    assert_eq!(
        asm_words(src),
        [
            u32::from_be_bytes([b'A', b'B', b'B', b'\n']),
            u32::from_be_bytes([b' ', b';', b'#', b'0']),
            u32::from_be_bytes([b'\\', b'\'', b'z', b',']),
            u32::from_be_bytes([b'\t', 0, 0, 0]),
            // il $3,66: APUOP(M_IL, RI16, 0x204, ...), I16 at bit 7.
            0x204 << 21 | 66 << 7 | 3,
        ]
    );
}

#[test]
fn syscall_is_mtspr_with_an_immediate() {
    // spu-insns.h: APUOP(M_SYSCALL, RI7, 0x10c, "syscall", _A3(A_T,A_A,A_S7N)), "this uses
    // op-code of mtspr": RT at bit 0, RA at 7, the 7-bit immediate at 14.
    assert_eq!(
        asm_words("syscall $3, $4, 5\nsyscall $1, $2, -1"),
        [
            0x10c << 21 | 5 << 14 | 4 << 7 | 3,
            0x10c << 21 | 0x7f << 14 | 2 << 7 | 1
        ]
    );
}
