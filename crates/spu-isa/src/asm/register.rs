//! Register operands as GNU `as` reads them (`tc-spu.c` `get_reg`): an optional `$`, then a
//! number, a register name (the longest that the text starts with, any case: `lr`, `sp`,
//! `rp`, `fp`; for channels the `tc-spu.c` channel names), or for channels and
//! special-purpose registers `chN`/`spN`. Anything else is an expression whose value must be
//! a constant where it is read (`.equ k0,127` before `lqr $k0,...`, `$(2+1)`, `(2+1)`);
//! gas puts such a value in the field unchecked, so a number past 127 spills into the
//! neighbouring fields, and this assembler does the same.

use super::error::AsmErrorKind;
use super::expr::{Resolver, Value, parse_whole};
use super::text::{Located, PResult, Span, err};
use crate::opcodes::OperandKind;

/// Channel names known to GNU `as` (`tc-spu.c` `ch_reg_name`).
pub(super) const CHANNELS: [(&str, u8); 28] = [
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

/// General register names (`tc-spu.c` `reg_name`).
const REGISTER_NAMES: [(&str, u8); 4] = [("lr", 0), ("sp", 1), ("rp", 0), ("fp", 127)];

fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// The bits a register operand of `kind` (`Rt`..`Rc`, `Spr`, `Channel`) puts in the word,
/// whose field starts at bit `pos` (bit 0 the least significant).
pub(super) fn register(
    span: Span<'_>,
    kind: OperandKind,
    pos: u32,
    resolver: &dyn Resolver,
) -> PResult<u32> {
    let span = span.trim();
    let body = match span.text.strip_prefix('$') {
        Some(_) => span.from(1),
        None => span,
    };
    let mut text = body.text;
    let mut offset = body.offset;
    let prefix = match kind {
        OperandKind::Channel => Some("ch"),
        OperandKind::Spr => Some("sp"),
        _ => None,
    };
    if let Some(prefix) = prefix
        && starts_with_ignore_case(text, prefix)
        && text.as_bytes().get(2).is_some_and(u8::is_ascii_digit)
    {
        text = text.get(2..).unwrap_or("");
        offset += 2;
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let names: &[(&str, u8)] = match kind {
        OperandKind::Channel => &CHANNELS,
        // GNU `as` knows no special-purpose register names.
        OperandKind::Spr => &[],
        _ => &REGISTER_NAMES,
    };
    // The longest name the text starts with, as GNU `as` matches them.
    let named = names
        .iter()
        .filter(|(name, _)| starts_with_ignore_case(text, name))
        .max_by_key(|(name, _)| name.len());
    let (number, used) = if digits > 0 {
        let mut value: u32 = 0;
        for c in text.bytes().take(digits) {
            value = value.saturating_mul(10).saturating_add(u32::from(c - b'0'));
        }
        (value, digits)
    } else if let Some(&(name, number)) = named {
        (u32::from(number), name.len())
    } else {
        (u32::MAX, 0)
    };
    let rest = Span {
        text: text.get(used..).unwrap_or(""),
        offset: offset + used,
    };
    if number <= 127 {
        if !rest.text.trim().is_empty() {
            return err(
                rest.trim().offset,
                AsmErrorKind::UnexpectedToken {
                    expected: "end of register operand",
                },
            );
        }
        return Ok(number << pos);
    }
    // gas goes on with an expression from where the number or name ended.
    if rest.text.trim().is_empty() {
        return Err(Located {
            offset: span.offset,
            kind: if digits > 0 {
                AsmErrorKind::RegisterOutOfRange { value: number }
            } else {
                AsmErrorKind::ExpectedRegister
            },
        });
    }
    let not_a_register = Located {
        offset: span.offset,
        kind: AsmErrorKind::ExpectedRegister,
    };
    let (value, len) = parse_whole(rest, resolver).map_err(|e| match e.kind {
        AsmErrorKind::UnknownLabel(_) | AsmErrorKind::ExpectedExpression => not_a_register,
        _ => e,
    })?;
    if let Some(extra) = rest.text.get(len..).filter(|t| !t.trim().is_empty()) {
        return err(
            rest.offset + len + (extra.len() - extra.trim_start().len()),
            AsmErrorKind::UnexpectedToken {
                expected: "end of register operand",
            },
        );
    }
    if !value.is_constant() {
        return Err(not_a_register);
    }
    // `get_reg`: `opcode |= X_add_number << pos`, unchecked.
    Ok(value.value.wrapping_shl(pos) as u32)
}

/// Reads `offset($ra)` as gas's `calcop` does, left to right: the offset expression (which
/// must be there), `(`, the register, `)`. Returns the offset's value and span, and the
/// register's span.
pub(super) fn memory_operand<'s>(
    span: Span<'s>,
    resolver: &dyn Resolver,
) -> PResult<(Value, Span<'s>, Span<'s>)> {
    let span = span.trim();
    let (value, used) = parse_whole(span, resolver)?;
    let after = span.from(used).trim();
    let Some(inner_text) = after.text.strip_prefix('(') else {
        return err(
            after.offset,
            AsmErrorKind::UnexpectedToken {
                expected: "`(` of `offset($ra)`",
            },
        );
    };
    let inner = Span {
        text: inner_text,
        offset: after.offset + 1,
    };
    let Some(close) = inner.text.rfind(')') else {
        return err(
            span.offset + span.text.len(),
            AsmErrorKind::UnexpectedToken { expected: "`)`" },
        );
    };
    let tail = inner.from(close + 1).trim();
    if !tail.text.is_empty() {
        return err(
            tail.offset,
            AsmErrorKind::UnexpectedToken {
                expected: "end of operand",
            },
        );
    }
    Ok((value, span.take(used), inner.take(close)))
}
