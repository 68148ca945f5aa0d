//! Checks of the `asm_expression` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): the assembler's expression parser against a reference
//! evaluator written here from GNU as's rules, on expressions generated from the input.
//!
//! The input describes an expression: chains of operands joined by binary operators, with
//! no parentheses to say the order, so the operator ranks decide it. Operands are numbers
//! (decimal, hex, binary, octal, char constants), prefix operators and parenthesised
//! expressions. The text goes into `.quad`, whose 8 big-endian bytes hold the 64-bit value.
//!
//! The reference follows gas (`expr.c`, the gas manual's "Infix Operators"), by precedence
//! climbing, not by the assembler's operator stacks:
//! - ranks, binding strongest first: `* / % << >>`, then `| & ^ !` (binary `!` is or-not),
//!   then `+ -`, then comparisons (`== != <> < <= > >=`, true is -1), then `&&`, then `||`
//!   (1 or 0); left-associative within a rank;
//! - 64-bit wrapping arithmetic; `/` and `%` are signed and divide by 1 when the divisor is
//!   0 (gas warns and carries on); shifts are of the unsigned value, by 64 or more give 0;
//! - prefix `-` negates, `~` complements, `!` is 1 for 0 and 0 otherwise, `+` does nothing.
//!
//! Checks: an expression whose prefix operators and parentheses nest at most
//! `MAX_NESTING` deep assembles to the reference's value; a deeper one is a
//! `NestingTooDeep` error; nothing panics.
use std::fmt::Write as _;

use pmprobe::spu::isa::asm::{AsmErrorKind, MAX_NESTING, assemble};

#[path = "byte_stream.rs"]
mod byte_stream;
use byte_stream::ByteStream;

/// Operands in one chain at most.
const MAX_CHAIN: usize = 6;
/// Nesting the generator goes to at most: past the limit, so the error is reached too.
const MAX_DEPTH: u32 = MAX_NESTING + 4;

#[derive(Clone, Copy, Debug)]
enum Binary {
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    Or,
    And,
    Xor,
    OrNot,
    Add,
    Sub,
    Eq,
    Ne,
    NeAlt,
    Lt,
    Le,
    Gt,
    Ge,
    LogicalAnd,
    LogicalOr,
}

const BINARY: [(Binary, &str); 20] = [
    (Binary::Mul, "*"),
    (Binary::Div, "/"),
    (Binary::Mod, "%"),
    (Binary::Shl, "<<"),
    (Binary::Shr, ">>"),
    (Binary::Or, "|"),
    (Binary::And, "&"),
    (Binary::Xor, "^"),
    (Binary::OrNot, "!"),
    (Binary::Add, "+"),
    (Binary::Sub, "-"),
    (Binary::Eq, "=="),
    (Binary::Ne, "!="),
    (Binary::NeAlt, "<>"),
    (Binary::Lt, "<"),
    (Binary::Le, "<="),
    (Binary::Gt, ">"),
    (Binary::Ge, ">="),
    (Binary::LogicalAnd, "&&"),
    (Binary::LogicalOr, "||"),
];

impl Binary {
    /// gas's rank: higher binds stronger.
    fn rank(self) -> u8 {
        use Binary::*;
        match self {
            Mul | Div | Mod | Shl | Shr => 5,
            Or | And | Xor | OrNot => 4,
            Add | Sub => 3,
            Eq | Ne | NeAlt | Lt | Le | Gt | Ge => 2,
            LogicalAnd => 1,
            LogicalOr => 0,
        }
    }

    fn apply(self, a: i64, b: i64) -> i64 {
        use Binary::*;
        let truth = |t: bool| -i64::from(t);
        let divisor = if b == 0 { 1 } else { b };
        let shift = |f: fn(u64, u32) -> u64| {
            if (b as u64) >= 64 {
                0
            } else {
                f(a as u64, b as u32) as i64
            }
        };
        match self {
            Mul => a.wrapping_mul(b),
            Div => a.wrapping_div(divisor),
            Mod => a.wrapping_rem(divisor),
            Shl => shift(|x, n| x << n),
            Shr => shift(|x, n| x >> n),
            Or => a | b,
            And => a & b,
            Xor => a ^ b,
            OrNot => a | !b,
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            Eq => truth(a == b),
            Ne | NeAlt => truth(a != b),
            Lt => truth(a < b),
            Le => truth(a <= b),
            Gt => truth(a > b),
            Ge => truth(a >= b),
            LogicalAnd => i64::from(a != 0 && b != 0),
            LogicalOr => i64::from(a != 0 || b != 0),
        }
    }
}

/// An operand of a chain.
enum Term {
    Number(i64),
    Prefix(char, Box<Term>),
    Parenthesised(Box<Chain>),
}

/// Operands joined by binary operators, as written (no order decided yet).
struct Chain {
    first: Term,
    rest: Vec<(Binary, &'static str, Term)>,
}

fn term(input: &mut ByteStream<'_>, depth: u32) -> Term {
    let choice = if depth >= MAX_DEPTH || input.is_done() {
        0
    } else {
        input.below(8)
    };
    match choice {
        5 => {
            let op = ['-', '~', '!', '+'][input.below(4)];
            Term::Prefix(op, Box::new(term(input, depth + 1)))
        }
        6 | 7 => Term::Parenthesised(Box::new(chain(input, depth + 1))),
        _ => Term::Number(number(input)),
    }
}

fn number(input: &mut ByteStream<'_>) -> i64 {
    match input.below(4) {
        0 => i64::from(input.byte() % 70),
        1 => i64::from(input.u32()),
        // Around the interesting edges: 0, 1, 63, 64, all ones of 32 bits.
        2 => [0, 1, 2, 63, 64, 0xffff_ffff][input.below(6)],
        _ => i64::from(input.u32()) << 16 | i64::from(input.byte()),
    }
}

fn chain(input: &mut ByteStream<'_>, depth: u32) -> Chain {
    let first = term(input, depth);
    let mut rest = Vec::new();
    let length = if input.is_done() {
        0
    } else {
        input.below(MAX_CHAIN)
    };
    for _ in 0..length {
        let (op, text) = BINARY[input.below(BINARY.len())];
        rest.push((op, text, term(input, depth)));
    }
    Chain { first, rest }
}

/// The text of `value` in one of gas's spellings.
fn write_number(out: &mut String, value: i64, style: u8) {
    let _ = match style % 5 {
        1 => write!(out, "0x{value:x}"),
        2 => write!(out, "0b{value:b}"),
        3 if value != 0 => write!(out, "0{value:o}"),
        4 if (65..=90).contains(&value) => write!(out, "'{}", value as u8 as char),
        _ => write!(out, "{value}"),
    };
}

fn write_term(out: &mut String, term: &Term, style: &mut u8) {
    match term {
        Term::Number(value) => {
            *style = style.wrapping_add(1);
            write_number(out, *value, *style);
        }
        Term::Prefix(op, inner) => {
            out.push(*op);
            write_term(out, inner, style);
        }
        Term::Parenthesised(chain) => {
            out.push('(');
            write_chain(out, chain, style);
            out.push(')');
        }
    }
}

fn write_chain(out: &mut String, chain: &Chain, style: &mut u8) {
    write_term(out, &chain.first, style);
    for (_, text, term) in &chain.rest {
        // Spaces keep `a - -1` apart from `a --1` and `a ! !b` readable.
        let _ = write!(out, " {text} ");
        write_term(out, term, style);
    }
}

/// Prefix operators and parentheses on the deepest path.
fn term_depth(term: &Term) -> u32 {
    match term {
        Term::Number(_) => 0,
        Term::Prefix(_, inner) => 1 + term_depth(inner),
        Term::Parenthesised(chain) => 1 + chain_depth(chain),
    }
}

fn chain_depth(chain: &Chain) -> u32 {
    chain
        .rest
        .iter()
        .map(|(_, _, t)| term_depth(t))
        .chain([term_depth(&chain.first)])
        .max()
        .unwrap_or(0)
}

fn evaluate_term(term: &Term) -> i64 {
    match term {
        Term::Number(value) => *value,
        Term::Prefix('-', inner) => evaluate_term(inner).wrapping_neg(),
        Term::Prefix('~', inner) => !evaluate_term(inner),
        Term::Prefix('!', inner) => i64::from(evaluate_term(inner) == 0),
        Term::Prefix(_, inner) => evaluate_term(inner),
        Term::Parenthesised(chain) => evaluate_chain(chain),
    }
}

/// Precedence climbing over the chain's operands and operators.
fn evaluate_chain(chain: &Chain) -> i64 {
    let values: Vec<i64> = [evaluate_term(&chain.first)]
        .into_iter()
        .chain(chain.rest.iter().map(|(_, _, t)| evaluate_term(t)))
        .collect();
    let ops: Vec<Binary> = chain.rest.iter().map(|(op, _, _)| *op).collect();
    let mut at = 0;
    climb(&values, &ops, &mut at, 0)
}

/// Evaluates from operand `*at` while the operators bind at least `min_rank`.
fn climb(values: &[i64], ops: &[Binary], at: &mut usize, min_rank: u8) -> i64 {
    let mut left = values[*at];
    while let Some(&op) = ops.get(*at) {
        if op.rank() < min_rank {
            break;
        }
        *at += 1;
        // Left-associative: the right side takes only operators that bind more strongly.
        let right = climb(values, ops, at, op.rank() + 1);
        left = op.apply(left, right);
    }
    left
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let mut input = ByteStream::new(data);
    let expression = chain(&mut input, 0);
    let mut text = String::from("\t.quad ");
    write_chain(
        &mut text,
        &expression,
        &mut data.first().copied().unwrap_or(0),
    );
    text.push('\n');
    let mut image = [0u8; 64];
    let result = assemble::<8>(&text, &mut image);
    if chain_depth(&expression) > MAX_NESTING {
        match result {
            Err(error) => assert!(
                matches!(error.kind, AsmErrorKind::NestingTooDeep { .. }),
                "{text}: {error}"
            ),
            Ok(_) => panic!("{text}: nested deeper than {MAX_NESTING}, yet accepted"),
        }
        return;
    }
    let expected = evaluate_chain(&expression);
    match result {
        Ok(program) => {
            assert_eq!(program.len, 8, "{text}");
            assert_eq!(
                image[..8],
                expected.to_be_bytes(),
                "{text}: expected {expected:#x}"
            );
        }
        Err(error) => panic!("{text}: {error} (expected {expected:#x})"),
    }
}
