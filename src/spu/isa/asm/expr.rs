//! Operand text scanning: registers and expressions.
//!
//! Expressions: `expr := unary (('+'|'-') unary | '*' unary)*`, unary := `-`/`+`/`~` unary |
//! primary, primary := number | label | `.` | `(` expr `)`; an optional `@h` (bits 16-31) or
//! `@l` (bits 0-15) suffix after the whole expression. Numbers follow GNU `as`: `0x`/`0X` hex,
//! `0b`/`0B` binary, a leading `0` octal, otherwise decimal. `*` binds tighter than `+`/`-`.
//!
//! The parser recurses once per prefix operator and per parenthesis; both count against
//! [`MAX_NESTING`](super::MAX_NESTING), so no input can run the stack out.

use super::MAX_NESTING;
use super::error::{AsmErrorKind, Name};
use crate::spu::isa::opcodes::OperandKind;

/// An error at a byte offset of the current line.
#[derive(Clone, Copy, Debug)]
pub(super) struct Located {
    pub offset: usize,
    pub kind: AsmErrorKind,
}

pub(super) type PResult<T> = Result<T, Located>;

pub(super) fn err<T>(offset: usize, kind: AsmErrorKind) -> PResult<T> {
    Err(Located { offset, kind })
}

/// A piece of a line with the byte offset where it starts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span<'s> {
    pub text: &'s str,
    pub offset: usize,
}

impl<'s> Span<'s> {
    /// Removes leading and trailing whitespace, keeping the offset right.
    pub fn trim(self) -> Span<'s> {
        let start = self.text.len() - self.text.trim_start().len();
        Span {
            text: self.text.trim(),
            offset: self.offset + start,
        }
    }
}

/// The value of an expression; `resolved` is false in the first pass when a label was used.
#[derive(Clone, Copy, Debug)]
pub(super) struct Value {
    pub value: i64,
    pub resolved: bool,
}

/// Label values for expression evaluation.
pub(super) trait Resolver {
    /// The address of the current statement (`.`), if known in this pass.
    fn location(&self) -> Option<i64>;
    /// `Ok(Some(v))` when known, `Ok(None)` when it may be defined later (first pass),
    /// `Err` when it is definitely undefined.
    fn label(&self, name: &str) -> Result<Option<i64>, AsmErrorKind>;
}

pub(super) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'.'
}

pub(super) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$'
}

/// Length of the identifier at the start of `text` (0 if none).
pub(super) fn ident_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(&c) if is_ident_start(c) => bytes.iter().take_while(|&&c| is_ident_char(c)).count(),
        _ => 0,
    }
}

struct Lexer<'s, 'r> {
    text: &'s str,
    pos: usize,
    base: usize,
    resolver: &'r dyn Resolver,
    /// Prefix operators and parentheses open around the current position.
    depth: u32,
}

impl<'s> Lexer<'s, '_> {
    fn offset(&self) -> usize {
        self.base + self.pos
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn rest(&self) -> &'s str {
        self.text.get(self.pos..).unwrap_or("")
    }

    /// Runs `parse` one nesting level deeper; `at` is where the level opens (a prefix
    /// operator or `(`), the position reported when the level is one too many.
    fn nested(&mut self, at: usize, parse: fn(&mut Self) -> PResult<Value>) -> PResult<Value> {
        if self.depth >= MAX_NESTING {
            return err(at, AsmErrorKind::NestingTooDeep { limit: MAX_NESTING });
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    fn expr(&mut self) -> PResult<Value> {
        let mut acc = self.term()?;
        loop {
            self.skip_ws();
            let op = match self.peek() {
                Some(c @ (b'+' | b'-')) => c,
                _ => return Ok(acc),
            };
            let at = self.offset();
            self.pos += 1;
            let rhs = self.term()?;
            let value = if op == b'+' {
                acc.value.checked_add(rhs.value)
            } else {
                acc.value.checked_sub(rhs.value)
            };
            acc = Value {
                value: value.ok_or(Located {
                    offset: at,
                    kind: AsmErrorKind::InvalidNumber,
                })?,
                resolved: acc.resolved && rhs.resolved,
            };
        }
    }

    fn term(&mut self) -> PResult<Value> {
        let mut acc = self.unary()?;
        loop {
            self.skip_ws();
            if self.peek() != Some(b'*') {
                return Ok(acc);
            }
            let at = self.offset();
            self.pos += 1;
            let rhs = self.unary()?;
            acc = Value {
                value: acc.value.checked_mul(rhs.value).ok_or(Located {
                    offset: at,
                    kind: AsmErrorKind::InvalidNumber,
                })?,
                resolved: acc.resolved && rhs.resolved,
            };
        }
    }

    fn unary(&mut self) -> PResult<Value> {
        self.skip_ws();
        let at = self.offset();
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                let v = self.nested(at, Self::unary)?;
                let value = v.value.checked_neg().ok_or(Located {
                    offset: at,
                    kind: AsmErrorKind::InvalidNumber,
                })?;
                Ok(Value { value, ..v })
            }
            Some(b'+') => {
                self.pos += 1;
                self.nested(at, Self::unary)
            }
            Some(b'~') => {
                self.pos += 1;
                let v = self.nested(at, Self::unary)?;
                Ok(Value {
                    value: !v.value,
                    ..v
                })
            }
            _ => self.primary(),
        }
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
            Some(c) if c.is_ascii_digit() => self.number(),
            Some(c) if is_ident_start(c) => {
                let len = ident_len(self.rest());
                let name = self.rest().get(..len).unwrap_or("");
                self.pos += len;
                if name == "." {
                    return Ok(match self.resolver.location() {
                        Some(value) => Value {
                            value,
                            resolved: true,
                        },
                        None => Value {
                            value: 0,
                            resolved: false,
                        },
                    });
                }
                match self.resolver.label(name) {
                    Ok(Some(value)) => Ok(Value {
                        value,
                        resolved: true,
                    }),
                    Ok(None) => Ok(Value {
                        value: 0,
                        resolved: false,
                    }),
                    Err(kind) => err(at, kind),
                }
            }
            _ => err(at, AsmErrorKind::ExpectedExpression),
        }
    }

    fn number(&mut self) -> PResult<Value> {
        let at = self.offset();
        let rest = self.rest().as_bytes();
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
        let mut value: i64 = 0;
        for &c in rest.iter().skip(skip).take(digits) {
            let digit = (c as char).to_digit(radix).ok_or(Located {
                offset: at,
                kind: AsmErrorKind::InvalidNumber,
            })?;
            value = value
                .checked_mul(i64::from(radix))
                .and_then(|v| v.checked_add(i64::from(digit)))
                .ok_or(Located {
                    offset: at,
                    kind: AsmErrorKind::InvalidNumber,
                })?;
        }
        self.pos += skip + digits;
        Ok(Value {
            value,
            resolved: true,
        })
    }
}

/// Evaluates a whole operand as an expression (nothing may follow it).
pub(super) fn expression(span: Span<'_>, resolver: &dyn Resolver) -> PResult<Value> {
    let span = span.trim();
    if span.text.is_empty() {
        return err(span.offset, AsmErrorKind::ExpectedExpression);
    }
    let mut lexer = Lexer {
        text: span.text,
        pos: 0,
        base: span.offset,
        resolver,
        depth: 0,
    };
    let mut v = lexer.expr()?;
    lexer.skip_ws();
    let rest = lexer.rest();
    if rest.eq_ignore_ascii_case("@h") {
        v.value >>= 16;
        lexer.pos += 2;
    } else if rest.eq_ignore_ascii_case("@l") {
        v.value &= 0xffff;
        lexer.pos += 2;
    }
    lexer.skip_ws();
    if lexer.peek().is_some() {
        return err(
            lexer.offset(),
            AsmErrorKind::UnexpectedToken {
                expected: "end of operand",
            },
        );
    }
    Ok(v)
}

/// Channel names known to GNU `as` (`tc-spu.c`).
const CHANNELS: [(&str, u8); 28] = [
    ("SPU_RdEventStat", 0),
    ("SPU_WrEventMask", 1),
    ("SPU_WrEventAck", 2),
    ("SPU_RdSigNotify1", 3),
    ("SPU_RdSigNotify2", 4),
    ("SPU_WrDec", 7),
    ("SPU_RdDec", 8),
    ("MFC_WrMSSyncReq", 9),
    ("SPU_RdEventMask", 11),
    ("MFC_RdTagMask", 12),
    ("SPU_RdMachStat", 13),
    ("SPU_WrSRR0", 14),
    ("SPU_RdSRR0", 15),
    ("MFC_LSA", 16),
    ("MFC_EAH", 17),
    ("MFC_EAL", 18),
    ("MFC_Size", 19),
    ("MFC_TagID", 20),
    ("MFC_Cmd", 21),
    ("MFC_WrTagMask", 22),
    ("MFC_WrTagUpdate", 23),
    ("MFC_RdTagStat", 24),
    ("MFC_RdListStallStat", 25),
    ("MFC_WrListStallAck", 26),
    ("MFC_RdAtomicStat", 27),
    ("SPU_WrOutMbox", 28),
    ("SPU_RdInMbox", 29),
    ("SPU_WrOutIntrMbox", 30),
];

/// General register names (`$lr`, `$sp`, `$rp`, `$fp`), as in GNU `as`.
const REGISTER_NAMES: [(&str, u8); 4] = [("lr", 0), ("sp", 1), ("rp", 0), ("fp", 127)];

/// Parses a register operand of the given kind (`Rt`..`Rc`, `Spr`, `Channel`).
///
/// Accepted: optional `$`, then a decimal number 0..=127, or a name (`lr`, `sp`, `rp`, `fp`
/// for general registers; `chN`/channel names for channels; `spN` for SPRs).
pub(super) fn register(span: Span<'_>, kind: OperandKind) -> PResult<u8> {
    let span = span.trim();
    let mut text = span.text;
    let mut offset = span.offset;
    if let Some(stripped) = text.strip_prefix('$') {
        text = stripped;
        offset += 1;
    }
    let prefix = match kind {
        OperandKind::Channel => Some("ch"),
        OperandKind::Spr => Some("sp"),
        _ => None,
    };
    if let Some(prefix) = prefix
        && let Some(head) = text.get(..2)
        && head.eq_ignore_ascii_case(prefix)
        && text.as_bytes().get(2).is_some_and(u8::is_ascii_digit)
    {
        text = text.get(2..).unwrap_or("");
        offset += 2;
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (value, used) = if digits > 0 {
        let mut value: u32 = 0;
        for c in text.bytes().take(digits) {
            value = value.saturating_mul(10).saturating_add(u32::from(c - b'0'));
        }
        (value, digits)
    } else {
        let len = ident_len(text);
        let name = text.get(..len).unwrap_or("");
        let found = if kind == OperandKind::Channel {
            CHANNELS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))
        } else if kind == OperandKind::Spr {
            None
        } else {
            REGISTER_NAMES
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        match found {
            Some(&(_, number)) => (u32::from(number), len),
            None => return err(span.offset, AsmErrorKind::ExpectedRegister),
        }
    };
    if let Some(rest) = text.get(used..)
        && !rest.is_empty()
    {
        return err(
            offset + used,
            AsmErrorKind::UnexpectedToken {
                expected: "end of register operand",
            },
        );
    }
    if value > 127 {
        return err(span.offset, AsmErrorKind::RegisterOutOfRange { value });
    }
    Ok(value as u8)
}

/// Splits `offset($ra)` into its offset expression (may be empty) and register spans.
pub(super) fn memory_operand(span: Span<'_>) -> PResult<(Span<'_>, Span<'_>)> {
    let span = span.trim();
    let Some(open) = span.text.rfind('(') else {
        return err(
            span.offset + span.text.len(),
            AsmErrorKind::UnexpectedToken {
                expected: "`(` of `offset($ra)`",
            },
        );
    };
    let inner = span.text.get(open + 1..).unwrap_or("");
    let Some(close) = inner.find(')') else {
        return err(
            span.offset + span.text.len(),
            AsmErrorKind::UnexpectedToken { expected: "`)`" },
        );
    };
    let after = inner.get(close + 1..).unwrap_or("");
    if !after.trim().is_empty() {
        return err(
            span.offset + open + 1 + close + 1,
            AsmErrorKind::UnexpectedToken {
                expected: "end of operand",
            },
        );
    }
    Ok((
        Span {
            text: span.text.get(..open).unwrap_or(""),
            offset: span.offset,
        },
        Span {
            text: inner.get(..close).unwrap_or(""),
            offset: span.offset + open + 1,
        },
    ))
}

/// A name copied for an error.
pub(super) fn name(text: &str) -> Name {
    Name::new(text)
}
