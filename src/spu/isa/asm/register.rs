//! Register operands as GNU `as` reads them (`tc-spu.c` `get_reg`): an optional `$`, then a
//! number, a register name, or (for channels and special-purpose registers) `chN`/`spN`;
//! anything else is an expression whose value is the register number (so `.set rX, 3` then
//! `ai rX, rX, 1` works).

use super::error::AsmErrorKind;
use super::expr::{Resolver, expression};
use super::text::{PResult, Span, err};
use crate::spu::isa::opcodes::OperandKind;

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

/// Parses a register operand of the given kind (`Rt`..`Rc`, `Spr`, `Channel`).
pub(super) fn register(span: Span<'_>, kind: OperandKind, resolver: &dyn Resolver) -> PResult<u8> {
    let span = span.trim();
    let had_dollar = span.text.starts_with('$');
    let body = if had_dollar { span.from(1) } else { span };
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
    let (value, used) = if digits > 0 {
        let mut value: u32 = 0;
        for c in text.bytes().take(digits) {
            value = value.saturating_mul(10).saturating_add(u32::from(c - b'0'));
        }
        (value, digits)
    } else if let Some(&(name, number)) = named {
        (u32::from(number), name.len())
    } else if had_dollar {
        return err(span.offset, AsmErrorKind::ExpectedRegister);
    } else {
        // A symbol or expression standing for the register number.
        let value = expression(span, resolver).map_err(|e| match e.kind {
            AsmErrorKind::UnknownLabel(_) | AsmErrorKind::ExpectedExpression => {
                super::text::Located {
                    offset: span.offset,
                    kind: AsmErrorKind::ExpectedRegister,
                }
            }
            _ => e,
        })?;
        if !value.resolved {
            return Ok(0);
        }
        return u8::try_from(value.value)
            .ok()
            .filter(|&v| v <= 127)
            .ok_or(super::text::Located {
                offset: span.offset,
                kind: AsmErrorKind::RegisterOutOfRange {
                    value: u32::try_from(value.value).unwrap_or(u32::MAX),
                },
            });
    };
    if let Some(rest) = text.get(used..)
        && !rest.trim().is_empty()
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
    let inner = span.from(open + 1);
    let Some(close) = inner.text.find(')') else {
        return err(
            span.offset + span.text.len(),
            AsmErrorKind::UnexpectedToken { expected: "`)`" },
        );
    };
    let after = inner.from(close + 1).trim();
    if !after.text.is_empty() {
        return err(
            after.offset,
            AsmErrorKind::UnexpectedToken {
                expected: "end of operand",
            },
        );
    }
    Ok((span.take(open), inner.take(close)))
}
