//! Directives: section switches, alignment, data words, fills and `.global`.

use super::expr::{PResult, Resolver, Span, err, expression, ident_len, name};
use super::symbols::Section;
use super::{AsmErrorKind, LNOP, MAX_ALIGN_EXPONENT, NOP, Pass, split_operands};
use crate::spu::isa::opcodes::OperandKind;

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    fn constant(&self, span: Span<'_>) -> PResult<i64> {
        let value = expression(span, &Constant)?;
        if !value.resolved {
            return err(span.trim().offset, AsmErrorKind::ExpectedConstant);
        }
        Ok(value.value)
    }

    pub(super) fn directive(&mut self, directive: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let lower = |s: &str| directive.eq_ignore_ascii_case(s);
        let mut spans = heapless::Vec::<Span<'_>, 8>::new();
        if lower(".text") || lower(".data") {
            expect_no_operands(args)?;
            self.section = if lower(".text") {
                Section::Text
            } else {
                Section::Data
            };
            Ok(())
        } else if lower(".align") || lower(".p2align") || lower(".balign") {
            split_operands(args, &mut spans)?;
            let [arg] = spans.as_slice() else {
                return err(
                    at,
                    wrong_count(directive, spans.len(), &[&[OperandKind::U7]]),
                );
            };
            let value = self.constant(*arg)?;
            let bytes = if lower(".balign") {
                if value <= 0 || value > (1 << MAX_ALIGN_EXPONENT) || value & (value - 1) != 0 {
                    return err(arg.trim().offset, AsmErrorKind::InvalidAlignment { value });
                }
                value as usize
            } else {
                if !(0..=MAX_ALIGN_EXPONENT).contains(&value) {
                    return err(arg.trim().offset, AsmErrorKind::InvalidAlignment { value });
                }
                1usize << value
            };
            self.pad_to(bytes, at)
        } else if lower(".word") || lower(".long") || lower(".int") {
            split_operands(args, &mut spans)?;
            if spans.is_empty() {
                return err(args.trim().offset, AsmErrorKind::ExpectedExpression);
            }
            for span in spans.iter() {
                let value = expression(*span, self)?;
                if value.resolved && !(-(1i64 << 31)..=0xffff_ffff).contains(&value.value) {
                    return err(
                        span.trim().offset,
                        AsmErrorKind::ImmediateOutOfRange {
                            value: value.value,
                            min: -(1i64 << 31),
                            max: 0xffff_ffff,
                        },
                    );
                }
                self.emit(&(value.value as u32).to_be_bytes(), span.trim().offset)?;
            }
            Ok(())
        } else if lower(".space") || lower(".skip") || lower(".zero") {
            split_operands(args, &mut spans)?;
            let (count, fill) = match spans.as_slice() {
                [count] => (*count, None),
                [count, fill] if !lower(".zero") => (*count, Some(*fill)),
                _ => {
                    return err(
                        at,
                        wrong_count(directive, spans.len(), &[&[OperandKind::U7]]),
                    );
                }
            };
            let n = self.constant(count)?;
            let max = i64::try_from(self.capacity).unwrap_or(i64::MAX);
            if !(0..=max).contains(&n) {
                return err(
                    count.trim().offset,
                    AsmErrorKind::ImmediateOutOfRange {
                        value: n,
                        min: 0,
                        max,
                    },
                );
            }
            let byte = match fill {
                Some(f) => {
                    let v = self.constant(f)?;
                    if !(-128..=255).contains(&v) {
                        return err(
                            f.trim().offset,
                            AsmErrorKind::ImmediateOutOfRange {
                                value: v,
                                min: -128,
                                max: 255,
                            },
                        );
                    }
                    v as u8
                }
                None => 0,
            };
            self.fill(n as usize, byte, at)
        } else if lower(".global") || lower(".globl") {
            split_operands(args, &mut spans)?;
            for span in spans.iter() {
                let s = span.trim();
                if s.text.is_empty() || ident_len(s.text) != s.text.len() {
                    return err(s.offset, AsmErrorKind::ExpectedExpression);
                }
            }
            Ok(())
        } else {
            err(at, AsmErrorKind::UnknownDirective(name(directive)))
        }
    }

    fn fill(&mut self, count: usize, byte: u8, at: usize) -> PResult<()> {
        let chunk = [byte; 64];
        let mut left = count;
        while left > 0 {
            let n = left.min(chunk.len());
            self.emit(chunk.get(..n).unwrap_or(&[]), at)?;
            left -= n;
        }
        Ok(())
    }

    fn pad_to(&mut self, alignment: usize, at: usize) -> PResult<()> {
        let address = self.address();
        let pad = address.next_multiple_of(alignment) - address;
        if self.section == Section::Data {
            self.data_alignment = self.data_alignment.max(alignment);
            return self.fill(pad, 0, at);
        }
        let mut left = pad;
        let odd_bytes = left % 4;
        self.fill(odd_bytes, 0, at)?;
        left -= odd_bytes;
        // An even (8-aligned) slot gets `nop`, an odd slot `lnop`, so dual issue is kept.
        while left >= 4 {
            let word = if self.address().is_multiple_of(8) {
                NOP
            } else {
                LNOP
            };
            self.emit(&word.to_be_bytes(), at)?;
            left -= 4;
        }
        Ok(())
    }
}

fn expect_no_operands(args: Span<'_>) -> PResult<()> {
    let args = args.trim();
    if args.text.is_empty() {
        Ok(())
    } else {
        err(
            args.offset,
            AsmErrorKind::UnexpectedToken {
                expected: "end of statement",
            },
        )
    }
}

fn wrong_count(
    directive: &str,
    found: usize,
    expected: &'static [&'static [OperandKind]],
) -> AsmErrorKind {
    AsmErrorKind::WrongOperandCount {
        mnemonic: name(directive),
        found: u8::try_from(found).unwrap_or(u8::MAX),
        expected,
    }
}

/// Resolver for directive arguments that must be constant: labels are never resolved.
struct Constant;

impl Resolver for Constant {
    fn location(&self) -> Option<i64> {
        None
    }

    fn label(&self, _name: &str) -> Result<Option<i64>, AsmErrorKind> {
        Ok(None)
    }
}
