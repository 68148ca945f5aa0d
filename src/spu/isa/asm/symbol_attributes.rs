//! What a source says of a symbol besides its value, as GNU `as` records it in the object
//! file's symbol table: its binding, its visibility, its ELF type and size (the directives
//! that say it are in `symbol_directives`). The binding decides what the link lets other
//! sources see; the rest goes into the ELF file's `.symtab`.

/// An ELF symbol binding (`STB_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Binding {
    /// Seen by its own source only (the default, and `.local`).
    #[default]
    Local,
    /// `.global`: seen by every source of the link; two definitions are an error.
    Global,
    /// `.weak`: seen by every source; a global definition elsewhere wins over it, and a weak
    /// name no source defines is 0.
    Weak,
}

/// An ELF symbol type (`STT_*`), from `.type`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SymbolType {
    /// `@notype` (the default).
    #[default]
    NoType,
    /// `@object`, also `.lcomm`, `.bss` and `.comm` symbols.
    Object,
    /// `@function`.
    Function,
    /// `@tls_object`.
    Tls,
    /// The source file's name, from `.file "name"` (`STT_FILE`; the symbol's name is
    /// [`FILE_SYMBOL_MARK`] and the file name).
    File,
}

/// The first character of the name of a `.file` symbol, which no written name has: the
/// source's own names never collide with a file name.
pub const FILE_SYMBOL_MARK: char = '\u{1}';

/// An ELF symbol visibility (`STV_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Visibility {
    /// The default.
    #[default]
    Default,
    /// `.internal`.
    Internal,
    /// `.hidden`: a global the link resolves, but that the linked file lists as local.
    Hidden,
    /// `.protected`.
    Protected,
}

/// What a source said of a symbol besides its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SymbolAttributes {
    /// `.global`, `.weak`, `.local`.
    pub binding: Binding,
    /// `.type`.
    pub kind: SymbolType,
    /// `.size` (or the size of a `.comm`/`.lcomm` symbol); 0 when not given.
    pub size: u32,
    /// `.hidden`, `.protected`, `.internal`.
    pub visibility: Visibility,
    /// Made by `.comm`: the link merges the common symbols of one name and places them in
    /// `COMMON`, unless a source defines the name.
    pub common: bool,
}

impl SymbolAttributes {
    /// A symbol nothing was said of.
    pub const LOCAL: SymbolAttributes = SymbolAttributes {
        binding: Binding::Local,
        kind: SymbolType::NoType,
        size: 0,
        visibility: Visibility::Default,
        common: false,
    };
}
