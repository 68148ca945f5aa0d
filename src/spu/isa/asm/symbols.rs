//! Labels: where they were defined (section, offset) and their final addresses.

use crate::spu::isa::disasm::SymbolLookup;

/// Which section a statement assembles into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Section {
    /// Code, from address 0.
    Text,
    /// Data, after the text at a 16-byte boundary.
    Data,
}

/// One label and its final address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol<'src> {
    /// Label name as written.
    pub name: &'src str,
    /// Address in the image (local store address when the image is loaded at 0).
    pub address: u32,
    pub(super) section: Section,
    pub(super) offset: usize,
}

/// Fixed-capacity symbol table (`N` labels at most).
#[derive(Clone, Debug)]
pub struct SymbolTable<'src, const N: usize> {
    pub(super) entries: heapless::Vec<Symbol<'src>, N>,
}

impl<'src, const N: usize> SymbolTable<'src, N> {
    /// An empty table.
    pub const fn new() -> Self {
        SymbolTable {
            entries: heapless::Vec::new(),
        }
    }

    /// Address of the label `name`.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.find(name).map(|s| s.address)
    }

    pub(super) fn find(&self, name: &str) -> Option<&Symbol<'src>> {
        self.entries.iter().find(|s| s.name == name)
    }

    /// All labels in definition order.
    pub fn iter(&self) -> impl Iterator<Item = &Symbol<'src>> {
        self.entries.iter()
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` when no label is defined.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<const N: usize> Default for SymbolTable<'_, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> SymbolLookup for SymbolTable<'_, N> {
    /// The first label defined at `address`.
    fn symbol_at(&self, address: u32) -> Option<&str> {
        self.entries
            .iter()
            .find(|s| s.address == address)
            .map(|s| s.name)
    }
}
