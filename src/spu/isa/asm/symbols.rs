//! Symbols: labels (a section and an offset in it), absolute values (`sym = expr`, `.set`,
//! `.equ`), numeric local labels, and their final addresses; how a symbol was defined, and the
//! zero-initialised ones (`.lcomm`, `.comm`) with their places.

use super::error::AsmErrorKind;
use crate::spu::isa::disasm::SymbolLookup;

/// Longest symbol or section name in bytes; longer names are an error, never truncated (two
/// long names cut to the same prefix would silently become one symbol).
pub const MAX_NAME: usize = 64;

/// A symbol name stored inline, so that names made by macro expansion need no heap.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SymbolName {
    bytes: [u8; MAX_NAME],
    len: u8,
}

impl SymbolName {
    /// Copies `text`, or fails with [`AsmErrorKind::NameTooLong`].
    pub fn new(text: &str) -> Result<SymbolName, AsmErrorKind> {
        if text.len() > MAX_NAME {
            return Err(AsmErrorKind::NameTooLong { limit: MAX_NAME });
        }
        let mut bytes = [0; MAX_NAME];
        if let Some(dst) = bytes.get_mut(..text.len()) {
            dst.copy_from_slice(text.as_bytes());
        }
        Ok(SymbolName {
            bytes,
            len: text.len() as u8,
        })
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        let bytes = self.bytes.get(..usize::from(self.len)).unwrap_or(&[]);
        core::str::from_utf8(bytes).unwrap_or("")
    }
}

impl core::fmt::Debug for SymbolName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl core::fmt::Display for SymbolName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::ops::Deref for SymbolName {
    type Target = str;

    /// The name, so a `SymbolName` reads like the `&str` it replaces.
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for SymbolName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SymbolName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What a symbol stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolValue {
    /// A label: an offset in a section (index into [`super::Program::sections`]).
    Label {
        /// Section index.
        section: u8,
        /// Byte offset from the start of the section.
        offset: u32,
    },
    /// An absolute value (`sym = expr`, `.set`, `.equ`, `.equiv`, `.eqv`).
    Absolute(i64),
    /// Assigned an expression that used a symbol not yet known (first pass only).
    Unresolved,
}

/// One symbol and its final address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The name as written (numeric local labels are stored as `N` followed by `\u{2}` and
    /// the instance number, as GNU `as` does, so they never collide with a written name).
    pub name: SymbolName,
    /// Local-store address (labels) or the value truncated to 32 bits (absolute symbols).
    pub address: u32,
    /// Label or absolute value.
    pub value: SymbolValue,
    /// Defined in the current pass (for `.ifdef`, `.equiv` and redefinition checks).
    pub(super) defined: bool,
    /// Assigned with `.set`, `.equ` or `=`: another assignment or a label may redefine it
    /// (gas's volatile symbols); uses before a redefinition keep the earlier value.
    pub(super) variable: bool,
    /// Assigned an expression gas could not fold where it was read (a symbol defined later
    /// in it): its uses are never constants where they are read.
    pub(super) late: bool,
    /// The value of the first definition of the first pass: the value a use before any
    /// definition takes in the second pass, as gas's fixups refer to the first definition.
    pub(super) first: SymbolValue,
}

impl Symbol {
    /// The section of a label.
    pub(super) fn value_section(&self) -> Option<u8> {
        match self.value {
            SymbolValue::Label { section, .. } => Some(section),
            _ => None,
        }
    }

    /// `true` for labels, `false` for absolute values.
    pub fn is_label(&self) -> bool {
        matches!(self.value, SymbolValue::Label { .. })
    }
}

/// Fixed-capacity symbol table (`N` symbols at most).
#[derive(Clone, Debug)]
pub struct SymbolTable<const N: usize> {
    pub(super) entries: heapless::Vec<Symbol, N>,
}

impl<const N: usize> SymbolTable<N> {
    /// An empty table.
    pub const fn new() -> Self {
        SymbolTable {
            entries: heapless::Vec::new(),
        }
    }

    /// Address of the symbol `name` (labels: their local-store address).
    pub fn get(&self, name: &str) -> Option<u32> {
        self.find(name).map(|s| s.address)
    }

    pub(super) fn find(&self, name: &str) -> Option<&Symbol> {
        self.entries.iter().find(|s| s.name == name)
    }

    pub(super) fn find_mut(&mut self, name: &str) -> Option<&mut Symbol> {
        self.entries.iter_mut().find(|s| s.name == name)
    }

    /// The index of `name` in definition order.
    pub(super) fn position(&self, name: &str) -> Option<usize> {
        self.entries.iter().position(|s| s.name == name)
    }

    /// The name of the symbol at `index`.
    pub(super) fn name_at(&self, index: usize) -> Option<&str> {
        self.entries.get(index).map(|s| s.name.as_str())
    }

    /// Adds a symbol; the table must not hold `name` yet.
    pub(super) fn insert(&mut self, symbol: Symbol) -> Result<(), AsmErrorKind> {
        self.entries
            .push(symbol)
            .map_err(|_| AsmErrorKind::TooManySymbols { capacity: N })
    }

    /// All symbols in definition order.
    pub fn iter(&self) -> impl Iterator<Item = &Symbol> {
        self.entries.iter()
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` when no symbol is defined.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<const N: usize> Default for SymbolTable<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> SymbolLookup for SymbolTable<N> {
    /// The first label defined at `address` (absolute symbols are not addresses).
    fn symbol_at(&self, address: u32) -> Option<&str> {
        self.entries
            .iter()
            .find(|s| s.is_label() && s.address == address && !s.name.as_str().contains('\u{2}'))
            .map(|s| s.name.as_str())
    }

    /// The nearest label at or below `address` (the first defined, among several at one
    /// address), as objdump names an address `<loop+0x4>`.
    fn symbol_before(&self, address: u32) -> Option<(&str, u32)> {
        self.entries
            .iter()
            .filter(|s| s.is_label() && s.address <= address && !s.name.as_str().contains('\u{2}'))
            .fold(None, |best: Option<&Symbol>, s| match best {
                Some(b) if b.address >= s.address => Some(b),
                _ => Some(s),
            })
            .map(|s| (s.name.as_str(), s.address))
    }
}

/// How a symbol is defined.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Definition {
    /// `name:`, `.lcomm`, `.comm`: an address, once (it may replace a volatile value).
    Label,
    /// `=`, `.set`, `.equ`: a volatile value, which later definitions may replace.
    Set,
    /// `.equiv`, `.eqv`, `==`: a value, once; an error if the symbol is already defined.
    Equiv,
}

/// Most `.lcomm`, `.bss` and `.comm` symbols one source may define.
pub const MAX_COMMONS: usize = 64;

/// One zero-initialised symbol and its place.
#[derive(Clone, Copy, Debug)]
pub(super) struct Common {
    /// Its symbol's index in the symbol table.
    pub symbol: usize,
    /// Bytes.
    pub size: u32,
    /// Bytes, a power of two.
    pub align: u32,
    /// `.lcomm`/`.bss`: in `.bss`; `.comm`: in `COMMON`.
    pub local: bool,
    /// Offset in its section, once placed.
    pub offset: u32,
}
