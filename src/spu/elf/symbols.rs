//! The `.symtab` of an SPU ELF file: names for local-store addresses.

use elf::ElfBytes;
use elf::abi;
use elf::endian::BigEndian;
use elf::file::Class;
use elf::symbol::{Symbol, SymbolTable};

use super::error::{ElfError, ElfPart, NameProblem};
use super::format::{MAX_NAME_LEN, SYMBOL_BYTES};
use crate::spu::isa::SymbolLookup;

/// What a symbol names (`STT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// `STT_NOTYPE`: a plain label (what the assembler writes).
    Label,
    /// `STT_OBJECT`: data.
    Object,
    /// `STT_FUNC`: code.
    Function,
}

/// A defined, named symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfSymbol<'data> {
    /// Its name, borrowed from the string table.
    pub name: &'data str,
    /// `st_value`: the local-store address it names.
    pub address: u32,
    /// `st_size` (0 for a label).
    pub size: u32,
    /// `STT_NOTYPE`, `STT_OBJECT` or `STT_FUNC`.
    pub kind: SymbolKind,
}

/// The symbols of a checked file (every name was readable when it was parsed).
///
/// Only defined symbols of kind label, object or function with a non-empty name take part in
/// look-ups; section, file and undefined symbols do not name addresses. Look-ups are linear
/// searches: the tables of SPU programs are small, and nothing is allocated.
#[derive(Clone, Debug)]
pub struct ElfSymbols<'data> {
    table: SymbolTable<'data, BigEndian>,
    strings: &'data [u8],
}

impl<'data> ElfSymbols<'data> {
    /// No symbols.
    pub fn empty() -> Self {
        ElfSymbols {
            table: SymbolTable::new(BigEndian, Class::ELF32, &[]),
            strings: &[],
        }
    }

    /// The file's `.symtab` (the first `SHT_SYMTAB` section) and its string table, every name
    /// checked; no symbols when the file has no symbol table.
    pub(super) fn parse(
        file: &ElfBytes<'data, BigEndian>,
        data: &'data [u8],
    ) -> Result<Self, ElfError> {
        let Some(sections) = file.section_headers() else {
            return Ok(Self::empty());
        };
        let Some(symtab) = sections.iter().find(|s| s.sh_type == abi::SHT_SYMTAB) else {
            return Ok(Self::empty());
        };
        if symtab.sh_entsize != SYMBOL_BYTES as u64 {
            return Err(ElfError::BadEntrySize {
                part: ElfPart::SymbolTable,
                found: symtab.sh_entsize,
                expected: SYMBOL_BYTES as u64,
            });
        }
        if symtab.sh_size % SYMBOL_BYTES as u64 != 0 {
            return Err(ElfError::BadSymbolTableSize {
                size: symtab.sh_size,
            });
        }
        let table_bytes =
            section_bytes(ElfPart::SymbolTable, symtab.sh_offset, symtab.sh_size, data)?;
        let bad_link = ElfError::BadSymbolTableLink {
            link: symtab.sh_link,
        };
        let strtab = usize::try_from(symtab.sh_link)
            .ok()
            .filter(|&link| link != 0)
            .and_then(|link| sections.get(link).ok())
            .filter(|s| s.sh_type == abi::SHT_STRTAB)
            .ok_or(bad_link)?;
        let strings = section_bytes(ElfPart::StringTable, strtab.sh_offset, strtab.sh_size, data)?;
        let symbols = ElfSymbols {
            table: SymbolTable::new(BigEndian, Class::ELF32, table_bytes),
            strings,
        };
        for (index, symbol) in symbols.table.iter().enumerate() {
            symbols
                .name(symbol.st_name)
                .map_err(|problem| ElfError::BadSymbolName {
                    symbol: index,
                    offset: symbol.st_name,
                    problem,
                })?;
        }
        Ok(symbols)
    }

    /// The name at `offset` in the string table.
    fn name(&self, offset: u32) -> Result<&'data str, NameProblem> {
        // Offset 0 is the empty name, also in an empty table (gABI).
        if offset == 0 && self.strings.is_empty() {
            return Ok("");
        }
        let rest = usize::try_from(offset)
            .ok()
            .and_then(|start| self.strings.get(start..))
            .filter(|rest| !rest.is_empty())
            .ok_or(NameProblem::OffsetOutside)?;
        let searched = rest.get(..MAX_NAME_LEN + 1).unwrap_or(rest);
        let Some(len) = searched.iter().position(|&byte| byte == 0) else {
            return Err(if searched.len() > MAX_NAME_LEN {
                NameProblem::TooLong
            } else {
                NameProblem::MissingNul
            });
        };
        let bytes = rest.get(..len).unwrap_or_default();
        core::str::from_utf8(bytes).map_err(|_| NameProblem::NotUtf8)
    }

    /// The symbol an entry describes, when it names an address.
    fn naming(&self, symbol: &Symbol) -> Option<ElfSymbol<'data>> {
        let kind = match symbol.st_symtype() {
            abi::STT_NOTYPE => SymbolKind::Label,
            abi::STT_OBJECT => SymbolKind::Object,
            abi::STT_FUNC => SymbolKind::Function,
            _ => return None,
        };
        // An absolute symbol without a type is an assembler value (`.set K, 5`), not a
        // local-store address; a typed one (an object or function placed by a linker script)
        // is an address.
        let value = symbol.st_shndx == abi::SHN_ABS && kind == SymbolKind::Label;
        if symbol.is_undefined() || symbol.st_shndx == abi::SHN_COMMON || value {
            return None;
        }
        let name = self.name(symbol.st_name).ok().filter(|n| !n.is_empty())?;
        Some(ElfSymbol {
            name,
            address: u32::try_from(symbol.st_value).ok()?,
            size: u32::try_from(symbol.st_size).unwrap_or(u32::MAX),
            kind,
        })
    }

    /// The symbols that name addresses, in table order.
    pub fn iter(&self) -> impl Iterator<Item = ElfSymbol<'data>> + '_ {
        self.table.iter().filter_map(|symbol| self.naming(&symbol))
    }

    /// Number of symbols that name addresses.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// `true` when no symbol names an address.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// The address of the symbol called `name` (e.g. to set a breakpoint).
    pub fn address_of(&self, name: &str) -> Option<u32> {
        self.iter().find(|s| s.name == name).map(|s| s.address)
    }

    /// The symbol `pc` lies in, and its offset there: a symbol with a size that covers `pc`,
    /// else the closest symbol at or below `pc` (a label has no size: its code runs to the
    /// next one).
    pub fn containing(&self, pc: u32) -> Option<(ElfSymbol<'data>, u32)> {
        let sized = self
            .iter()
            .find(|s| s.size > 0 && pc >= s.address && pc - s.address < s.size);
        let symbol = sized.or_else(|| self.nearest_at_or_below(pc))?;
        Some((symbol, pc - symbol.address))
    }

    /// The symbol with the highest address not above `address` (the first in table order
    /// among several there).
    fn nearest_at_or_below(&self, address: u32) -> Option<ElfSymbol<'data>> {
        self.iter().filter(|s| s.address <= address).fold(
            None,
            |best: Option<ElfSymbol<'data>>, s| match best {
                Some(b) if b.address >= s.address => Some(b),
                _ => Some(s),
            },
        )
    }
}

impl SymbolLookup for ElfSymbols<'_> {
    /// The first symbol in table order that names `address`.
    fn symbol_at(&self, address: u32) -> Option<&str> {
        self.iter().find(|s| s.address == address).map(|s| s.name)
    }

    /// The nearest symbol at or below `address`, as objdump names a branch target
    /// (`<loop+0x4>`): by address alone, unlike [`containing`](Self::containing), which
    /// prefers a sized symbol that covers it.
    fn symbol_before(&self, address: u32) -> Option<(&str, u32)> {
        self.nearest_at_or_below(address)
            .map(|symbol| (symbol.name, symbol.address))
    }
}

/// The bytes `offset .. offset + size` of a section, which must lie inside the file.
fn section_bytes(part: ElfPart, offset: u64, size: u64, data: &[u8]) -> Result<&[u8], ElfError> {
    let end = offset.saturating_add(size);
    usize::try_from(offset)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(start, end)| data.get(start..end))
        .ok_or(ElfError::Truncated {
            part,
            needs_end: end,
            file_len: data.len(),
        })
}
