//! Operand encoding: range checks and field placement (GNU `as` `arg_encode` rules, see
//! [`OperandKind`] for the ranges).

use super::error::AsmErrorKind;
use super::expr::{Resolver, Value, expression};
use super::register::{memory_operand, register};
use super::text::{PResult, Span, err};
use crate::spu::isa::opcodes::{Format, OperandKind};

/// Checks `value` against `min..=max`; `operand` (1-based) and `offset` say where.
pub(super) fn check_range(
    value: Value,
    min: i64,
    max: i64,
    (operand, offset): (u8, usize),
) -> PResult<i64> {
    if value.resolved && !(min..=max).contains(&value.value) {
        return err(
            offset,
            AsmErrorKind::ImmediateOutOfRange {
                operand,
                value: value.value,
                min,
                max,
            },
        );
    }
    Ok(value.value)
}

fn check_word_aligned(value: Value, offset: usize) -> PResult<()> {
    if value.resolved && value.value % 4 != 0 {
        return err(
            offset,
            AsmErrorKind::MisalignedTarget {
                address: value.value,
            },
        );
    }
    Ok(())
}

/// Byte offset from `pc` to the target, checked against `min..=max`.
fn relative(value: Value, pc: i64, min: i64, max: i64, offset: usize) -> PResult<i64> {
    check_word_aligned(value, offset)?;
    if !value.resolved {
        return Ok(0);
    }
    let delta = value.value.saturating_sub(pc);
    if !(min..=max).contains(&delta) {
        return err(
            offset,
            AsmErrorKind::UnreachableTarget {
                offset: delta,
                min,
                max,
            },
        );
    }
    Ok(delta)
}

fn bits(value: i64, width: u32, shift: u32) -> u32 {
    ((value as u32) & ((1u32 << width) - 1)) << shift
}

/// The bits one operand contributes to the instruction word at `pc`.
pub(super) fn operand(
    kind: OperandKind,
    span: Span<'_>,
    format: Format,
    pc: i64,
    resolver: &dyn Resolver,
    index: u8,
) -> PResult<u32> {
    use OperandKind::*;
    let span = span.trim();
    let at = (index, span.offset);
    let reg_shift = |kind: OperandKind| match (kind, format) {
        (Rt, Format::Rrr) => 21,
        (Rt | Rc, _) => 0,
        (Rb, _) => 14,
        _ => 7,
    };
    Ok(match kind {
        Rt | Ra | Rb | Rc | Spr | Channel => {
            u32::from(register(span, kind, resolver)?) << reg_shift(kind)
        }
        S3 | S7N | S7 => bits(
            check_range(expression(span, resolver)?, -64, 63, at)?,
            7,
            14,
        ),
        S6 => bits(
            check_range(expression(span, resolver)?, -32, 31, at)?,
            7,
            14,
        ),
        U3 | U5 | U6 | U7 => bits(check_range(expression(span, resolver)?, 0, 127, at)?, 7, 14),
        U7A | U7B => {
            let scale = check_range(expression(span, resolver)?, 0, 127, at)?;
            let bias = if kind == U7A { 173 } else { 155 };
            bits(bias - scale, 8, 14)
        }
        S10B => bits(
            check_range(expression(span, resolver)?, -128, 255, at)?,
            10,
            14,
        ),
        S10 => bits(
            check_range(expression(span, resolver)?, -512, 511, at)?,
            10,
            14,
        ),
        S16 => bits(
            check_range(expression(span, resolver)?, -32768, 32767, at)?,
            16,
            7,
        ),
        X16 => bits(
            check_range(expression(span, resolver)?, -32768, 65535, at)?,
            16,
            7,
        ),
        U18 => bits(
            check_range(expression(span, resolver)?, 0, 262_143, at)?,
            18,
            7,
        ),
        U14 => bits(
            check_range(expression(span, resolver)?, 0, 16383, at)?,
            14,
            0,
        ),
        MemS14 | MemU7 => {
            let (offset_span, reg_span) = memory_operand(span)?;
            let ra = u32::from(register(reg_span, Ra, resolver)?) << 7;
            let value = if offset_span.text.trim().is_empty() {
                Value {
                    value: 0,
                    resolved: true,
                }
            } else {
                expression(offset_span, resolver)?
            };
            let field = if kind == MemS14 {
                let v = check_range(value, -8192, 8176, at)?;
                if value.resolved && v % 16 != 0 {
                    return err(at.1, AsmErrorKind::MisalignedOffset { value: v });
                }
                bits(v >> 4, 10, 14)
            } else {
                bits(check_range(value, 0, 127, at)?, 7, 14)
            };
            field | ra
        }
        S18 => {
            let value = expression(span, resolver)?;
            check_word_aligned(value, at.1)?;
            let v = check_range(value, -131_072, 262_140, at)?;
            bits(v >> 2, 16, 7)
        }
        R18 => {
            let value = expression(span, resolver)?;
            bits(relative(value, pc, -131_072, 131_068, at.1)? >> 2, 16, 7)
        }
        S11 | S11I => {
            let value = expression(span, resolver)?;
            let delta = relative(value, pc, -1024, 1020, at.1)?;
            let high_shift = if kind == S11 { 23 } else { 14 };
            bits(delta >> 2, 7, 0) | bits(delta >> 9, 2, high_shift)
        }
    })
}
