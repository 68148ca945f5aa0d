//! Symbols: labels (a section and an offset in it), absolute values (`sym = expr`, `.set`,
//! `.equ`), numeric local labels, and their final addresses; how a symbol was defined, and the
//! zero-initialised ones (`.lcomm`, `.comm`) with their places.

use super::error::AsmErrorKind;
pub use super::symbol_attributes::{
    Binding, FILE_SYMBOL_MARK, SymbolAttributes, SymbolType, Visibility,
};
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
    /// The empty name.
    pub const EMPTY: SymbolName = SymbolName {
        bytes: [0; MAX_NAME],
        len: 0,
    };

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
    /// Label or absolute value ([`SymbolValue::Unresolved`] for a name the source only
    /// declares, such as `.global printf` without a definition).
    pub value: SymbolValue,
    /// The source it belongs to: its index in the sources given to
    /// [`link`](super::link) (0 for [`assemble`](super::assemble)).
    pub file: u16,
    /// Its binding, its ELF type and size, its visibility: what `.global`, `.weak`, `.type`,
    /// `.size`, `.hidden`... said of it.
    pub attributes: SymbolAttributes,
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
    /// The source defines it somewhere (seen in the first pass): a name it only uses or
    /// declares is resolved by the link, against the other sources' global symbols.
    pub(super) defined_here: bool,
    /// The source line of its first definition, for errors the link finds.
    pub(super) line: u32,
    /// The link chose this entry as the definition of its global name (see
    /// [`Symbol::is_link_definition`]).
    pub(super) chosen: bool,
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

    /// Whether this is the definition the link chose for a global name: a global definition,
    /// else a weak one, else the first of the merged common symbols, unless the link assigns
    /// the name itself (`--defsym`, the script's `_end`). Each global name has at most one.
    pub fn is_link_definition(&self) -> bool {
        self.chosen
    }

    /// Whether the source defines it (a label or a value), rather than only naming it.
    pub fn is_defined(&self) -> bool {
        self.defined_here && self.value != SymbolValue::Unresolved
    }

    /// A symbol as the first pass meets it: named, not defined yet.
    pub(super) fn declared(name: SymbolName, file: u16) -> Symbol {
        Symbol {
            name,
            address: 0,
            value: SymbolValue::Unresolved,
            file,
            attributes: SymbolAttributes::LOCAL,
            defined: false,
            variable: false,
            late: false,
            first: SymbolValue::Unresolved,
            defined_here: false,
            line: 0,
            chosen: false,
        }
    }
}

/// Fixed-capacity symbol table (`N` symbols at most), holding the symbols of every source of
/// a link, each source's together in its order.
#[derive(Clone, Debug)]
pub struct SymbolTable<const N: usize> {
    pub(super) entries: heapless::Vec<Symbol, N>,
    /// The entries of the source being assembled: names are looked up among these (a
    /// source's local symbols are its own). Past the last entry when the view is open, so
    /// new symbols join it.
    pub(super) view: core::ops::Range<usize>,
    /// When each symbol was first named in its source's second pass (0: never), in one
    /// count across the sources: the order GNU `as` creates symbols in, which is the order of
    /// its object's symbol table.
    created: [core::cell::Cell<u32>; N],
    /// The last value of `created` given.
    creations: core::cell::Cell<u32>,
}

impl<const N: usize> SymbolTable<N> {
    /// An empty table.
    pub const fn new() -> Self {
        SymbolTable {
            entries: heapless::Vec::new(),
            view: 0..usize::MAX,
            created: [const { core::cell::Cell::new(0) }; N],
            creations: core::cell::Cell::new(0),
        }
    }

    /// Records that the symbol at `index` was named (first time only).
    pub(super) fn touch(&self, index: usize) {
        if let Some(created) = self.created.get(index)
            && created.get() == 0
        {
            let next = self.creations.get().saturating_add(1);
            self.creations.set(next);
            created.set(next);
        }
    }

    /// When the symbol at `index` was first named in its source (the order of GNU `as`'s
    /// symbol table); 0 when it never was in a second pass.
    pub fn creation(&self, index: usize) -> u32 {
        self.created.get(index).map_or(0, core::cell::Cell::get)
    }

    /// Address of the symbol `name` (labels: their local-store address): the global
    /// definition when there is one, else the first source's that defines it.
    pub fn get(&self, name: &str) -> Option<u32> {
        let mut defined = self
            .entries
            .iter()
            .filter(|s| s.name == name && s.is_defined());
        let first = defined.clone().next();
        defined
            .find(|s| s.attributes.binding != Binding::Local)
            .or(first)
            .map(|s| s.address)
    }

    /// The symbols of the source in view.
    fn in_view(&self) -> &[Symbol] {
        let end = self.view.end.min(self.entries.len());
        self.entries.get(self.view.start..end).unwrap_or(&[])
    }

    pub(super) fn find(&self, name: &str) -> Option<&Symbol> {
        self.in_view().iter().find(|s| s.name == name)
    }

    pub(super) fn find_mut(&mut self, name: &str) -> Option<&mut Symbol> {
        let index = self.position(name)?;
        self.entries.get_mut(index)
    }

    /// The index of `name` (in the whole table) among the source's symbols.
    pub(super) fn position(&self, name: &str) -> Option<usize> {
        self.in_view()
            .iter()
            .position(|s| s.name == name)
            .map(|i| i + self.view.start)
    }

    /// The source's symbols.
    pub(super) fn view_mut(&mut self) -> &mut [Symbol] {
        let end = self.view.end.min(self.entries.len());
        self.entries
            .get_mut(self.view.start..end)
            .unwrap_or(&mut [])
    }

    /// The definition other sources see of `name`: a global symbol of another source that
    /// defines it, else a weak one, else a common one (ld's precedence).
    pub(super) fn global(&self, name: &str) -> Option<&Symbol> {
        let mut best: Option<(u8, &Symbol)> = None;
        for (index, symbol) in self.entries.iter().enumerate() {
            if self.view.contains(&index) || symbol.name != name || !symbol.is_defined() {
                continue;
            }
            let rank = match (symbol.attributes.binding, symbol.attributes.common) {
                (Binding::Local, _) => continue,
                (_, true) => 2,
                (Binding::Weak, false) => 1,
                (Binding::Global, false) => 0,
            };
            if best.is_none_or(|(known, _)| rank < known) {
                best = Some((rank, symbol));
            }
        }
        best.map(|(_, symbol)| symbol)
    }

    /// Adds a symbol to the source in view; the source must not hold `name` yet. Only the
    /// last source's view takes new symbols (the link's second pass defines no new ones).
    pub(super) fn insert(&mut self, symbol: Symbol) -> Result<usize, AsmErrorKind> {
        if self.view.end < self.entries.len() {
            return Err(AsmErrorKind::TooManySymbols { capacity: N });
        }
        self.entries
            .push(symbol)
            .map_err(|_| AsmErrorKind::TooManySymbols { capacity: N })?;
        Ok(self.entries.len() - 1)
    }

    /// The symbol at `index` (of [`SymbolTable::iter`]'s order).
    pub fn entry(&self, index: usize) -> Option<&Symbol> {
        self.entries.get(index)
    }

    /// All symbols in definition order.
    pub fn iter(&self) -> core::slice::Iter<'_, Symbol> {
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
    pub symbol: u32,
    /// Bytes.
    pub size: u32,
    /// Bytes, a power of two.
    pub align: u32,
    /// `.lcomm`/`.bss`: in `.bss`; `.comm`: in `COMMON`.
    pub local: bool,
    /// Offset in its section, once placed.
    pub offset: u32,
}
