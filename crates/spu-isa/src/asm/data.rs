//! Data directives: integers (`.byte`/`.dc.b` 1, `.short`/`.half`/`.hword`/`.2byte`/`.dc`/`.dc.w`
//! 2, `.int`/`.long`/`.word`/`.4byte`/`.dc.l`/`.dc.a` 4 (SPU's `.word` is 4 bytes),
//! `.quad`/`.8byte` 8, `.octa` 16, big-endian), LEB128 (`.sleb128`, `.uleb128`), IEEE floats
//! (`.float`/`.ffloat`/`.single`/`.dc.s` 4, `.double`/`.dfloat`/`.dc.d` 8 bytes) and strings
//! (`.ascii`, `.asciz`/`.string`/`.string8` with a final zero, `.string16`/`32`/`64` with
//! characters of 2, 4 or 8 bytes).
//!
//! gas truncates an integer to its width (it warns when the value fits neither signed nor
//! unsigned), and so does this assembler: `.byte 256` is 0.

use super::error::AsmErrorKind;
use super::expr::expression;
use super::pass::Pass;
use super::text::{Located, PResult, Span, err, operands};

/// The bytes of a floating-point operand in `width` (4 or 8) bytes, big-endian.
pub(super) fn float_bytes(span: Span<'_>, width: usize) -> PResult<[u8; 8]> {
    let span = span.trim();
    let invalid = Located {
        offset: span.offset,
        kind: AsmErrorKind::InvalidFloat,
    };
    let (negative, digits) = float_text(span.text).ok_or(invalid)?;
    let mut out = [0u8; 8];
    // Parsed at the target width, so the decimal is rounded once, as GNU `as` does.
    if width == 4 {
        let value: f32 = digits.parse().map_err(|_| invalid)?;
        let value = if negative { -value } else { value };
        if let Some(dst) = out.get_mut(..4) {
            dst.copy_from_slice(&value.to_bits().to_be_bytes());
        }
    } else {
        let value: f64 = digits.parse().map_err(|_| invalid)?;
        let value = if negative { -value } else { value };
        out = value.to_bits().to_be_bytes();
    }
    Ok(out)
}

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// Runs `d` if it is a data directive.
    pub fn data_directive(&mut self, d: &str, at: usize, args: Span<'_>) -> Option<PResult<()>> {
        let width = match d {
            "byte" | "dc.b" => 1,
            "short" | "half" | "hword" | "2byte" | "dc" | "dc.w" => 2,
            "int" | "long" | "word" | "4byte" | "dc.l" | "dc.a" => 4,
            "quad" | "8byte" => 8,
            "octa" => 16,
            "sleb128" => return Some(self.leb128(args, true)),
            "uleb128" => return Some(self.leb128(args, false)),
            "float" | "ffloat" | "single" | "dc.s" => return Some(self.floats(args, 4)),
            "double" | "dfloat" | "dc.d" => return Some(self.floats(args, 8)),
            "ascii" => return Some(self.strings(args, 1, false, at)),
            "asciz" | "string" | "string8" => return Some(self.strings(args, 1, true, at)),
            "string16" => return Some(self.strings(args, 2, true, at)),
            "string32" => return Some(self.strings(args, 4, true, at)),
            "string64" => return Some(self.strings(args, 8, true, at)),
            _ => return None,
        };
        Some(self.integers(args, width))
    }

    fn integers(&mut self, args: Span<'_>, width: usize) -> PResult<()> {
        for span in operands(args) {
            let value = expression(span, self)?;
            // Sign-extended to 16 bytes for `.octa`; cut to the width otherwise.
            let mut bytes = [if value.value < 0 { 0xff } else { 0 }; 16];
            if let Some(low) = bytes.get_mut(8..) {
                low.copy_from_slice(&value.value.to_be_bytes());
            }
            self.emit(bytes.get(16 - width..).unwrap_or(&[]), span.trim().offset)?;
        }
        Ok(())
    }

    /// `.sleb128`/`.uleb128`: constants as (signed) LEB128, 7 bits a byte, low bits first.
    fn leb128(&mut self, args: Span<'_>, signed: bool) -> PResult<()> {
        for span in operands(args) {
            let mut value = self.constant(span)?;
            loop {
                let byte = (value & 0x7f) as u8;
                value = if signed {
                    value >> 7
                } else {
                    ((value as u64) >> 7) as i64
                };
                let done = if signed {
                    (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0)
                } else {
                    value == 0
                };
                let byte = if done { byte } else { byte | 0x80 };
                self.emit(&[byte], span.trim().offset)?;
                if done {
                    break;
                }
            }
        }
        Ok(())
    }

    fn floats(&mut self, args: Span<'_>, width: usize) -> PResult<()> {
        for span in operands(args) {
            let bytes = float_bytes(span, width)?;
            self.emit(bytes.get(..width).unwrap_or(&[]), span.trim().offset)?;
        }
        Ok(())
    }

    /// Writes one byte of a string as a character of `width` bytes, big-endian.
    fn character(&mut self, byte: u8, width: usize, at: usize) -> PResult<()> {
        let mut unit = [0u8; 8];
        if let Some(last) = unit.get_mut(width.saturating_sub(1)) {
            *last = byte;
        }
        self.emit(unit.get(..width).unwrap_or(&[]), at)
    }

    fn strings(&mut self, args: Span<'_>, width: usize, terminate: bool, at: usize) -> PResult<()> {
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
                        // gas joins strings written one after the other (`"ab" "c"`).
                        let after = body.get(i + 1..).unwrap_or("");
                        let next = after.trim_start();
                        if next.starts_with('"') {
                            let skip = after.len() - next.len() + 1;
                            for _ in 0..skip {
                                chars.next();
                            }
                            continue;
                        }
                        closed = true;
                        if !next.is_empty() {
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
                    for &b in encoded.as_bytes() {
                        self.character(b, width, at)?;
                    }
                } else {
                    self.character(byte as u8, width, at)?;
                }
            }
            if !closed {
                return span.err(AsmErrorKind::UnterminatedString);
            }
            if terminate {
                self.character(0, width, span.offset)?;
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
    // gas's `atof_generic` takes an exponent mark without digits as no exponent (`1.5e`).
    let body = ["e", "E", "e+", "E+", "e-", "E-"]
        .iter()
        .find_map(|mark| body.strip_suffix(mark))
        .unwrap_or(body);
    if body.is_empty()
        || !body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    Some((negative, body))
}
