//! Alignment, as gas's `s_align` and `do_align` do it, and gas's `.nop`.
//!
//! - `.align N` (SPU: a power of two, 16 bytes without `N`), `.p2align N`, `.balign N` (a
//!   byte count, a power of two), each with an optional fill byte and maximum skip; the `w`
//!   and `l` variants (`.balignw`, `.balignl`, `.p2alignw`, `.p2alignl`) fill with a 2- or
//!   4-byte big-endian pattern, and the padding must then be a whole number of patterns.
//! - Without a fill, code is padded with `nop` and `lnop`, each where its pipe issues it
//!   (`spu_handle_align`), anything else with zeros.
//! - The section's alignment is raised even when the maximum skips the padding.
//! - An alignment past 2^31 is taken as 2^31 (gas warns); a fill value keeps its low byte.
//!
//! gas rounds each section's size up to its alignment at the end (`md_section_align`),
//! code with the same `nop`/`lnop` pattern: [`Pass::round_sections`].
//!
//! `nop` with or without a dot is gas's generic `.nop` (`read.c` `s_nop`): it assembles one
//! `nop` (`40200000`), then more while fewer bytes than its operand were written, if that is
//! a constant. So `nop 127` is 32 `nop`s, and `nop $127` one, `$127` being a symbol there.

use super::error::AsmErrorKind;
use super::expr::{Value, expression};
use super::pass::Pass;
use super::section::SectionKind;
use super::text::{PResult, Span, err, operands};

/// `lnop` and `nop`, the code padding of GNU `as` for SPU (`spu_handle_align`).
const LNOP: u32 = 0x0020_0000;
const NOP: u32 = 0x4020_0000;

/// gas's `TC_ALIGN_LIMIT` for a 32-bit target: 2^31.
const ALIGN_LIMIT: i64 = 31;

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// Runs `d` if it is an alignment directive or `.nop`.
    pub fn align_directive(&mut self, d: &str, at: usize, args: Span<'_>) -> Option<PResult<()>> {
        let (bytes, pattern, default) = match d {
            // SPU's `md_pseudo_table`: `{"align", s_align_ptwo, 4}`.
            "align" => (false, 1, 4),
            "p2align" => (false, 1, 0),
            "p2alignw" => (false, 2, 0),
            "p2alignl" => (false, 4, 0),
            "balign" => (true, 1, 0),
            "balignw" => (true, 2, 0),
            "balignl" => (true, 4, 0),
            "nop" => return Some(self.nop(at, args)),
            _ => return None,
        };
        Some(self.align(bytes, pattern, default, at, args))
    }

    fn align(
        &mut self,
        bytes: bool,
        pattern: usize,
        default: i64,
        at: usize,
        args: Span<'_>,
    ) -> PResult<()> {
        let mut list = operands(args);
        let exponent = match list.next() {
            None => default,
            Some(arg) => {
                let value = self.constant(arg)?;
                if value < 0 {
                    return arg.err(AsmErrorKind::InvalidAlignment { value });
                }
                if bytes {
                    if value != 0 && value & (value - 1) != 0 {
                        return arg.err(AsmErrorKind::InvalidAlignment { value });
                    }
                    i64::from(value.max(1).trailing_zeros())
                } else {
                    value
                }
            }
        };
        let alignment = 1u64 << exponent.min(ALIGN_LIMIT);
        let fill = match list.next() {
            Some(span) if !span.text.trim().is_empty() => Some(self.constant(span)?),
            _ => None,
        };
        let max = match list.next() {
            Some(span) => Some(self.constant(span)?),
            None => None,
        };
        if let Some(extra) = list.next() {
            return extra.err(AsmErrorKind::UnexpectedToken {
                expected: "end of statement",
            });
        }
        let alignment = u32::try_from(alignment).unwrap_or(1 << 31);
        // `record_alignment` happens whether or not the maximum lets the padding happen.
        self.raise_alignment(alignment);
        let offset = u64::from(self.offset());
        let pad = offset.next_multiple_of(u64::from(alignment)) - offset;
        if max.is_some_and(|m| m > 0 && pad as i64 > m) {
            return Ok(());
        }
        match fill {
            // A zero-initialised section takes no fill (gas ignores it there).
            Some(_) if self.kind() == SectionKind::Bss => self.fill(pad, 0, at),
            Some(value) if pattern == 1 => self.fill(pad, value as u8, at),
            Some(value) => {
                if pad % pattern as u64 != 0 {
                    return err(
                        at,
                        AsmErrorKind::AlignmentPadding {
                            padding: pad as u32,
                            pattern: pattern as u8,
                        },
                    );
                }
                let be = value.to_be_bytes();
                let unit = be.get(8 - pattern..).unwrap_or(&[]);
                for _ in 0..pad / pattern as u64 {
                    self.emit(unit, at)?;
                }
                Ok(())
            }
            None => self.pad_to(alignment, at),
        }
    }

    pub(super) fn raise_alignment(&mut self, bytes: u32) {
        if let Some(section) = self.sections.get_mut(self.current) {
            section.align = section.align.max(bytes);
        }
    }

    /// Pads the current section to a multiple of `alignment`: code with `nop`/`lnop` as GNU
    /// `as` does for SPU (`spu_handle_align`), everything else with zeros.
    pub fn pad_to(&mut self, alignment: u32, at: usize) -> PResult<()> {
        self.raise_alignment(alignment);
        let offset = u64::from(self.offset());
        let pad = offset.next_multiple_of(u64::from(alignment)) - offset;
        if self.kind() != SectionKind::Code {
            return self.fill(pad, 0, at);
        }
        let mut left = pad;
        let odd_bytes = left % 4;
        self.fill(odd_bytes, 0, at)?;
        left -= odd_bytes;
        // An even (8-aligned) slot gets `nop`, an odd slot `lnop`, so dual issue is kept.
        while left >= 4 {
            let word = if self.offset().is_multiple_of(8) {
                NOP
            } else {
                LNOP
            };
            self.emit(&word.to_be_bytes(), at)?;
            left -= 4;
        }
        Ok(())
    }

    /// gas's `md_section_align` at the end of a pass: every section's size becomes a
    /// multiple of its alignment, code padded with `nop`/`lnop`, data with zeros (`COMMON`
    /// is ld's, not gas's: it is not rounded).
    pub(super) fn round_sections(&mut self) -> PResult<()> {
        let (current, previous) = (self.current, self.previous);
        for index in 0..self.sections.list.len() {
            let Some(section) = self.sections.list.get(index).copied() else {
                continue;
            };
            if section.name == "COMMON" {
                continue;
            }
            if matches!(section.kind, SectionKind::Code | SectionKind::Data) {
                self.current = index as u8;
                self.pad_to(section.align, 0)?;
            } else if let Some(section) = self.sections.list.get_mut(index) {
                // No bytes: the size alone (`.bss` includes its `.lcomm` room by now).
                let end = self.offsets.get(index).copied().unwrap_or(0);
                let size = section.size.max(end);
                section.size = size.next_multiple_of(section.align.max(1));
            }
        }
        self.current = current;
        self.previous = previous;
        Ok(())
    }

    /// `.nop [size]` (also `nop` without the dot).
    fn nop(&mut self, at: usize, args: Span<'_>) -> PResult<()> {
        let args = args.trim();
        let count = if args.text.is_empty() {
            Value::known(0)
        } else {
            // gas reads the operand as any expression: a symbol not defined (`$127`) is fine.
            expression(args, &super::binding::Lenient(self))?
        };
        let start = self.offset();
        loop {
            self.emit(&NOP.to_be_bytes(), at)?;
            let written = i64::from(self.offset().wrapping_sub(start));
            if !(count.is_constant() && written < count.value) {
                return Ok(());
            }
        }
    }
}
