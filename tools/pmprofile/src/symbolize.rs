//! Addresses to function names: DWARF line and inline information through `addr2line`, the ELF
//! symbol table through `object` where DWARF has nothing, Rust names demangled without their
//! hash.

use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;

use object::{Object, ObjectSection, ObjectSymbol};

/// The label of an address no symbol covers.
pub const UNKNOWN: &str = "[unknown]";

/// One frame of an address: a function, inlined into the next frame or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The demangled function name (no hash), or [`UNKNOWN`].
    pub function: String,
    /// Source file, when the debug information has it.
    pub file: Option<String>,
    /// Source line, when the debug information has it.
    pub line: Option<u32>,
    /// Whether this frame is inlined into the next (outer) one.
    pub inlined: bool,
}

/// Why an ELF could not be loaded.
#[derive(Debug)]
pub enum SymbolizeError {
    /// Not an object file `object` can parse.
    Object(object::Error),
    /// Malformed DWARF.
    Dwarf(gimli::Error),
}

impl fmt::Display for SymbolizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Object(e) => write!(f, "not a readable ELF file: {e}"),
            Self::Dwarf(e) => write!(f, "malformed debug information: {e}"),
        }
    }
}

impl std::error::Error for SymbolizeError {}

type Reader = gimli::EndianRcSlice<gimli::RunTimeEndian>;

/// A function symbol of the ELF symbol table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSymbol {
    /// Start address.
    pub address: u64,
    /// Size in bytes (0 when the table does not say).
    pub size: u64,
    /// Demangled name without hash.
    pub name: String,
}

/// Turns a possibly mangled Rust (or other) symbol name into the readable form without hash.
pub fn demangle(name: &str) -> String {
    match rustc_demangle::try_demangle(name) {
        Ok(demangled) => format!("{demangled:#}"),
        Err(_) => name.to_string(),
    }
}

/// Symbolizes addresses of one ELF file.
pub struct Symbolizer {
    context: addr2line::Context<Reader>,
    /// Function symbols sorted by address.
    symbols: Vec<FunctionSymbol>,
    /// The executable sections: address and bytes.
    code: Vec<(u64, Vec<u8>)>,
}

impl Symbolizer {
    /// Parses `elf` (the whole file).
    pub fn new(elf: &[u8]) -> Result<Self, SymbolizeError> {
        let file = object::File::parse(elf).map_err(SymbolizeError::Object)?;
        let endian = if file.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
            let data = file
                .section_by_name(id.name())
                .and_then(|section| section.uncompressed_data().ok())
                .unwrap_or(Cow::Borrowed(&[]));
            Ok(gimli::EndianRcSlice::new(Rc::from(&*data), endian))
        };
        let dwarf = gimli::Dwarf::load(load).map_err(SymbolizeError::Dwarf)?;
        let context = addr2line::Context::from_dwarf(dwarf).map_err(SymbolizeError::Dwarf)?;
        let mut symbols: Vec<FunctionSymbol> = file
            .symbols()
            .filter(|symbol| symbol.kind() == object::SymbolKind::Text && symbol.address() != 0)
            .filter_map(|symbol| {
                let name = symbol.name().ok()?;
                Some(FunctionSymbol {
                    address: symbol.address(),
                    size: symbol.size(),
                    name: demangle(name),
                })
            })
            .collect();
        symbols.sort_by_key(|symbol| symbol.address);
        let code = file
            .sections()
            .filter(|section| section.kind() == object::SectionKind::Text)
            .filter_map(|section| Some((section.address(), section.data().ok()?.to_vec())))
            .collect();
        Ok(Self {
            context,
            symbols,
            code,
        })
    }

    /// The machine code of the symbol-table function containing `address`, from its first
    /// instruction, and the offset of `address` in it.
    fn function_code(&self, address: u64) -> Option<(&[u8], usize)> {
        let symbol = self.symbol_at(address)?;
        let (base, bytes) = self
            .code
            .iter()
            .find(|(base, bytes)| (*base..*base + bytes.len() as u64).contains(&symbol.address))?;
        let start = usize::try_from(symbol.address - base).ok()?;
        let offset = usize::try_from(address - symbol.address).ok()?;
        Some((bytes.get(start..)?, offset))
    }

    /// Whether, at `pc`, the function's caller is in the link register rather than on the
    /// frame-pointer chain ([`crate::frame_record`]); `false` when the code is unknown.
    pub fn caller_in_lr(&self, pc: u64) -> bool {
        self.function_code(pc)
            .is_some_and(|(code, offset)| !crate::frame_record::record_established(code, offset))
    }

    /// The function symbols of the ELF symbol table, sorted by address.
    pub fn symbols(&self) -> &[FunctionSymbol] {
        &self.symbols
    }

    /// The symbol-table function containing `address`.
    pub fn symbol_at(&self, address: u64) -> Option<&FunctionSymbol> {
        let index = self.symbols.partition_point(|s| s.address <= address);
        let symbol = self.symbols.get(index.checked_sub(1)?)?;
        let inside = symbol.size == 0 || address < symbol.address.saturating_add(symbol.size);
        inside.then_some(symbol)
    }

    /// The frames at `address`, innermost (most deeply inlined) first, the real function last.
    /// Never empty: an address nothing covers gives one [`UNKNOWN`] frame.
    pub fn frames(&self, address: u64) -> Vec<Frame> {
        let mut frames = self.dwarf_frames(address);
        if let Some(outer) = frames.last_mut()
            && outer.function == UNKNOWN
            && let Some(symbol) = self.symbol_at(address)
        {
            outer.function = symbol.name.clone();
        }
        if frames.is_empty() {
            frames.push(Frame {
                function: self
                    .symbol_at(address)
                    .map_or_else(|| UNKNOWN.to_string(), |s| s.name.clone()),
                file: None,
                line: None,
                inlined: false,
            });
        }
        frames
    }

    fn dwarf_frames(&self, address: u64) -> Vec<Frame> {
        let mut frames = Vec::new();
        let Ok(mut iter) = self.context.find_frames(address).skip_all_loads() else {
            return frames;
        };
        while let Ok(Some(frame)) = iter.next() {
            let function = frame
                .function
                .as_ref()
                .and_then(|name| name.raw_name().ok().map(|raw| demangle(raw.as_ref())))
                .unwrap_or_else(|| UNKNOWN.to_string());
            frames.push(Frame {
                function,
                file: frame
                    .location
                    .as_ref()
                    .and_then(|l| l.file.map(str::to_string)),
                line: frame.location.as_ref().and_then(|l| l.line),
                inlined: true,
            });
        }
        if let Some(outer) = frames.last_mut() {
            outer.inlined = false;
        }
        frames
    }
}
