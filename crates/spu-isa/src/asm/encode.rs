//! Operand encoding, as GNU `as` 2.40 does it (`tc-spu.c` `arg_encode`, `get_imm`,
//! `md_apply_fix`): each kind's range (an error outside it), the kinds gas does not check
//! (their bits are masked), and the pc-relative rule.
//!
//! | kind | gas | range | field |
//! |---|---|---|---|
//! | `S3` `S7N` `U3` `U7` (and `cbd`'s offset) | A_S3 A_S7N A_U3 A_U7 | none | 7 bits |
//! | `S6` | A_S6 | -32..=31 | 7 bits |
//! | `S7` | A_S7 | -64..=63 | 7 bits |
//! | `U5` `U6` | A_U5 A_U6 | 0..=127 (gas warns past 31, 63) | 7 bits |
//! | `U7A` `U7B` | A_U7A A_U7B | 0..=127 | 8 bits of 173 - v, 155 - v |
//! | `S10B` `S10` | A_S10B A_S10 | -512..=511 (gas warns for `S10B` outside -128..=255) | 10 bits |
//! | `MemS14` | A_S14 | -8192..=8191 | 10 bits of v >> 4 (no multiple-of-16 check) |
//! | `S16` | A_S16 | -32768..=32767 | 16 bits |
//! | `X16` | A_X16 | -32768..=65535 | 16 bits |
//! | `U18` | A_U18 | 0..=262143 | 18 bits |
//! | `U14` | A_U14 | 0..=16383 | 14 bits |
//! | `S18` | A_S18 | -131072..=262143 | 16 bits of v >> 2 (no alignment check) |
//! | `R18` | A_R18 | -262144..=262143 | 16 bits of v >> 2 |
//! | `S11` `S11I` | A_S11 A_S11I | -1024..=1023 | v >> 2: 7 bits, and 2 bits at 23 (14) |
//!
//! gas takes a constant as a C `int`: a value is cut to 32 bits before the check.
//!
//! The pc-relative kinds (`R18`, `S11`, `S11I`) take a constant (a number, or a symbol
//! defined before with a number) as the byte offset itself: `br 0x14` at 8 branches to 0x1c.
//! Anything else (a label, `.`, `label+4`, a symbol defined later) is a target, encoded as
//! its distance from the instruction. A distance gas resolves itself (the target in the
//! instruction's section) is checked against the range above; one ld resolves against
//! ld's (`R_SPU_REL16`: a 16-bit field, -131072..=262143 bytes; `R_SPU_REL9`: -1024..=1023).

use super::error::AsmErrorKind;
use super::expr::{Resolver, Value, expression};
use super::register::{memory_operand, register};
use super::text::{PResult, Span, err};
use crate::opcodes::{Format, OperandKind};

/// gas reads a constant into a C `int`.
fn as_int(value: i64) -> i64 {
    i64::from(value as i32)
}

/// Checks `value` (cut to 32 bits, as gas does) against `min..=max`; `operand` (1-based)
/// and `offset` say where.
pub(super) fn check_range(
    value: Value,
    min: i64,
    max: i64,
    (operand, offset): (u8, usize),
) -> PResult<i64> {
    let v = as_int(value.value);
    if value.resolved && !(min..=max).contains(&v) {
        return err(
            offset,
            AsmErrorKind::ImmediateOutOfRange {
                operand,
                value: v,
                min,
                max,
            },
        );
    }
    Ok(v)
}

/// The byte offset a pc-relative operand encodes: a constant as it is, a target as its
/// distance from `pc` (in `section`). `near` is gas's range, `far` ld's for a target in
/// another section.
fn pc_relative(
    value: Value,
    (pc, section): (i64, u8),
    near: (i64, i64),
    far: (i64, i64),
    at: (u8, usize),
) -> PResult<i64> {
    if value.is_constant() {
        return check_range(value, near.0, near.1, at);
    }
    if !value.resolved {
        return Ok(0);
    }
    let (min, max) = if value.section == Some(section) {
        near
    } else {
        far
    };
    let delta = as_int(value.value.wrapping_sub(pc));
    if !(min..=max).contains(&delta) {
        return err(
            at.1,
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

/// Where the instruction is: its address and section.
#[derive(Clone, Copy, Debug)]
pub(super) struct Place {
    pub pc: i64,
    pub section: u8,
}

/// The bits one operand contributes to the instruction word at `place`.
pub(super) fn operand(
    kind: OperandKind,
    span: Span<'_>,
    format: Format,
    place: Place,
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
    let imm = |min: i64, max: i64| -> PResult<i64> {
        check_range(expression(span, resolver)?, min, max, at)
    };
    let unchecked = || -> PResult<i64> { Ok(as_int(expression(span, resolver)?.value)) };
    let here = (place.pc, place.section);
    Ok(match kind {
        Rt | Ra | Rb | Rc | Spr | Channel => register(span, kind, reg_shift(kind), resolver)?,
        S3 | S7N | U3 | U7 => bits(unchecked()?, 7, 14),
        S6 => bits(imm(-32, 31)?, 7, 14),
        S7 => bits(imm(-64, 63)?, 7, 14),
        U5 | U6 => bits(imm(0, 127)?, 7, 14),
        U7A | U7B => {
            let scale = imm(0, 127)?;
            let bias = if kind == U7A { 173 } else { 155 };
            bits(bias - scale, 8, 14)
        }
        S10B | S10 => bits(imm(-512, 511)?, 10, 14),
        S16 => bits(imm(-32768, 32767)?, 16, 7),
        X16 => bits(imm(-32768, 65535)?, 16, 7),
        U18 => bits(imm(0, 262_143)?, 18, 7),
        U14 => bits(imm(0, 16383)?, 14, 0),
        MemS14 | MemU7 => {
            let (value, offset_span, reg_span) = memory_operand(span, resolver)?;
            let ra = register(reg_span, Ra, 7, resolver)?;
            let at = (index, offset_span.offset);
            let field = if kind == MemS14 {
                bits(check_range(value, -8192, 8191, at)? >> 4, 10, 14)
            } else {
                bits(as_int(value.value), 7, 14)
            };
            field | ra
        }
        S18 => bits(imm(-131_072, 262_143)? >> 2, 16, 7),
        R18 => {
            let value = expression(span, resolver)?;
            let delta = pc_relative(value, here, (-262_144, 262_143), (-131_072, 262_143), at)?;
            bits(delta >> 2, 16, 7)
        }
        S11 | S11I => {
            let value = expression(span, resolver)?;
            let delta = pc_relative(value, here, (-1024, 1023), (-1024, 1023), at)?;
            let high_shift = if kind == S11 { 23 } else { 14 };
            bits(delta >> 2, 7, 0) | bits(delta >> 9, 2, high_shift)
        }
    })
}
