//! Expressions with GNU `as` operators and precedence (`gas/expr.c` `op_rank`), lowest first:
//! `||`; `&&`; `== != <> < <= > >=`; `+ -`; `| ! ^ &` (binary `!` is "or not"); `* / % << >>`;
//! then the prefix operators `- ~ ! +`. Operators of one rank group left to right. Values
//! and gas's section rules are in [`value`](super::value).
//!
//! Operands: numbers (`12`, `0x1f`, `0b101`, octal `017`), character constants (`'a'` or
//! `'a`, with gas's escapes `'\n'`; see [`char_constant`]), symbols (a name may start with
//! `$`, as in gas), `.` (the current address), numeric local label references (`1b`, `2f`)
//! and parenthesised expressions. A final `@h` (bits 16-31) or `@l` (bits 0-15), or the old
//! `%hi(...)`/`%lo(...)` form, selects half of the value for an instruction operand.
//!
//! The parser does not recurse: parentheses and prefix operators are entries of an explicit
//! stack, so the stack the assembler needs on bare metal does not grow with the input.
//! Their nesting is bounded by [`MAX_NESTING`]; the stacks are sized for
//! the deepest pending operators that nesting allows (six ranks per level), so any
//! expression within the limit is read.

use super::error::AsmErrorKind;
use super::text::{Located, PResult, Span, char_constant, err, ident_len, is_ident_char};
pub(super) use super::value::Value;
use super::value::{Op, prefix};

/// Symbol values for expression evaluation.
pub(super) trait Resolver {
    /// `.`: the address of the current statement, in its section.
    fn location(&self) -> Value;
    /// The value of `name`; [`Value::UNKNOWN`] when it may be defined later (first pass),
    /// `Err` when it is definitely undefined.
    fn symbol(&self, name: &str) -> Result<Value, AsmErrorKind>;
    /// The address of local label `number`, the last one defined (`Nb`) or the next (`Nf`).
    fn local_label(&self, number: u32, forward: bool) -> Result<Value, AsmErrorKind>;
}

/// A parenthesis, prefix operator or binary operator waiting for its operand.
#[derive(Clone, Copy, Debug)]
enum Pending {
    Open,
    Prefix(u8),
    Binary(Op),
}

/// Deepest nesting of prefix operators (`-`, `+`, `~`, `!`) and parentheses in one
/// expression.
///
/// gas has no limit. The parser keeps its levels on an explicit stack rather than recursing
/// (the assembler also runs on bare metal, where the stack has no guard page), sized for
/// this many levels with every operator rank pending in each: about 16 KiB while an
/// expression is read. Real code nests a handful of levels; the deepest in the public SPU
/// sources measured is newlib's `spu-mcount.S`, whose recursive macro builds a register
/// number 74 parentheses deep. Deeper input is an [`AsmErrorKind::NestingTooDeep`] error.
pub const MAX_NESTING: u32 = 128;

/// Levels of nesting, plus the top level.
const LEVELS: usize = MAX_NESTING as usize + 1;
/// Within one level the ranks of pending binary operators strictly increase, so at most six
/// wait (ranks 2, 3, 4, 5, 7, 8), each with its left operand, besides the level's opener.
const PENDING: usize = 7 * LEVELS;
const VALUES: usize = 6 * LEVELS + 1;

/// The parser's stacks, kept in parallel arrays so an entry takes 5 bytes (pending) or 10
/// (value) rather than 8 or 16: about 12 KiB in all, on the stack while an expression is read.
struct Stacks {
    pending: heapless::Vec<Pending, PENDING>,
    pending_at: heapless::Vec<u32, PENDING>,
    numbers: heapless::Vec<i64, VALUES>,
    flags: heapless::Vec<u16, VALUES>,
}

impl Stacks {
    const fn new() -> Self {
        Stacks {
            pending: heapless::Vec::new(),
            pending_at: heapless::Vec::new(),
            numbers: heapless::Vec::new(),
            flags: heapless::Vec::new(),
        }
    }

    fn push_pending(&mut self, entry: Pending, at: u32) -> Result<(), ()> {
        self.pending.push(entry).map_err(|_| ())?;
        self.pending_at.push(at).map_err(|_| ())
    }

    fn last_pending(&self) -> Option<(Pending, u32)> {
        Some((*self.pending.last()?, *self.pending_at.last()?))
    }

    fn pop_pending(&mut self) {
        self.pending.pop();
        self.pending_at.pop();
    }

    fn push_value(&mut self, value: Value) -> Result<(), ()> {
        let (number, flags) = value.pack();
        self.numbers.push(number).map_err(|_| ())?;
        self.flags.push(flags).map_err(|_| ())
    }

    fn pop_value(&mut self) -> Option<Value> {
        Some(Value::unpack(self.numbers.pop()?, self.flags.pop()?))
    }
}

struct Parser<'s, 'r> {
    text: &'s str,
    pos: usize,
    base: usize,
    resolver: &'r dyn Resolver,
    /// Parentheses and prefix operators open.
    depth: u32,
    stacks: Stacks,
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

    /// Opens a parenthesis or prefix operator at `at`, one level deeper.
    fn open(&mut self, entry: Pending, at: usize) -> PResult<()> {
        if self.depth >= MAX_NESTING {
            return err(at, AsmErrorKind::NestingTooDeep { limit: MAX_NESTING });
        }
        self.depth += 1;
        self.stacks
            .push_pending(entry, at as u32)
            .map_err(|()| number_error(at))
    }

    fn push_value(&mut self, value: Value, at: usize) -> PResult<()> {
        self.stacks.push_value(value).map_err(|()| number_error(at))
    }

    /// Applies the binary operator on top of the stack to the two values on top.
    fn reduce(&mut self, op: Op, at: u32) -> PResult<()> {
        let (Some(b), Some(a)) = (self.stacks.pop_value(), self.stacks.pop_value()) else {
            return Ok(());
        };
        let value = op.combine(a, b).map_err(|kind| Located {
            offset: at as usize,
            kind,
        })?;
        self.push_value(value, at as usize)
    }

    /// Applies the prefix operators waiting right above the value just read.
    fn close_prefixes(&mut self) -> PResult<()> {
        while let Some((Pending::Prefix(op), at)) = self.stacks.last_pending() {
            self.stacks.pop_pending();
            self.depth -= 1;
            let Some(v) = self.stacks.pop_value() else {
                return Ok(());
            };
            let value = prefix(op, v).map_err(|kind| Located {
                offset: at as usize,
                kind,
            })?;
            self.push_value(value, at as usize)?;
        }
        Ok(())
    }

    /// Reduces the binary operators of the innermost level that bind at least `rank`.
    fn reduce_while(&mut self, rank: u8) -> PResult<()> {
        while let Some((Pending::Binary(op), at)) = self.stacks.last_pending() {
            if op.rank() < rank {
                break;
            }
            self.stacks.pop_pending();
            self.reduce(op, at)?;
        }
        Ok(())
    }

    /// Whether a parenthesis is open (a `)` closes it rather than ending the expression).
    fn paren_open(&self) -> bool {
        self.stacks
            .pending
            .iter()
            .any(|p| matches!(p, Pending::Open))
    }

    fn expr(&mut self) -> PResult<Value> {
        loop {
            // An operand: prefix operators and parentheses open levels until a primary.
            self.skip_ws();
            let at = self.offset();
            match self.peek() {
                Some(c @ (b'-' | b'+' | b'~' | b'!')) => {
                    self.pos += 1;
                    self.open(Pending::Prefix(c), at)?;
                    continue;
                }
                Some(b'(') => {
                    self.pos += 1;
                    self.open(Pending::Open, at)?;
                    continue;
                }
                // gas takes a missing right operand for 0 (it warns): `.word 1+` is 1.
                None if matches!(self.stacks.last_pending(), Some((Pending::Binary(_), _))) => {
                    self.push_value(Value::known(0), at)?;
                    self.reduce_while(0)?;
                    return Ok(self.stacks.pop_value().unwrap_or(Value::UNKNOWN));
                }
                _ => {}
            }
            let value = self.primary()?;
            self.push_value(value, at)?;
            self.close_prefixes()?;
            // Operators: `)` closes a level (its value is an operand again), a binary
            // operator waits for its right operand, anything else ends the expression.
            loop {
                self.skip_ws();
                if self.peek() == Some(b')') && self.paren_open() {
                    self.reduce_while(0)?;
                    self.stacks.pop_pending();
                    self.depth -= 1;
                    self.pos += 1;
                    self.close_prefixes()?;
                    continue;
                }
                let Some((op, len)) = self.binary_op() else {
                    if self.paren_open() {
                        return err(
                            self.offset(),
                            AsmErrorKind::UnexpectedToken { expected: "`)`" },
                        );
                    }
                    self.reduce_while(0)?;
                    return Ok(self.stacks.pop_value().unwrap_or(Value::UNKNOWN));
                };
                let at = self.offset();
                self.reduce_while(op.rank())?;
                self.stacks
                    .push_pending(Pending::Binary(op), at as u32)
                    .map_err(|()| number_error(at))?;
                self.pos += len;
                break;
            }
        }
    }

    fn primary(&mut self) -> PResult<Value> {
        self.skip_ws();
        let at = self.offset();
        match self.peek() {
            Some(b'\'') => {
                let Some((value, len)) = char_constant(self.text.as_bytes(), self.pos) else {
                    return err(at, AsmErrorKind::ExpectedExpression);
                };
                self.pos += len;
                Ok(Value::known(i64::from(value)))
            }
            Some(c) if c.is_ascii_digit() => self.number(),
            Some(b'.') if !self.peek_at(1).is_some_and(is_ident_char) => {
                self.pos += 1;
                Ok(self.resolver.location())
            }
            Some(_) if ident_len(self.rest()) > 0 => {
                let len = ident_len(self.rest());
                let name = self.rest().get(..len).unwrap_or("");
                self.pos += len;
                self.resolver
                    .symbol(name)
                    .map_err(|kind| Located { offset: at, kind })
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
            return self
                .resolver
                .local_label(number, suffix == b'f')
                .map_err(|kind| Located { offset: at, kind });
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

/// Which half of the value an instruction operand takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Half {
    Whole,
    High,
    Low,
}

/// Reads the longest expression at the start of `span`: its value and the bytes it took
/// (trailing blanks included), as gas's `expression` reads one where an operand starts.
// Not inlined: its stacks (12 KiB) would take room in the frame of every caller it were
// inlined into, all on the stack at once on bare metal.
#[inline(never)]
pub(super) fn parse_whole(span: Span<'_>, resolver: &dyn Resolver) -> PResult<(Value, usize)> {
    let mut parser = Parser {
        text: span.text,
        pos: 0,
        base: span.offset,
        resolver,
        depth: 0,
        stacks: Stacks::new(),
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
