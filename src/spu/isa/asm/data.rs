//! Data directives: integers (`.byte` 1, `.short`/`.half`/`.hword` 2, `.int`/`.long`/`.word`
//! 4, `.quad` 8 bytes, big-endian), IEEE floats (`.float`/`.ffloat`/`.single` 4,
//! `.double`/`.dfloat` 8 bytes) and strings (`.ascii`, `.asciz`/`.string` with a final zero).

use super::error::AsmErrorKind;
use super::expr::expression;
use super::pass::Pass;
use super::text::{PResult, Span, err, operands};

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// Runs `d` if it is a data directive.
    pub fn data_directive(&mut self, d: &str, at: usize, args: Span<'_>) -> Option<PResult<()>> {
        let width = match d {
            ".byte" => 1,
            ".short" | ".half" | ".hword" => 2,
            ".int" | ".long" | ".word" => 4,
            ".quad" => 8,
            ".float" | ".ffloat" | ".single" => return Some(self.floats(args, 4)),
            ".double" | ".dfloat" => return Some(self.floats(args, 8)),
            ".ascii" => return Some(self.strings(args, false, at)),
            ".asciz" | ".string" => return Some(self.strings(args, true, at)),
            _ => return None,
        };
        Some(self.integers(args, width))
    }

    fn integers(&mut self, args: Span<'_>, width: usize) -> PResult<()> {
        // GNU `as` accepts a value that fits either signed or unsigned in the width.
        let (min, max) = match width {
            8 => (i64::MIN, i64::MAX),
            w => (-(1i64 << (w * 8 - 1)), (1i64 << (w * 8)) - 1),
        };
        for (i, span) in operands(args).enumerate() {
            let value = expression(span, self)?;
            if value.resolved && !(min..=max).contains(&value.value) {
                return span.err(AsmErrorKind::ImmediateOutOfRange {
                    operand: u8::try_from(i + 1).unwrap_or(u8::MAX),
                    value: value.value,
                    min,
                    max,
                });
            }
            let bytes = value.value.to_be_bytes();
            self.emit(bytes.get(8 - width..).unwrap_or(&[]), span.trim().offset)?;
        }
        Ok(())
    }

    fn floats(&mut self, args: Span<'_>, width: usize) -> PResult<()> {
        for span in operands(args) {
            let span = span.trim();
            let invalid = super::text::Located {
                offset: span.offset,
                kind: AsmErrorKind::InvalidFloat,
            };
            let (negative, digits) = float_text(span.text).ok_or(invalid)?;
            // Parsed at the target width, so the decimal is rounded once, as GNU `as` does.
            if width == 4 {
                let value: f32 = digits.parse().map_err(|_| invalid)?;
                let value = if negative { -value } else { value };
                self.emit(&value.to_bits().to_be_bytes(), span.offset)?;
            } else {
                let value: f64 = digits.parse().map_err(|_| invalid)?;
                let value = if negative { -value } else { value };
                self.emit(&value.to_bits().to_be_bytes(), span.offset)?;
            }
        }
        Ok(())
    }

    fn strings(&mut self, args: Span<'_>, terminate: bool, at: usize) -> PResult<()> {
        let mut any = false;
        for span in operands(args) {
            let span = span.trim();
            let Some(body) = span.text.strip_prefix('"') else {
                return span.err(AsmErrorKind::UnexpectedToken {
                    expected: "a string in `\"`",
                });
            };
            any = true;
            let mut chars = body.char_indices().peekable();
            let mut closed = false;
            while let Some((i, c)) = chars.next() {
                let at = span.offset + 1 + i;
                let byte: u32 = match c {
                    '"' => {
                        closed = true;
                        if !body.get(i + 1..).unwrap_or("").trim().is_empty() {
                            return err(
                                at + 1,
                                AsmErrorKind::UnexpectedToken {
                                    expected: "`,` or end of statement",
                                },
                            );
                        }
                        break;
                    }
                    '\\' => {
                        let Some((_, e)) = chars.next() else {
                            return err(at, AsmErrorKind::UnterminatedString);
                        };
                        match e {
                            'b' => 8,
                            'f' => 12,
                            'n' => 10,
                            'r' => 13,
                            't' => 9,
                            'v' => 11,
                            'x' | 'X' => {
                                let mut v: u32 = 0;
                                while let Some(&(_, h)) = chars.peek() {
                                    let Some(d) = h.to_digit(16) else { break };
                                    v = (v << 4 | d) & 0xff;
                                    chars.next();
                                }
                                v
                            }
                            '0'..='7' => {
                                let mut v = e.to_digit(8).unwrap_or(0);
                                for _ in 0..2 {
                                    let Some(&(_, o)) = chars.peek() else { break };
                                    let Some(d) = o.to_digit(8) else { break };
                                    v = v * 8 + d;
                                    chars.next();
                                }
                                v & 0xff
                            }
                            other => u32::from(other),
                        }
                    }
                    other => u32::from(other),
                };
                if byte > 0xff {
                    // Characters beyond one byte are written as their UTF-8 bytes.
                    let mut buf = [0u8; 4];
                    let encoded = char::from_u32(byte).unwrap_or(' ').encode_utf8(&mut buf);
                    self.emit(encoded.as_bytes(), at)?;
                } else {
                    self.emit(&[byte as u8], at)?;
                }
            }
            if !closed {
                return span.err(AsmErrorKind::UnterminatedString);
            }
            if terminate {
                self.emit(&[0], span.offset)?;
            }
        }
        if !any {
            return err(at, AsmErrorKind::ExpectedExpression);
        }
        Ok(())
    }
}

/// A float as GNU `as` reads it: decimal with optional exponent, optionally prefixed by
/// `0f`/`0d`/`0e` (the "this is a float" marker), or an integer.
fn float_text(text: &str) -> Option<(bool, &str)> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let body = match body.as_bytes() {
        [
            b'0',
            b'f' | b'F' | b'd' | b'D' | b'e' | b'E' | b'r' | b'R',
            ..,
        ] => body.get(2..)?,
        _ => body,
    };
    let (negative, body) = match body.strip_prefix('-') {
        Some(rest) => (!negative, rest),
        None => (negative, body.strip_prefix('+').unwrap_or(body)),
    };
    if body.is_empty()
        || !body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    Some((negative, body))
}
