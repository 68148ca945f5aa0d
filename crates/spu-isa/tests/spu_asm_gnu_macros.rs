//! GNU `as` 2.40 compatibility of the SPU assembler's macros and repeats: arguments as
//! gas's `macro.c` reads them (quotes removed, blanks separating), gas's nesting limit, and
//! where errors in expansions are reported. Expected words are computed here from binutils'
//! opcode table and gas's rules; each source that assembles was also assembled with gas 2.40
//! for spu-elf, which gave the same bytes.

// Words are spelled field by field to mirror the ISA layout.
#![allow(clippy::identity_op)]

use pmprobe_spu_isa::asm::{AsmErrorKind, MAX_EXPANSION_DEPTH};

#[path = "support/asm.rs"]
mod asm;
use asm::{asm_err, asm_words};

/// `il rt,i16`: `APUOP(M_IL, RI16, 0x204, "il", _A2(A_T,A_S16))`.
fn il(rt: u32, imm: i32) -> u32 {
    0x204 << 21 | ((imm as u32) & 0xffff) << 7 | rt
}

/// `stqd rt, offset(ra)`: `APUOP(M_STQD, RI10, 0x120, ...)`, I10 = offset >> 4.
fn stqd(rt: u32, offset: i32, ra: u32) -> u32 {
    0x120 << 21 | (((offset >> 4) as u32) & 0x3ff) << 14 | ra << 7 | rt
}

#[test]
fn quoted_arguments_lose_their_quotes() {
    // newlib's spu_timer_flih.S: a recursive macro passes `"(\first+1)"`, which gas reads
    // as `(2+1)`, `((2+1)+1)`...: registers built as expressions, 74 levels deep in
    // spu-mcount.S.
    let src = "
        .macro saveregs first, last
        stqd $\\first, \\first*16($sp)
        .if \\last-\\first
        saveregs \"(\\first+1)\",\\last
        .endif
        .endm
        saveregs 2, 75
";
    let expected: Vec<u32> = (2..=75).map(|r| stqd(r, r as i32 * 16, 1)).collect();
    assert_eq!(asm_words(src), expected);
    // `""` inside a quoted argument is one `"`: `"a""""b"` passes `a""b`, so the body's
    // `.ascii "\t"` reads `.ascii "a""b"`, two strings back to back: `ab`.
    assert_eq!(
        asm_words(".macro s t\n.ascii \"\\t\"\n.endm\ns \"a\"\"\"\"b\"\n.balign 4"),
        [u32::from_be_bytes(*b"ab\0\0")]
    );
}

#[test]
fn arguments_are_separated_by_blanks_or_commas() {
    // get_any_string: an unquoted argument ends at a blank or comma outside parentheses;
    // keyword arguments come after the positional ones.
    let src = "
        .macro pair a, b=7
        il \\a, \\b
        .endm
        pair $3
        pair $4 9
        pair b=5, a=$5
        pair \"$6\", \"1 + 2\"
        pair $7, (1 + 1)
        .irp r, 10, \"11\", 12
        il $\\r, \\r
        .endr
        .irpc c, 3 4
        il $\\c, 0
        .endr
        MACRO m2 x
        il $20, \\x
        ENDM
        m2 8
";
    assert_eq!(
        asm_words(src),
        [
            il(3, 7),
            il(4, 9),
            il(5, 5),
            il(6, 3),
            il(7, 2),
            il(10, 10),
            il(11, 11),
            il(12, 12),
            il(3, 0),
            il(4, 0),
            il(20, 8)
        ]
    );
    // gas: "too many positional arguments"; "can't mix positional and keyword arguments".
    assert!(matches!(
        asm_err(".macro m a\n.endm\nm 1 + 2").kind,
        AsmErrorKind::TooManyArguments(_)
    ));
    assert_eq!(
        asm_err(".macro m a, b\n.endm\nm b=1, 2").kind,
        AsmErrorKind::PositionalAfterKeyword
    );
}

#[test]
fn expansions_nest_as_deep_as_in_gas() {
    // gas checks `macro_nest > max_macro_nest` (100) before counting a level: 101 levels
    // assemble, 102 do not ("macros nested too deeply").
    assert_eq!(MAX_EXPANSION_DEPTH, 101);
    let recursion =
        |n: usize| format!(".macro r n\n.if \\n\nr \\n-1\n.endif\n.endm\nr {}\n", n - 1);
    assert!(asm_words(&recursion(101)).is_empty());
    assert_eq!(
        asm_err(&recursion(102)).kind,
        AsmErrorKind::NestingLimit {
            what: "macro expansion",
            limit: 101
        }
    );
}

#[test]
fn errors_in_an_expansion_name_where_it_started() {
    // gas: "file:3: Error: ..." and "file:7:  Info: macro invoked from here".
    let e = asm_err("_start: nop\n.macro m x\nil $3, \\x\n.endm\nnop\nnop\n  m nosuch\n");
    assert_eq!((e.line, e.column), (3, 8));
    assert_eq!(e.invoked_at, Some((7, 3)));
    assert!(
        e.to_string().ends_with("(in the expansion started at 7:3)"),
        "{e}"
    );
    // In nested expansions, the outermost call in the source text.
    let e = asm_err(".macro in\nbogus\n.endm\n.macro out\nin\n.endm\nnop\nout\n");
    assert_eq!((e.line, e.invoked_at), (2, Some((8, 1))));
    // A repeat body too.
    let e = asm_err("nop\n.rept 2\nbogus\n.endr\n");
    assert_eq!((e.line, e.invoked_at), (3, Some((2, 1))));
    // Outside an expansion, none.
    assert_eq!(asm_err("bogus").invoked_at, None);
}

#[test]
fn lines_after_an_expansion_are_counted_from_the_source() {
    // gas reports `bogus` on line 6; the line counter used to restart from the body's.
    let e = asm_err(".rept 3\nnop\nnop\n.endr\nnop\nbogus\n");
    assert_eq!((e.line, e.column, e.invoked_at), (6, 1, None));
    let e = asm_err(".macro m\nnop\nnop\nnop\n.endm\nm\nm\nnop\nbogus\n");
    assert_eq!((e.line, e.invoked_at), (9, None));
}
