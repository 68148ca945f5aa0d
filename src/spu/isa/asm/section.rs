//! Sections and their place in local store, laid out the way a simple SPU link would: code
//! sections from address 0 in the order they first appear, then the data sections, then the
//! zero-initialised ones, each at a multiple of its largest alignment (at least 16 bytes, the
//! quadword the SPU loads and stores).

use super::error::AsmErrorKind;
use super::symbols::SymbolName;

/// Most sections one source may use (`.text`, `.data`, `.bss`, `.rodata`, named ones...).
pub const MAX_SECTIONS: usize = 16;

/// Alignment every section start gets at least.
pub(super) const SECTION_ALIGN: u32 = 16;

/// What a section holds, which decides where it goes and whether it has bytes in the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SectionKind {
    /// Code (`.text`, `.text.*`, `.init`, `.fini`, or flags with `x`): from address 0,
    /// alignment padding is `nop`/`lnop`.
    Code,
    /// Initialised data (`.data`, `.rodata`, anything else with contents).
    Data,
    /// Zero-initialised (`.bss`, `.sbss`, `@nobits`, `.lcomm`, `.comm`): addresses, no bytes.
    Bss,
}

/// One section: its name, kind and final place in local store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionInfo {
    /// The name as written (`.text`, `.data`, ...).
    pub name: SymbolName,
    /// Code, data or zero-initialised.
    pub kind: SectionKind,
    /// Local-store address of its first byte.
    pub address: u32,
    /// Size in bytes.
    pub size: u32,
    /// Largest alignment asked for in it (at least 16).
    pub align: u32,
}

/// The kind a section gets from its name when no flags say otherwise (GNU `as` ELF rules).
pub(super) fn kind_from_name(name: &str) -> SectionKind {
    let starts = |prefix: &str| {
        name == prefix || name.starts_with(prefix) && name[prefix.len()..].starts_with('.')
    };
    if starts(".text") || starts(".init") || starts(".fini") {
        SectionKind::Code
    } else if starts(".bss") || starts(".sbss") || starts(".tbss") {
        SectionKind::Bss
    } else {
        SectionKind::Data
    }
}

/// The section table while assembling: sizes grow as statements are read.
#[derive(Clone, Debug)]
pub(super) struct Sections {
    pub list: heapless::Vec<SectionInfo, MAX_SECTIONS>,
}

impl Sections {
    pub const fn new() -> Self {
        Sections {
            list: heapless::Vec::new(),
        }
    }

    /// The index of `name`, created with `kind` (or its name's kind) when new.
    pub fn open(&mut self, name: &str, kind: Option<SectionKind>) -> Result<u8, AsmErrorKind> {
        if let Some(i) = self.list.iter().position(|s| s.name == name) {
            return Ok(i as u8);
        }
        let info = SectionInfo {
            name: SymbolName::new(name)?,
            kind: kind.unwrap_or_else(|| kind_from_name(name)),
            address: 0,
            size: 0,
            align: SECTION_ALIGN,
        };
        self.list
            .push(info)
            .map_err(|_| AsmErrorKind::TooManySections {
                capacity: MAX_SECTIONS,
            })?;
        Ok((self.list.len() - 1) as u8)
    }

    pub fn get(&self, index: u8) -> Option<&SectionInfo> {
        self.list.get(usize::from(index))
    }

    pub fn get_mut(&mut self, index: u8) -> Option<&mut SectionInfo> {
        self.list.get_mut(usize::from(index))
    }

    /// Gives every section its address; returns (end of code, start of data, end of data,
    /// end of everything) in bytes.
    pub fn layout(&mut self) -> Layout {
        let mut next: u64 = 0;
        let mut layout = Layout::default();
        for kind in [SectionKind::Code, SectionKind::Data, SectionKind::Bss] {
            if kind == SectionKind::Data {
                layout.text_end = next;
            }
            for section in self.list.iter_mut().filter(|s| s.kind == kind) {
                if section.size == 0 && section.kind != SectionKind::Code {
                    // An empty section takes no room and moves nothing (GNU ld drops it).
                    section.address = next.min(u64::from(u32::MAX)) as u32;
                    continue;
                }
                next = next.next_multiple_of(u64::from(section.align));
                section.address = next.min(u64::from(u32::MAX)) as u32;
                if kind == SectionKind::Data && layout.data_start.is_none() {
                    layout.data_start = Some(next);
                }
                next += u64::from(section.size);
            }
            if kind == SectionKind::Data {
                layout.data_end = next;
            }
        }
        layout.end = next;
        layout
    }
}

/// Where the groups of sections ended up (see [`Sections::layout`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Layout {
    pub text_end: u64,
    pub data_start: Option<u64>,
    pub data_end: u64,
    pub end: u64,
}
