//! Directives other than the block ones (macros, repeats, conditionals: see `expand`):
//! sections, symbols, assignments, alignment and space, local commons, `.brinfo`, and the
//! ones accepted with no effect on the image (`.type`, `.size`, `.cfi_*`, ...).

use super::error::AsmErrorKind;
use super::expr::expression;
use super::pass::{Assign, MAX_SECTION_STACK, Pass, name};
use super::section::SectionKind;
use super::text::{Located, PResult, Span, err, ident_len, operands};
use super::{LNOP, MAX_ALIGN_EXPONENT, NOP};

/// Directives read and checked that leave no bytes in a flat local-store image: symbol
/// binding and visibility, ELF symbol types and sizes, listing control, debug line info.
const NO_BYTES: [&str; 17] = [
    ".global",
    ".globl",
    ".local",
    ".weak",
    ".hidden",
    ".protected",
    ".internal",
    ".type",
    ".size",
    ".ident",
    ".file",
    ".loc",
    ".nolist",
    ".list",
    ".title",
    ".sbttl",
    ".eject",
];

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// The value of an argument that must be known in the first pass.
    pub fn constant(&self, span: Span<'_>) -> PResult<i64> {
        let value = expression(span, self)?;
        if !value.resolved {
            return span.err(AsmErrorKind::ExpectedConstant);
        }
        Ok(value.value)
    }

    pub fn directive(&mut self, directive: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let is = |names: &[&str]| names.iter().any(|n| directive.eq_ignore_ascii_case(n));
        let d = directive.to_ascii_lowercase_owned();
        let d = d.as_str();
        if let Some(result) = self.data_directive(d, at, args) {
            return result;
        }
        match d {
            ".text" | ".data" => {
                self.switch(d, None, at)?;
                return expect_subsection(args);
            }
            ".bss" if args.text.trim().is_empty() => return self.switch(".bss", None, at),
            ".bss" | ".lcomm" | ".comm" => return self.common(d, at, args),
            ".section" | ".pushsection" => return self.section(d, at, args),
            ".previous" => {
                expect_none(args)?;
                core::mem::swap(&mut self.previous, &mut self.current);
                return Ok(());
            }
            ".popsection" => {
                expect_none(args)?;
                let Some((current, previous)) = self.section_stack.pop() else {
                    return err(at, AsmErrorKind::UnmatchedEnd(name(directive)));
                };
                self.current = current;
                self.previous = previous;
                return Ok(());
            }
            ".set" | ".equ" | ".equiv" | ".eqv" | ".def" => {
                let text = args.trim();
                let comma = super::text::find_top_level(text.text, b',', true);
                if comma >= text.text.len() {
                    return err(
                        text.offset + text.text.len(),
                        AsmErrorKind::UnexpectedToken {
                            expected: "`,` and a value",
                        },
                    );
                }
                let target = text.text.get(..comma).unwrap_or("").trim();
                let how = if d == ".equiv" {
                    Assign::Equiv
                } else {
                    Assign::Set
                };
                return self.assign(target, text.offset, text.from(comma + 1), how);
            }
            ".align" | ".p2align" | ".balign" => return self.align(d, at, args),
            ".org" => {
                let mut list = operands(args);
                let target = list.next().unwrap_or(args);
                let value = expression(target, self)?;
                let fill = match list.next() {
                    Some(span) => Some(self.byte_value(span, 2)?),
                    None => None,
                };
                return self.org(value, target, fill);
            }
            ".space" | ".skip" | ".zero" => return self.space(d, at, args),
            ".fill" => return self.fill_directive(at, args),
            ".brinfo" => return self.brinfo(args),
            ".include" | ".incbin" => {
                return err(at, AsmErrorKind::NeedsFileAccess(name(directive)));
            }
            ".error" | ".err" | ".abort" => {
                let text = args.trim().text;
                let text = text.trim_matches('"');
                return err(
                    at,
                    AsmErrorKind::UserError(name(if text.is_empty() { directive } else { text })),
                );
            }
            ".end" => {
                self.ended = true;
                return Ok(());
            }
            // Messages GNU `as` prints; nothing to assemble.
            ".warning" | ".print" | ".version" | ".psize" => return Ok(()),
            _ => {}
        }
        if is(&NO_BYTES) || d.starts_with(".cfi_") {
            return self.symbol_names(d, args);
        }
        err(at, AsmErrorKind::UnknownDirective(name(directive)))
    }

    /// Checks the symbol names of `.global`-like directives (names only, or a name first).
    fn symbol_names(&self, d: &str, args: Span<'_>) -> PResult<()> {
        let first_only = matches!(d, ".type" | ".size");
        let names_only = matches!(
            d,
            ".global" | ".globl" | ".local" | ".weak" | ".hidden" | ".protected" | ".internal"
        );
        if !(first_only || names_only) {
            return Ok(());
        }
        for (i, span) in operands(args).enumerate() {
            if first_only && i > 0 {
                break;
            }
            let s = span.trim();
            if s.text.is_empty() || ident_len(s.text) != s.text.len() {
                return s.err(AsmErrorKind::ExpectedExpression);
            }
        }
        Ok(())
    }

    fn switch(&mut self, section: &str, kind: Option<SectionKind>, at: usize) -> PResult<()> {
        let index = self
            .sections
            .open(section, kind)
            .map_err(|kind| Located { offset: at, kind })?;
        if index != self.current {
            self.previous = self.current;
            self.current = index;
        }
        Ok(())
    }

    /// `.section name[, "flags"[, @type]]` and `.pushsection` (same arguments).
    fn section(&mut self, d: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(name_span) = list.next().map(Span::trim) else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let section = name_span.text.trim_matches('"');
        if section.is_empty() {
            return name_span.err(AsmErrorKind::ExpectedExpression);
        }
        let flags = list
            .next()
            .map(|s| s.trim().text.trim_matches('"'))
            .unwrap_or("");
        let kind_word = list.next().map(|s| s.trim().text).unwrap_or("");
        let kind = if kind_word.ends_with("nobits") {
            Some(SectionKind::Bss)
        } else if flags.contains('x') {
            Some(SectionKind::Code)
        } else if !flags.is_empty() || kind_word.ends_with("progbits") {
            Some(super::section::kind_from_name(section)).map(|k| {
                if k == SectionKind::Code {
                    SectionKind::Data
                } else {
                    k
                }
            })
        } else {
            None
        };
        if d == ".pushsection" {
            self.section_stack
                .push((self.current, self.previous))
                .map_err(|_| Located {
                    offset: at,
                    kind: AsmErrorKind::NestingLimit {
                        what: "`.pushsection`",
                        limit: MAX_SECTION_STACK,
                    },
                })?;
        }
        self.switch(section, kind, name_span.offset)
    }

    /// `.lcomm sym, size[, align]`, `.comm sym, size[, align]`, `.bss sym, size[, align]`:
    /// room in the zero-initialised section, labelled `sym`.
    fn common(&mut self, d: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let (Some(sym), Some(size)) = (list.next().map(Span::trim), list.next()) else {
            return err(
                at,
                AsmErrorKind::UnexpectedToken {
                    expected: "`symbol, size`",
                },
            );
        };
        if sym.text.is_empty() || ident_len(sym.text) != sym.text.len() {
            return sym.err(AsmErrorKind::ExpectedExpression);
        }
        let bytes = self.constant(size)?;
        if !(0..=self.capacity as i64).contains(&bytes) {
            return size.err(AsmErrorKind::ImmediateOutOfRange {
                operand: 2,
                value: bytes,
                min: 0,
                max: self.capacity as i64,
            });
        }
        let align = match list.next() {
            Some(span) => {
                let value = self.constant(span)?;
                if value <= 0 || value & (value - 1) != 0 || value > 1 << MAX_ALIGN_EXPONENT {
                    return span.err(AsmErrorKind::InvalidAlignment { value });
                }
                value as u32
            }
            // GNU `as` `TC_IMPLICIT_LCOMM_ALIGNMENT`: by size, up to 8 bytes.
            None => match bytes {
                8.. => 8,
                4..=7 => 4,
                2..=3 => 2,
                _ => 1,
            },
        };
        // Commons go after every `.bss` of the link, as GNU ld puts `COMMON` last.
        let section = if d == ".comm" { "COMMON" } else { ".bss" };
        let (current, previous) = (self.current, self.previous);
        self.switch(section, Some(SectionKind::Bss), at)?;
        let result = (|| {
            self.pad_to(align, at)?;
            self.define_label(sym.text, sym.offset)?;
            self.fill(bytes as u64, 0, at)
        })();
        self.current = current;
        self.previous = previous;
        result
    }

    fn align(&mut self, d: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(arg) = list.next() else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let value = self.constant(arg)?;
        let bytes = if d == ".balign" {
            if value <= 0 || value > (1 << MAX_ALIGN_EXPONENT) || value & (value - 1) != 0 {
                return arg.err(AsmErrorKind::InvalidAlignment { value });
            }
            value as u32
        } else {
            if !(0..=MAX_ALIGN_EXPONENT).contains(&value) {
                return arg.err(AsmErrorKind::InvalidAlignment { value });
            }
            1u32 << value
        };
        let fill = match list.next() {
            Some(span) if !span.text.trim().is_empty() => Some(self.byte_value(span, 2)?),
            _ => None,
        };
        let max = match list.next() {
            Some(span) => Some(self.constant(span)?),
            None => None,
        };
        let pad =
            u64::from(self.offset()).next_multiple_of(u64::from(bytes)) - u64::from(self.offset());
        if max.is_some_and(|m| pad as i64 > m) {
            return Ok(());
        }
        match fill {
            Some(byte) => {
                self.raise_alignment(bytes);
                self.fill(pad, byte, at)
            }
            None => self.pad_to(bytes, at),
        }
    }

    fn raise_alignment(&mut self, bytes: u32) {
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

    fn space(&mut self, d: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(count) = list.next() else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let fill = list.next();
        if let Some(extra) = list.next().or(if d == ".zero" { fill } else { None }) {
            return extra.err(AsmErrorKind::UnexpectedToken {
                expected: "end of statement",
            });
        }
        let n = self.constant(count)?;
        let max = self.capacity as i64;
        if !(0..=max).contains(&n) {
            return count.err(AsmErrorKind::ImmediateOutOfRange {
                operand: 1,
                value: n,
                min: 0,
                max,
            });
        }
        let byte = match fill {
            Some(f) => self.byte_value(f, 2)?,
            None => 0,
        };
        self.fill(n as u64, byte, at)
    }

    /// A fill byte: -128..=255.
    fn byte_value(&self, span: Span<'_>, operand: u8) -> PResult<u8> {
        let v = self.constant(span)?;
        if !(-128..=255).contains(&v) {
            return span.err(AsmErrorKind::ImmediateOutOfRange {
                operand,
                value: v,
                min: -128,
                max: 255,
            });
        }
        Ok(v as u8)
    }

    /// `.fill repeat[, size[, value]]`: GNU `as` writes `value` big-endian in the first
    /// `min(size, 4)` bytes of each `size`-byte unit (size at most 8) and zeros after.
    fn fill_directive(&mut self, at: usize, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(repeat) = list.next() else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let repeat_value = self.constant(repeat)?;
        let size = match list.next() {
            Some(span) => {
                let size = self.constant(span)?;
                if !(0..=8).contains(&size) {
                    return span.err(AsmErrorKind::ImmediateOutOfRange {
                        operand: 2,
                        value: size,
                        min: 0,
                        max: 8,
                    });
                }
                size as usize
            }
            None => 1,
        };
        let value = match list.next() {
            Some(span) => self.constant(span)? as u32,
            None => 0,
        };
        let max = self.capacity as i64;
        if !(0..=max).contains(&repeat_value) || repeat_value * size as i64 > max {
            return repeat.err(AsmErrorKind::ImmediateOutOfRange {
                operand: 1,
                value: repeat_value,
                min: 0,
                max: max / (size.max(1) as i64),
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

    /// `.brinfo priority[, lrlive]`: checked like GNU `as` (priority 0..=0x1fff, lrlive
    /// 0..=7). Its bits go into the next branch's offset field, which a resolved target
    /// overwrites; in a flat image every target is resolved, so it changes no byte.
    fn brinfo(&mut self, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(priority) = list.next() else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let p = self.constant(priority)?;
        if !(0..=0x1fff).contains(&p) {
            return priority.err(AsmErrorKind::ImmediateOutOfRange {
                operand: 1,
                value: p,
                min: 0,
                max: 0x1fff,
            });
        }
        if let Some(lrlive) = list.next() {
            let l = self.constant(lrlive)?;
            if !(0..=7).contains(&l) {
                return lrlive.err(AsmErrorKind::ImmediateOutOfRange {
                    operand: 2,
                    value: l,
                    min: 0,
                    max: 7,
                });
            }
        }
        Ok(())
    }
}

fn expect_none(args: Span<'_>) -> PResult<()> {
    let args = args.trim();
    if args.text.is_empty() {
        Ok(())
    } else {
        args.err(AsmErrorKind::UnexpectedToken {
            expected: "end of statement",
        })
    }
}

/// `.text`/`.data` take an optional subsection number; only 0 is supported.
fn expect_subsection(args: Span<'_>) -> PResult<()> {
    let args = args.trim();
    if args.text.is_empty() || args.text == "0" {
        Ok(())
    } else {
        args.err(AsmErrorKind::UnexpectedToken {
            expected: "end of statement",
        })
    }
}

/// A lower-case copy of a directive name (directives are short; longer ones cannot match).
trait Lower {
    fn to_ascii_lowercase_owned(&self) -> heapless::String<24>;
}

impl Lower for str {
    fn to_ascii_lowercase_owned(&self) -> heapless::String<24> {
        let mut out = heapless::String::new();
        for c in self.chars() {
            if out.push(c.to_ascii_lowercase()).is_err() {
                out.clear();
                break;
            }
        }
        out
    }
}
