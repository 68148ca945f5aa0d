//! Room in a section, as gas's `s_space`, `s_fill`, `s_float_space` and `s_org` make it:
//! `.space`/`.skip`/`.zero` (bytes), `.ds`, `.ds.b`/`.w`/`.l`/`.s`/`.d` and `.dcb.b`/`.w`/`.l`
//! (units of 1, 2, 4 or 8 bytes, filled with a value of that width), `.dcb.s`/`.dcb.d`
//! (repeated floats), `.fill repeat[, size[, value]]` and `.org`. gas truncates a fill value
//! to its width (with a warning) and ignores a negative count (with a warning); so does this
//! assembler.

use super::error::AsmErrorKind;
use super::expr::expression;
use super::pass::Pass;
use super::text::{PResult, Span, operands};

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// Runs `d` if it is a space directive.
    pub fn space_directive(&mut self, d: &str, at: usize, args: Span<'_>) -> Option<PResult<()>> {
        let unit = match d {
            "space" | "skip" | "zero" | "ds.b" | "dcb.b" => 1,
            "ds" | "ds.w" | "dcb" | "dcb.w" => 2,
            "ds.l" | "ds.s" | "dcb.l" => 4,
            "ds.d" => 8,
            "dcb.s" => return Some(self.float_space(args, 4)),
            "dcb.d" => return Some(self.float_space(args, 8)),
            "fill" => return Some(self.fill_directive(at, args)),
            "org" => return Some(self.org_directive(args)),
            _ => return None,
        };
        Some(self.space(unit, at, args))
    }

    /// The count of a space directive: a constant; a negative one is taken as 0.
    fn count(&self, span: Span<'_>) -> PResult<u64> {
        let n = self.constant(span)?;
        let max = self.capacity as i64;
        if n > max {
            return span.err(AsmErrorKind::ImmediateOutOfRange {
                operand: 1,
                value: n,
                min: 0,
                max,
            });
        }
        Ok(n.max(0) as u64)
    }

    fn space(&mut self, unit: usize, at: usize, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(count) = list.next() else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let fill = list.next();
        if let Some(extra) = list.next() {
            return extra.err(AsmErrorKind::UnexpectedToken {
                expected: "end of statement",
            });
        }
        let n = self.count(count)?;
        let value = match fill {
            Some(f) => self.constant(f)?,
            None => 0,
        };
        if unit == 1 {
            return self.fill(n, value as u8, at);
        }
        let be = value.to_be_bytes();
        let bytes = be.get(8 - unit..).unwrap_or(&[]);
        for _ in 0..n {
            self.emit(bytes, at)?;
        }
        Ok(())
    }

    fn float_space(&mut self, args: Span<'_>, width: usize) -> PResult<()> {
        let mut list = operands(args);
        let Some(count) = list.next() else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let n = self.count(count)?;
        let value = match list.next() {
            Some(span) => super::data::float_bytes(span, width)?,
            None => [0; 8],
        };
        for _ in 0..n {
            self.emit(value.get(..width).unwrap_or(&[]), args.offset)?;
        }
        Ok(())
    }

    /// `.fill repeat[, size[, value]]`: GNU `as` writes `value` big-endian in the first
    /// `min(size, 4)` bytes of each `size`-byte unit (size at most 8) and zeros after.
    fn fill_directive(&mut self, at: usize, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(repeat) = list.next() else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let repeat_value = self.count(repeat)?;
        let size = match list.next() {
            // gas clamps a size past 8 to 8 (with a warning).
            Some(span) => self.constant(span)?.clamp(0, 8) as usize,
            None => 1,
        };
        let value = match list.next() {
            Some(span) => self.constant(span)? as u32,
            None => 0,
        };
        if repeat_value.saturating_mul(size as u64) > self.capacity as u64 {
            return repeat.err(AsmErrorKind::ImmediateOutOfRange {
                operand: 1,
                value: repeat_value as i64,
                min: 0,
                max: (self.capacity / size.max(1)) as i64,
            });
        }
        let mut unit = [0u8; 8];
        let width = size.min(4);
        let be = value.to_be_bytes();
        if let (Some(dst), Some(src)) = (unit.get_mut(..width), be.get(4 - width..)) {
            dst.copy_from_slice(src);
        }
        for _ in 0..repeat_value {
            self.emit(unit.get(..size).unwrap_or(&[]), at)?;
        }
        Ok(())
    }

    /// `.org target[, fill]`.
    fn org_directive(&mut self, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let target = list.next().unwrap_or(args);
        let value = expression(target, self)?;
        let fill = match list.next() {
            Some(span) => Some(self.constant(span)? as u8),
            None => None,
        };
        self.org(value, target, fill)
    }
}
