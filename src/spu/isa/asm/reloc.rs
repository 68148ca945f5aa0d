//! `.reloc OFFSET, NAME[, EXPRESSION]`: a relocation gas records in the object for ld.
//!
//! This assembler writes the linked image, so a relocation is taken only where ld, linking
//! that image, leaves the bytes as they are:
//! - `SPU_NONE` (also `BFD_RELOC_NONE`): ld does nothing with it;
//! - `SPU_ADD_PIC`: ld rewrites the instruction at OFFSET into an `ai` only when its symbol is
//!   defined in no object (`elf32-spu.c`, `spu_elf_relocate_section`), and here every symbol
//!   is defined (an undefined one is an error).
//!
//! Any other SPU relocation would have ld write an address into the bytes: it is refused,
//! naming it. The offset must lie inside its section or at its end, as gas requires ("reloc
//! not within (fixed part of) section"); gas also refuses an offset inside the padding of an
//! alignment, which is taken here. The expression must be one gas could evaluate.

use super::error::AsmErrorKind;
use super::expr::expression;
use super::pass::{Pass, name};
use super::text::{PResult, Span, err, operands};

/// The relocations of `elf32-spu.c`'s howto table, by the names `.reloc` takes.
const SPU_RELOCATIONS: [&str; 18] = [
    "SPU_NONE",
    "SPU_ADDR10",
    "SPU_ADDR16",
    "SPU_ADDR16_HI",
    "SPU_ADDR16_LO",
    "SPU_ADDR18",
    "SPU_ADDR32",
    "SPU_REL16",
    "SPU_ADDR7",
    "SPU_REL9",
    "SPU_REL9I",
    "SPU_ADDR10I",
    "SPU_ADDR16I",
    "SPU_REL32",
    "SPU_ADDR16X",
    "SPU_PPU32",
    "SPU_PPU64",
    "SPU_ADD_PIC",
];

/// What `.reloc` does with a relocation named `name` (as gas, case-insensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// ld leaves the image's bytes as they are.
    NoEffect,
    /// ld would write into the bytes.
    ChangesBytes,
    /// Neither a howto name of the SPU table nor a `BFD_RELOC_` code.
    Unknown,
}

fn kind(name: &str) -> Kind {
    let is = |known: &str| name.eq_ignore_ascii_case(known);
    if is("SPU_NONE") || is("SPU_ADD_PIC") || is("BFD_RELOC_NONE") {
        Kind::NoEffect
    } else if SPU_RELOCATIONS.iter().any(|known| is(known))
        || name
            .get(..10)
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case("BFD_RELOC_"))
    {
        Kind::ChangesBytes
    } else {
        Kind::Unknown
    }
}

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// Checks a `.reloc` statement (its arguments `args`): see the module's rules.
    pub(super) fn reloc(&mut self, args: Span<'_>) -> PResult<()> {
        let mut parts = operands(args);
        let (Some(offset), Some(reloc)) = (parts.next(), parts.next()) else {
            let end = args.offset + args.text.len();
            return err(
                end,
                AsmErrorKind::UnexpectedToken {
                    expected: "an offset, `,` and a relocation name",
                },
            );
        };
        let reloc = reloc.trim();
        match kind(reloc.text) {
            Kind::NoEffect => {}
            Kind::ChangesBytes => {
                return reloc.err(AsmErrorKind::UnsupportedRelocation(name(reloc.text)));
            }
            Kind::Unknown => return reloc.err(AsmErrorKind::UnknownRelocation(name(reloc.text))),
        }
        if let Some(symbol) = parts.next() {
            expression(symbol, self)?;
        }
        if let Some(extra) = parts.next() {
            return extra.err(AsmErrorKind::UnexpectedToken {
                expected: "the end of the statement",
            });
        }
        let place = expression(offset, self)?;
        if !self.final_pass {
            return Ok(());
        }
        // An absolute offset counts from the current section's start; an address from its
        // own section's.
        let section = place.section.unwrap_or(self.current);
        let Some(info) = self.sections.get(section) else {
            return Ok(());
        };
        let start = if place.section.is_some() {
            i64::from(info.address)
        } else {
            0
        };
        let within = place.value - start;
        if within < 0 || within > i64::from(info.size) {
            return offset.trim().err(AsmErrorKind::RelocationOutsideSection);
        }
        Ok(())
    }
}
