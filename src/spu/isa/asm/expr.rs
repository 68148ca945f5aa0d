//! Expressions with GNU `as` operators and precedence (`gas/expr.c` `op_rank`), lowest first:
//! `||`; `&&`; `== != <> < <= > >=`; `+ -`; `| ! ^ &` (binary `!` is "or not"); `* / % << >>`;
//! then the prefix operators `- ~ ! +`. Operators of one rank group left to right.
//!
//! Values are 64-bit and wrap as in GNU `as`; shifts are unsigned and a count of 64 or more
//! gives 0; division or remainder by zero divides by 1 (GNU `as` warns and does the same);
//! comparisons give -1 for true and 0 for false, `&&`, `||` and `!` give 1 or 0.
//!
//! Operands: numbers (`12`, `0x1f`, `0b101`, octal `017`), character constants (`'a`: the
//! value of the next character, no escapes, as GNU `as`), symbols, `.` (the current address),
//! numeric local label references (`1b`, `2f`) and parenthesised expressions. A final `@h`
//! (bits 16-31) or `@l` (bits 0-15), or the old `%hi(...)`/`%lo(...)` form, selects half of
//! the value for an instruction operand.
//!
//! The parser recurses once per prefix operator and per parenthesis; both count against
//! [`MAX_NESTING`](super::MAX_NESTING), so no input can run the stack out. Binary operators
//! are reduced with a small operator stack, not recursion.

use super::MAX_NESTING;
use super::error::AsmErrorKind;
use super::text::{Located, PResult, Span, err, ident_len, is_ident_char};

/// The value of an expression; `resolved` is false in the first pass when a symbol whose
/// value is not known yet was used.
#[derive(Clone, Copy, Debug)]
pub(super) struct Value {
    pub value: i64,
    pub resolved: bool,
}

impl Value {
    pub const fn known(value: i64) -> Value {
        Value {
            value,
            resolved: true,
        }
    }

    const UNKNOWN: Value = Value {
        value: 0,
        resolved: false,
    };
}

/// Symbol values for expression evaluation.
pub(super) trait Resolver {
    /// The address of the current statement (`.`), if known in this pass.
    fn location(&self) -> Option<i64>;
    /// `Ok(Some(v))` when known, `Ok(None)` when it may be known later (first pass),
    /// `Err` when it is definitely undefined.
    fn symbol(&self, name: &str) -> Result<Option<i64>, AsmErrorKind>;
    /// The address of local label `number`, the last one defined (`Nb`) or the next (`Nf`).
    fn local_label(&self, number: u32, forward: bool) -> Result<Option<i64>, AsmErrorKind>;
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    LogicalOr,
    LogicalAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Or,
    OrNot,
    Xor,
    And,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
}

impl Op {
    fn rank(self) -> u8 {
        use Op::*;
        match self {
            LogicalOr => 2,
            LogicalAnd => 3,
            Eq | Ne | Lt | Le | Gt | Ge => 4,
            Add | Sub => 5,
            Or | OrNot | Xor | And => 7,
            Mul | Div | Mod | Shl | Shr => 8,
        }
    }

    fn apply(self, a: i64, b: i64) -> i64 {
        use Op::*;
        let truth = |t: bool| if t { -1 } else { 0 };
        let divisor = if b == 0 { 1 } else { b };
        match self {
            LogicalOr => i64::from(a != 0 || b != 0),
            LogicalAnd => i64::from(a != 0 && b != 0),
            Eq => truth(a == b),
            Ne => truth(a != b),
            Lt => truth(a < b),
            Le => truth(a <= b),
            Gt => truth(a > b),
            Ge => truth(a >= b),
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            Or => a | b,
            OrNot => a | !b,
            Xor => a ^ b,
            And => a & b,
            Mul => a.wrapping_mul(b),
            Div => a.wrapping_div(divisor),
            Mod => a.wrapping_rem(divisor),
            Shl | Shr if b as u64 >= 64 => 0,
            Shl => ((a as u64) << b) as i64,
            Shr => ((a as u64) >> b) as i64,
        }
    }
}

/// Binary operators waiting for their right operand, for every open parenthesis level: in
/// one level the ranks on the stack strictly increase, so six entries per level suffice.
/// The stacks live in the parser, not in the recursion, to keep each level's frame small.
const LEVELS: usize = MAX_NESTING as usize + 1;
type OpStack = heapless::Vec<(Op, u32), { 6 * LEVELS }>;
type ValueStack = heapless::Vec<Value, { 7 * LEVELS }>;

struct Parser<'s, 'r> {
    text: &'s str,
    pos: usize,
    base: usize,
    resolver: &'r dyn Resolver,
    /// Prefix operators and parentheses open around the current position.
    depth: u32,
    values: ValueStack,
    ops: OpStack,
}

fn number_error(offset: usize) -> Located {
    Located {
        offset,
        kind: AsmErrorKind::InvalidNumber,
    }
}

impl<'s> Parser<'s, '_> {
    fn offset(&self) -> usize {
        self.base + self.pos
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + ahead).copied()
    }

    fn peek(&self) -> Option<u8> {
        self.peek_at(0)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn rest(&self) -> &'s str {
        self.text.get(self.pos..).unwrap_or("")
    }

    /// Runs `parse` one nesting level deeper; `at` is where the level opens.
    fn nested(&mut self, at: usize, parse: fn(&mut Self) -> PResult<Value>) -> PResult<Value> {
        if self.depth >= MAX_NESTING {
            return err(at, AsmErrorKind::NestingTooDeep { limit: MAX_NESTING });
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    /// The binary operator at the current position, with its length.
    fn binary_op(&self) -> Option<(Op, usize)> {
        use Op::*;
        let two = (self.peek()?, self.peek_at(1).unwrap_or(0));
        Some(match two {
            (b'|', b'|') => (LogicalOr, 2),
            (b'&', b'&') => (LogicalAnd, 2),
            (b'=', b'=') => (Eq, 2),
            (b'!', b'=') | (b'<', b'>') => (Ne, 2),
            (b'<', b'=') => (Le, 2),
            (b'>', b'=') => (Ge, 2),
            (b'<', b'<') => (Shl, 2),
            (b'>', b'>') => (Shr, 2),
            (b'<', _) => (Lt, 1),
            (b'>', _) => (Gt, 1),
            (b'+', _) => (Add, 1),
            (b'-', _) => (Sub, 1),
            (b'|', _) => (Or, 1),
            (b'!', _) => (OrNot, 1),
            (b'^', _) => (Xor, 1),
            (b'&', _) => (And, 1),
            (b'*', _) => (Mul, 1),
            (b'/', _) => (Div, 1),
            (b'%', _) => (Mod, 1),
            _ => return None,
        })
    }

    fn expr(&mut self) -> PResult<Value> {
        let ops_base = self.ops.len();
        let first = self.unary()?;
        let at = self.offset();
        push(&mut self.values, first, at)?;
        loop {
            self.skip_ws();
            let Some((op, len)) = self.binary_op() else {
                break;
            };
            let at = self.offset();
            while self.ops.len() > ops_base
                && self
                    .ops
                    .last()
                    .is_some_and(|(top, _)| top.rank() >= op.rank())
            {
                reduce(&mut self.values, &mut self.ops);
            }
            self.ops
                .push((op, at as u32))
                .map_err(|_| number_error(at))?;
            self.pos += len;
            let rhs = self.unary()?;
            push(&mut self.values, rhs, at)?;
        }
        while self.ops.len() > ops_base {
            reduce(&mut self.values, &mut self.ops);
        }
        Ok(self.values.pop().unwrap_or(Value::UNKNOWN))
    }

    fn unary(&mut self) -> PResult<Value> {
        self.skip_ws();
        let at = self.offset();
        let op = match self.peek() {
            Some(c @ (b'-' | b'+' | b'~' | b'!')) => c,
            _ => return self.primary(),
        };
        self.pos += 1;
        let v = self.nested(at, Self::unary)?;
        let value = match op {
            b'-' => v.value.wrapping_neg(),
            b'~' => !v.value,
            b'!' => i64::from(v.value == 0),
            _ => v.value,
        };
        Ok(Value { value, ..v })
    }

    fn primary(&mut self) -> PResult<Value> {
        self.skip_ws();
        let at = self.offset();
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let v = self.nested(at, Self::expr)?;
                self.skip_ws();
                if self.peek() != Some(b')') {
                    return err(
                        self.offset(),
                        AsmErrorKind::UnexpectedToken { expected: "`)`" },
                    );
                }
                self.pos += 1;
                Ok(v)
            }
            Some(b'\'') => {
                let Some(c) = self.rest().get(1..).and_then(|s| s.chars().next()) else {
                    return err(at, AsmErrorKind::ExpectedExpression);
                };
                self.pos += 1 + c.len_utf8();
                Ok(Value::known(i64::from(u32::from(c))))
            }
            Some(c) if c.is_ascii_digit() => self.number(),
            Some(b'.') if !self.peek_at(1).is_some_and(is_ident_char) => {
                self.pos += 1;
                Ok(self
                    .resolver
                    .location()
                    .map_or(Value::UNKNOWN, Value::known))
            }
            Some(_) if ident_len(self.rest()) > 0 => {
                let len = ident_len(self.rest());
                let name = self.rest().get(..len).unwrap_or("");
                self.pos += len;
                match self.resolver.symbol(name) {
                    Ok(v) => Ok(v.map_or(Value::UNKNOWN, Value::known)),
                    Err(kind) => err(at, kind),
                }
            }
            _ => err(at, AsmErrorKind::ExpectedExpression),
        }
    }

    fn number(&mut self) -> PResult<Value> {
        let at = self.offset();
        let rest = self.rest().as_bytes();
        let decimal = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        // `1b`/`2f`: a numeric local label, when nothing name-like follows the letter.
        if let Some(&suffix @ (b'b' | b'f')) = rest.get(decimal)
            && !rest.get(decimal + 1).is_some_and(|&c| is_ident_char(c))
        {
            let mut number: u32 = 0;
            for &c in rest.iter().take(decimal) {
                number = number
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(u32::from(c - b'0')))
                    .ok_or(number_error(at))?;
            }
            self.pos += decimal + 1;
            return match self.resolver.local_label(number, suffix == b'f') {
                Ok(v) => Ok(v.map_or(Value::UNKNOWN, Value::known)),
                Err(kind) => err(at, kind),
            };
        }
        let (radix, skip) = match rest {
            [b'0', b'x' | b'X', ..] => (16, 2),
            [b'0', b'b' | b'B', ..] => (2, 2),
            [b'0', d, ..] if d.is_ascii_digit() => (8, 1),
            _ => (10, 0),
        };
        let digits = rest
            .iter()
            .skip(skip)
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        if digits == 0 && skip == 2 {
            return err(at, AsmErrorKind::InvalidNumber);
        }
        let mut value: u64 = 0;
        for &c in rest.iter().skip(skip).take(digits) {
            let digit = (c as char).to_digit(radix).ok_or(number_error(at))?;
            value = value
                .checked_mul(u64::from(radix))
                .and_then(|v| v.checked_add(u64::from(digit)))
                .ok_or(number_error(at))?;
        }
        self.pos += skip + digits;
        // Numbers up to 2^64-1 are accepted and read as two's complement, as GNU `as` does.
        Ok(Value::known(value as i64))
    }
}

fn push(values: &mut ValueStack, value: Value, at: usize) -> PResult<()> {
    values.push(value).map_err(|_| number_error(at))
}

fn reduce(values: &mut ValueStack, ops: &mut OpStack) {
    let (Some((op, _)), Some(b), Some(a)) = (ops.pop(), values.pop(), values.pop()) else {
        return;
    };
    // Both pops leave room for one push.
    let _ = values.push(Value {
        value: op.apply(a.value, b.value),
        resolved: a.resolved && b.resolved,
    });
}

/// Which half of the value an instruction operand takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Half {
    Whole,
    High,
    Low,
}

fn parse_whole(span: Span<'_>, resolver: &dyn Resolver) -> PResult<(Value, usize)> {
    let mut parser = Parser {
        text: span.text,
        pos: 0,
        base: span.offset,
        resolver,
        depth: 0,
        values: ValueStack::new(),
        ops: OpStack::new(),
    };
    let value = parser.expr()?;
    parser.skip_ws();
    Ok((value, parser.pos))
}

/// Evaluates a whole operand as an expression, with an optional `@h`/`@l` suffix or
/// `%hi(...)`/`%lo(...)` wrapper (nothing else may follow).
pub(super) fn expression(span: Span<'_>, resolver: &dyn Resolver) -> PResult<Value> {
    let span = span.trim();
    if span.text.is_empty() {
        return err(span.offset, AsmErrorKind::ExpectedExpression);
    }
    let lower = |prefix: &str| {
        span.text
            .get(..prefix.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(prefix))
    };
    let (inner, mut half) = if lower("%hi(") {
        (span.from(3), Half::High)
    } else if lower("%lo(") {
        (span.from(3), Half::Low)
    } else if lower("%pic(") {
        (span.from(4), Half::Whole)
    } else {
        (span, Half::Whole)
    };
    let (mut value, used) = parse_whole(inner, resolver)?;
    let rest = inner.from(used);
    let mut end = used;
    if half == Half::Whole && rest.text.len() >= 2 && rest.text.starts_with('@') {
        let suffix = rest.text.as_bytes().get(1).copied().unwrap_or(0);
        let after = rest.text.as_bytes().get(2).copied();
        if !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'@') {
            match suffix {
                b'h' | b'H' => half = Half::High,
                b'l' | b'L' => half = Half::Low,
                _ => {}
            }
            if half != Half::Whole {
                end += 2;
            }
        }
    }
    let tail = inner.from(end).trim();
    if !tail.text.is_empty() {
        return err(
            tail.offset,
            AsmErrorKind::UnexpectedToken {
                expected: "end of operand",
            },
        );
    }
    // GNU `as` takes the half of the value as a C `int`.
    value.value = match half {
        Half::Whole => value.value,
        Half::High => i64::from((value.value as i32) >> 16),
        Half::Low => value.value & 0xffff,
    };
    Ok(value)
}
