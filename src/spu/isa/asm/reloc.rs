//! `.reloc OFFSET, NAME[, EXPRESSION]`: a relocation gas records in the object for ld.
//!
//! This assembler writes the linked image, so a relocation is taken only where ld's change
//! to the bytes does not depend on an address it alone knows:
//! - `SPU_NONE` (also `BFD_RELOC_NONE`): ld does nothing with it;
//! - `SPU_ADD_PIC`: ld rewrites the instruction at OFFSET (an `a rt,ra,rb`) into
//!   `ai rt,ra,0` when its symbol is a global one no object defines, a weak name nobody
//!   defines (`elf32-spu.c`, `spu_elf_relocate_section`: bytes 0x1c, 0x00, byte 2 `& 0x3f`);
//!   the link does the same once every source is assembled.
//!
//! Any other SPU relocation would have ld write an address into the bytes: it is refused,
//! naming it. The offset must lie inside its section or at its end, as gas requires ("reloc
//! not within (fixed part of) section"); gas also refuses an offset inside the padding of an
//! alignment, which is taken here. The expression must be one gas could evaluate.

use super::error::AsmErrorKind;
use super::expr::expression;
use super::pass::{MAX_PIC_PATCHES, Pass, name};
use super::text::{Located, PResult, Span, err, ident_len, operands};

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
        let symbol = parts.next();
        if let Some(symbol) = symbol {
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
        if reloc.text.eq_ignore_ascii_case("SPU_ADD_PIC")
            && symbol.is_some_and(|s| self.defined_by_nobody(s.trim().text))
        {
            let address = u32::try_from(i64::from(info.address) + within).unwrap_or(u32::MAX);
            self.pic_patches.push(address).map_err(|_| Located {
                offset: reloc.offset,
                kind: AsmErrorKind::TooManySymbols {
                    capacity: MAX_PIC_PATCHES,
                },
            })?;
        }
        Ok(())
    }

    /// Whether the symbol an expression starts with is global and defined by no source and
    /// not by the link (a weak name nobody defines).
    fn defined_by_nobody(&self, expression: &str) -> bool {
        let name = expression.get(..ident_len(expression)).unwrap_or("");
        if name.is_empty() || self.symbols.find(name).is_some_and(|s| s.defined_here) {
            return false;
        }
        let linker = self.linker;
        self.symbols.global(name).is_none()
            && linker.and_then(|l| l.assigned(name)).is_none()
            && linker.and_then(|l| l.provided(name)).is_none()
    }
}

/// `SPU_ADD_PIC`'s rewrite of the instruction at `address`: `a rt,ra,rb` into `ai rt,ra,0`.
pub(super) fn add_pic(image: &mut [u8], address: u32) {
    let address = address as usize;
    if let Some([op, high, middle, _]) = image.get_mut(address..address + 4) {
        *op = 0x1c;
        *high = 0x00;
        *middle &= 0x3f;
    }
}
