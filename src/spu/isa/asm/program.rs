//! What assembling and linking make: the image's layout and its symbols.

use super::layout::OutputSection;
use super::linker_symbols::{LinkerSymbol, MAX_LINKER_SYMBOLS};
use super::section::SectionInfo;
use super::symbols::SymbolTable;

/// Most sections of all the sources of a link together.
pub const MAX_PROGRAM_SECTIONS: usize = 48;
/// Most output sections of a link.
pub const MAX_OUTPUT_SECTIONS: usize = 24;

/// The result of [`assemble`](super::assemble) and [`link`](super::link).
#[derive(Clone, Debug)]
pub struct Program<const SYMS: usize> {
    /// Bytes of the image used: `image[..len]` is the program, up to the end of the last
    /// section with bytes (zero-initialised sections have none).
    pub len: usize,
    /// End of the text segment, from address 0: the code sections and the read-only data
    /// ld puts with them (`.rodata`).
    pub text_len: usize,
    /// Start of the data segment: where ld puts the first data section, at or after
    /// `ALIGN(0x80)` past the text; that address when there is none.
    pub data_start: usize,
    /// Bytes from `data_start` to the end of the image (0 without data).
    pub data_len: usize,
    /// Entry point: the global `_start` (ld's `ENTRY(_start)`), else the start of `.text`,
    /// else 0.
    pub entry: u32,
    /// Whether a global `_start` gave the entry point; without one ld warns "cannot find
    /// entry symbol _start; defaulting to" the start of `.text`.
    pub entry_defined: bool,
    /// The number of sources linked.
    pub files: u16,
    /// Every input section of every source with its place in local store (see the layout module for
    /// where ld puts each), by source, each source's in the order they first appear.
    pub sections: heapless::Vec<SectionInfo, MAX_PROGRAM_SECTIONS>,
    /// The output sections ld makes of them, in address order: those with bytes or room.
    pub output_sections: heapless::Vec<OutputSection, MAX_OUTPUT_SECTIONS>,
    /// Every symbol of every source with its address or value.
    pub symbols: SymbolTable<SYMS>,
    /// The symbols the link defines: ld's script's and the link definitions (`--defsym`).
    pub linker_symbols: heapless::Vec<LinkerSymbol, MAX_LINKER_SYMBOLS>,
}

impl<const SYMS: usize> Program<SYMS> {
    /// Address of the symbol `name` (e.g. to set a breakpoint): a global definition first,
    /// else the first source's, else one the link defines.
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.symbols.get(name).or_else(|| {
            self.linker_symbols
                .iter()
                .find(|s| s.in_output && s.name == name)
                .map(|s| s.value)
        })
    }

    /// The (first) input section called `name`.
    pub fn section(&self, name: &str) -> Option<&SectionInfo> {
        self.sections.iter().find(|s| s.name == name)
    }
}
