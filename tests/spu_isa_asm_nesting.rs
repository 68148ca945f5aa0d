//! Assembler: the expression parser's nesting limit. Deep nesting is a typed error at the
//! first token past the limit, never a stack overflow; sources within the limit assemble.

use pmprobe::spu::isa::asm::{AsmErrorKind, MAX_NESTING, assemble};

#[path = "support/asm.rs"]
mod asm;
use asm::{asm_err, asm_words, at};

/// `il $3,` followed by `depth` copies of `open`, `1`, and `depth` copies of `close`.
fn nested_source(open: &str, close: &str, depth: usize) -> String {
    format!("il $3,{}1{}", open.repeat(depth), close.repeat(depth))
}

/// `il $3,1` (the value every nested source below evaluates to).
const IL_3_1: u32 = 0x081 << 23 | 1 << 7 | 3;

#[test]
fn expressions_nest_up_to_the_limit() {
    let limit = MAX_NESTING as usize;
    // An even number of minus signs, so the value stays 1.
    assert_eq!(asm_words(&nested_source("-", "", limit)), [IL_3_1]);
    assert_eq!(asm_words(&nested_source("(", ")", limit)), [IL_3_1]);
    assert_eq!(asm_words(&nested_source("~~", "", limit / 2)), [IL_3_1]);
    // Operators and parentheses share the budget: `-(` is two levels.
    assert_eq!(asm_words(&nested_source("-(", ")", limit / 2)), [IL_3_1]);
    // An odd number of minus signs: -1.
    assert_eq!(
        asm_words(&nested_source("-(", ")", limit / 2 - 1)),
        [0x081 << 23 | 0xffff << 7 | 3]
    );
}

#[test]
fn nesting_beyond_the_limit_is_an_error_at_the_first_level_too_many() {
    let limit = MAX_NESTING as usize;
    // "il $3," is 6 bytes: the first opening is at column 7, the first one too many at
    // column 7 + limit (+ limit more for the two-byte `-(`).
    for (open, close, column) in [
        ("-", "", 7 + limit),
        ("+", "", 7 + limit),
        ("~", "", 7 + limit),
        ("(", ")", 7 + limit),
        ("-(", ")", 7 + limit),
    ] {
        for depth in [limit + 1, 300] {
            let error = asm_err(&nested_source(open, close, depth));
            assert_eq!(
                error.kind,
                AsmErrorKind::NestingTooDeep { limit: MAX_NESTING },
                "{open:?} x {depth}"
            );
            assert_eq!(at(error), (1, column as u32), "{open:?} x {depth}");
        }
    }
    let error = asm_err(&format!("nop\n.word {}", "(".repeat(300)));
    assert_eq!(at(error), (2, 7 + limit as u32));
    assert_eq!(
        error.to_string(),
        format!(
            "2:{}: expression nested too deeply: more than {limit} prefix operators and parentheses",
            7 + limit
        )
    );
}

/// The bare-metal case: the assembler on a small stack (the firmware's boot stack has no
/// guard page), at the limit and far beyond it. A stack overflow would abort the test binary.
#[test]
fn deep_expressions_fit_a_small_stack() {
    const SMALL_STACK: usize = 96 * 1024;
    let limit = MAX_NESTING as usize;
    let worker = std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || {
            let mut image = [0u8; 16];
            let results: Vec<bool> = [
                nested_source("-(", ")", limit / 2),
                nested_source("(", ")", limit),
                nested_source("-", "", 1_000_000),
                nested_source("(", ")", 1_000_000),
            ]
            .iter()
            .map(|source| assemble::<1>(source, &mut image).is_ok())
            .collect();
            results
        })
        .expect("spawn the small-stack thread");
    assert_eq!(
        worker.join().expect("no stack overflow"),
        [true, true, false, false]
    );
}
