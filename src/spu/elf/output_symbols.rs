//! The symbol table of a linked program, in the order spu-ld 2.40 writes it (bfd
//! `elf_link_output_extsym` and `elf_link_input_bfd`):
//!
//! 1. the null symbol;
//! 2. a section symbol per output section, `.note.spu_name` included;
//! 3. for each source with local symbols, an `STT_FILE` symbol named after its object file,
//!    then its local symbols in the order GNU `as` created them (first named), without the
//!    assembler's local labels (`.L` names, `1:`);
//! 4. the script's `PROVIDE_HIDDEN` symbols a source used, made local by ld, in the order of
//!    its hash table (below);
//! 5. the global symbols (each name once: a strong definition, else a weak one, else the
//!    merged common symbol; and the link's own symbols) in the order of ld's global hash
//!    table: by bucket of `bfd_hash_hash` modulo 4051, the later created first within one.
//!    Without a global `_start` there is an undefined `_start` (ld's `ENTRY(_start)`).
//!
//! Symbols in sections that are not written (not allocated, such as `.comment`) are left out.

use elf::abi;

use crate::spu::isa::asm::{
    Binding, FILE_SYMBOL_MARK, LinkerDefinition, LinkerSymbol, MAX_LINKER_SYMBOLS, Program,
    SectionKind, Symbol, SymbolType, SymbolValue, Visibility, ld_hash_bucket,
};

/// One entry of the symbol table, by where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OutputSymbol {
    Null,
    /// The section symbol of section header `index` (1 up).
    Section(u16),
    /// The `STT_FILE` symbol of source `file`.
    File(u16),
    /// The program's symbol at this index of its table.
    Source(u32),
    /// The link's symbol at this index of the program's linker symbols.
    Linker(u8),
    /// The undefined `_start` of ld's `ENTRY(_start)`.
    UndefinedStart,
}

/// An entry's fields but its name ([`Context::name`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Fields {
    pub value: u32,
    pub size: u32,
    pub info: u8,
    pub other: u8,
    pub shndx: u16,
}

/// What the symbol table needs of the program besides itself.
#[derive(Clone, Copy)]
pub(super) struct Context<'a, const SYMS: usize> {
    pub program: &'a Program<SYMS>,
    /// The object file name of each source.
    pub objects: &'a [&'a str],
    /// Section headers of the output sections start at 1; `.note.spu_name`'s index.
    pub note_index: u16,
}

/// Whether a symbol is one GNU `as` keeps out of its object file.
fn assembler_local(symbol: &Symbol) -> bool {
    symbol.name.starts_with(".L") || symbol.name.contains('\u{2}')
}

impl<'a, const SYMS: usize> Context<'a, SYMS> {
    fn symbols(&self) -> impl Iterator<Item = (usize, &'a Symbol)> + Clone + use<'a, SYMS> {
        self.program.symbols.iter().enumerate()
    }

    /// The section header index of output section `output`.
    fn header(output: usize) -> u16 {
        u16::try_from(output + 1).unwrap_or(abi::SHN_ABS)
    }

    /// `st_shndx` of a source symbol: its output section, `SHN_ABS` for a value; `None` when
    /// it is in no written section (not allocated; or, for a local symbol, in a section ld
    /// dropped with its empty output section: ld leaves those out, and moves a global one to
    /// the section before).
    fn section_of(&self, symbol: &Symbol) -> Option<u16> {
        let SymbolValue::Label { section, .. } = symbol.value else {
            return Some(abi::SHN_ABS);
        };
        let program = self.program;
        let input = program
            .sections
            .iter()
            .filter(|s| s.file == symbol.file)
            .nth(usize::from(section));
        let Some(input) = input else {
            // An address in no section of its source: one another source defines.
            return Some(abi::SHN_ABS);
        };
        if input.kind == SectionKind::NotLoaded {
            return None;
        }
        if let Some(output) = input.output_section() {
            return Some(Self::header(output));
        }
        if symbol.attributes.binding == Binding::Local && !symbol.attributes.common {
            return None;
        }
        // An empty section whose output section ld dropped: the nearest one before it.
        let outputs = &program.output_sections;
        let nearby = outputs
            .iter()
            .rposition(|s| s.address <= symbol.address)
            .or((!outputs.is_empty()).then_some(0));
        Some(nearby.map_or(abi::SHN_ABS, Self::header))
    }

    /// Whether the program's symbol is the global symbol written for its name.
    fn represents(&self, symbol: &Symbol) -> bool {
        symbol.is_link_definition() && !assembler_local(symbol) && self.section_of(symbol).is_some()
    }

    fn is_local(&self, symbol: &Symbol) -> bool {
        symbol.is_defined()
            && symbol.attributes.binding == Binding::Local
            && !symbol.attributes.common
            && !assembler_local(symbol)
            && self.section_of(symbol).is_some()
    }

    fn linker(&self) -> impl Iterator<Item = (usize, &'a LinkerSymbol)> + Clone + use<'a, SYMS> {
        self.program
            .linker_symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.in_output)
    }

    /// Whether ld writes an undefined `_start`: the entry symbol nobody defines globally.
    fn undefined_start(&self) -> bool {
        !self.program.entry_defined
    }

    /// The global symbols, unordered.
    fn globals(&self) -> impl Iterator<Item = OutputSymbol> + Clone + use<'a, SYMS> {
        let this = *self;
        let sources = self
            .symbols()
            .filter(move |(_, symbol)| this.represents(symbol))
            .map(|(index, _)| OutputSymbol::Source(index as u32));
        let linker = self
            .linker()
            .filter(|(_, s)| s.how != LinkerDefinition::ProvidedHidden)
            .map(|(index, _)| OutputSymbol::Linker(index as u8));
        let start = self
            .undefined_start()
            .then_some(OutputSymbol::UndefinedStart);
        sources.chain(linker).chain(start)
    }

    /// A global's place in ld's hash table traversal, as one number: its bucket, then the
    /// later created first.
    pub fn hash_key(&self, symbol: OutputSymbol) -> u64 {
        let bucket = ld_hash_bucket(self.name(symbol));
        let created = match symbol {
            OutputSymbol::Source(index) => self.program.symbols.creation(index as usize),
            // The link's symbols after every source's, in the script's order.
            OutputSymbol::Linker(index) => u32::MAX - MAX_LINKER_SYMBOLS as u32 + u32::from(index),
            _ => u32::MAX,
        };
        bucket << 32 | u64::from(u32::MAX - created)
    }

    /// Whether source `file` has a `.file` symbol (then ld makes no `STT_FILE` of its own).
    fn has_file_symbol(&self, file: u16) -> bool {
        self.symbols()
            .any(|(_, s)| s.file == file && s.attributes.kind == SymbolType::File)
    }

    /// The sources in the order ld writes their local symbols: as their input sections first
    /// come in the output sections with bytes (bfd's `elf_link_input_bfd` runs per input
    /// file when the link order first reaches one of its sections).
    fn for_each_file(&self, mut f: impl FnMut(u16)) {
        let program = self.program;
        let mut seen = 0u64;
        let mut visit = |file: u16, f: &mut dyn FnMut(u16)| {
            let bit = 1u64 << (file % 64);
            if seen & bit == 0 {
                seen |= bit;
                f(file);
            }
        };
        for (index, output) in program.output_sections.iter().enumerate() {
            if output.kind == SectionKind::Bss {
                continue;
            }
            for file in 0..program.files {
                if program
                    .sections
                    .iter()
                    .any(|s| s.file == file && s.output_section() == Some(index))
                {
                    visit(file, &mut f);
                }
            }
        }
    }

    /// The local entries, in the order of the symbol table (see the module documentation):
    /// `f` is called with each. Quadratic in the number of symbols (no allocation).
    pub fn for_each_local(&self, mut f: impl FnMut(OutputSymbol)) {
        f(OutputSymbol::Null);
        let outputs = self.program.output_sections.len();
        for index in 0..outputs {
            f(OutputSymbol::Section(Self::header(index)));
        }
        f(OutputSymbol::Section(self.note_index));
        self.for_each_file(|file| {
            let locals = || {
                self.symbols()
                    .filter(move |(_, s)| s.file == file && self.is_local(s))
            };
            if locals().next().is_none() {
                return;
            }
            if !self.has_file_symbol(file) {
                f(OutputSymbol::File(file));
            }
            // In creation order, the first `.file` symbol first (gas moves it to the front):
            // each time the next larger key.
            let first_file = locals()
                .filter(|(_, s)| s.attributes.kind == SymbolType::File)
                .map(|(i, _)| (self.program.symbols.creation(i), i))
                .min()
                .map(|(_, i)| i);
            let key = |(index, _): (usize, &Symbol)| {
                let created = self.program.symbols.creation(index);
                (Some(index) != first_file, created, index)
            };
            let mut last = None;
            while let Some(next) = locals()
                .map(key)
                .filter(|k| last.is_none_or(|l| *k > l))
                .min()
            {
                f(OutputSymbol::Source(next.2 as u32));
                last = Some(next);
            }
        });
        // ld makes the script's `PROVIDE_HIDDEN` symbols local, after the sources' local
        // ones, in its hash table's order.
        let mut last = None;
        while let Some((key, symbol)) = self
            .linker()
            .filter(|(_, s)| s.how == LinkerDefinition::ProvidedHidden)
            .map(|(index, _)| OutputSymbol::Linker(index as u8))
            .map(|symbol| (self.hash_key(symbol), symbol))
            .filter(|(key, _)| last.is_none_or(|l| *key > l))
            .min_by_key(|(key, _)| *key)
        {
            f(symbol);
            last = Some(key);
        }
    }

    /// The global entries, unordered (the writer sorts them by [`Context::hash_key`]).
    pub fn for_each_global(&self, f: impl FnMut(OutputSymbol)) {
        self.globals().for_each(f);
    }

    /// The number of local entries and of global ones.
    pub fn count(&self) -> (usize, usize) {
        let mut locals = 0;
        self.for_each_local(|_| locals += 1);
        (locals, self.globals().count())
    }

    /// The names of the entries, unordered (for the string table's size).
    pub fn names(&self) -> impl Iterator<Item = &'a str> + Clone + use<'a, SYMS> {
        let this = *self;
        let files = (0..self.program.files)
            .filter(move |&file| {
                this.symbols()
                    .any(|(_, s)| s.file == file && this.is_local(s))
                    && !this.has_file_symbol(file)
            })
            .map(move |file| this.object(file));
        let locals = self
            .symbols()
            .filter(move |(_, s)| this.is_local(s))
            .map(move |(index, _)| this.name(OutputSymbol::Source(index as u32)));
        let hidden = self
            .linker()
            .filter(|(_, s)| s.how == LinkerDefinition::ProvidedHidden)
            .map(|(_, s)| s.name.as_str());
        let globals = self.globals().map(move |g| this.name(g));
        files.chain(locals).chain(hidden).chain(globals)
    }

    /// The name of `symbol` (the fields' name, without the rest).
    pub fn name(&self, symbol: OutputSymbol) -> &'a str {
        match symbol {
            OutputSymbol::Null | OutputSymbol::Section(_) => "",
            OutputSymbol::File(file) => self.object(file),
            OutputSymbol::Source(index) => {
                self.program.symbols.entry(index as usize).map_or("", |s| {
                    let name = s.name.as_str();
                    name.strip_prefix(FILE_SYMBOL_MARK).unwrap_or(name)
                })
            }
            OutputSymbol::Linker(index) => self
                .program
                .linker_symbols
                .get(usize::from(index))
                .map_or("", |s| s.name.as_str()),
            OutputSymbol::UndefinedStart => "_start",
        }
    }

    fn object(&self, file: u16) -> &'a str {
        self.objects.get(usize::from(file)).copied().unwrap_or("")
    }

    /// The fields of `symbol`.
    pub fn fields(&self, symbol: OutputSymbol) -> Fields {
        let info = |binding: u8, kind: u8| (binding << 4) | kind;
        let empty = Fields {
            value: 0,
            size: 0,
            info: 0,
            other: 0,
            shndx: 0,
        };
        match symbol {
            OutputSymbol::Null => empty,
            OutputSymbol::Section(index) => {
                let outputs = &self.program.output_sections;
                let value = outputs
                    .get(usize::from(index).wrapping_sub(1))
                    .map_or(0, |s| s.address);
                Fields {
                    value,
                    info: info(abi::STB_LOCAL, abi::STT_SECTION),
                    shndx: index,
                    ..empty
                }
            }
            OutputSymbol::File(_) => Fields {
                info: info(abi::STB_LOCAL, abi::STT_FILE),
                shndx: abi::SHN_ABS,
                ..empty
            },
            OutputSymbol::Source(index) => {
                let Some(symbol) = self.program.symbols.entry(index as usize) else {
                    return empty;
                };
                self.source_fields(symbol)
            }
            OutputSymbol::Linker(index) => {
                let Some(symbol) = self.program.linker_symbols.get(usize::from(index)) else {
                    return empty;
                };
                // ld forces a `PROVIDE_HIDDEN` symbol local (and default visibility).
                let binding = if symbol.how == LinkerDefinition::ProvidedHidden {
                    abi::STB_LOCAL
                } else {
                    abi::STB_GLOBAL
                };
                Fields {
                    value: symbol.value,
                    info: info(binding, abi::STT_NOTYPE),
                    other: 0,
                    shndx: symbol
                        .section
                        .map_or(abi::SHN_ABS, |s| Self::header(usize::from(s))),
                    ..empty
                }
            }
            OutputSymbol::UndefinedStart => Fields {
                info: info(abi::STB_GLOBAL, abi::STT_NOTYPE),
                ..empty
            },
        }
    }

    fn source_fields(&self, symbol: &'a Symbol) -> Fields {
        let attributes = symbol.attributes;
        let binding = match (self.is_local(symbol), attributes.binding) {
            (true, _) => abi::STB_LOCAL,
            (false, Binding::Weak) => abi::STB_WEAK,
            (false, _) => abi::STB_GLOBAL,
        };
        let kind = match attributes.kind {
            SymbolType::NoType => abi::STT_NOTYPE,
            SymbolType::Object => abi::STT_OBJECT,
            SymbolType::Function => abi::STT_FUNC,
            SymbolType::Tls => abi::STT_TLS,
            SymbolType::File => abi::STT_FILE,
        };
        let other = match attributes.visibility {
            Visibility::Default => abi::STV_DEFAULT,
            Visibility::Internal => abi::STV_INTERNAL,
            Visibility::Hidden => abi::STV_HIDDEN,
            Visibility::Protected => abi::STV_PROTECTED,
        };
        // A merged common symbol has the largest size asked for.
        let size = if attributes.common {
            self.symbols()
                .filter(|(_, s)| s.name == symbol.name && s.attributes.common)
                .map(|(_, s)| s.attributes.size)
                .max()
                .unwrap_or(attributes.size)
        } else {
            attributes.size
        };
        let value = match symbol.value {
            SymbolValue::Absolute(value) => value as u32,
            _ => symbol.address,
        };
        Fields {
            value,
            size,
            info: (binding << 4) | kind,
            other,
            shndx: self.section_of(symbol).unwrap_or(abi::SHN_ABS),
        }
    }
}
