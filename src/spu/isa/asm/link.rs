//! Linking: several sources assembled into one local-store image, as `spu-as` assembles each
//! into an object and `spu-ld` links the objects with its default script.
//!
//! 1. Every source's first pass, in order: its symbols join one table (each source's
//!    together, in the table's view while it is assembled), its sections and `.lcomm`/`.comm`
//!    records are kept.
//! 2. The link: a global symbol two sources define is an error; the `.comm` symbols are
//!    merged and placed in `COMMON`; every section is placed (`layout`); every symbol gets
//!    its address; the script's symbols and the `--defsym` definitions get theirs.
//! 3. Every source's second pass, writing the image: a name the source does not define is
//!    resolved as ld resolves it (see `binding`), and one nobody defines is an error in that
//!    source, at the statement that uses it.
//!
//! The link keeps no object files: a source's first-pass state (its sections and records) is
//! all its second pass needs, so memory is bounded by the number of sections and symbols, not
//! by the sources.

use super::commons::{LinkCommon, MAX_LINK_COMMONS, place_global_commons};
use super::error::{AsmError, AsmErrorKind, Name};
use super::expr::{Resolver, Value, expression};
use super::layout::{self, OutputSection};
use super::linker_symbols::{LinkerDefinition, LinkerSymbol, LinkerSymbols, MAX_DEFINITIONS};
use super::pass::Pass;
use super::program::{MAX_OUTPUT_SECTIONS, MAX_PROGRAM_SECTIONS, Program};
use super::reader::Expander;
use super::section::MAX_SECTIONS;
use super::section::{SectionInfo, SectionKind};
use super::symbols::{Binding, SymbolName, SymbolTable, SymbolValue};
use super::text::{Span, ident_len};
use super::value::EXTERNAL_SECTION;

/// Most sources one link takes.
pub const MAX_SOURCES: usize = 64;

/// An error of the link itself, at line 1 of `file`.
fn link_error(file: usize, line: u32, kind: AsmErrorKind) -> AsmError {
    AsmError {
        file: u16::try_from(file).unwrap_or(u16::MAX),
        line: line.max(1),
        column: 1,
        kind,
        invoked_at: None,
    }
}

/// Assembles `sources` and links them into `image`, as `spu-as` of each and `spu-ld` of the
/// objects, in this order, with its default script and the `definitions` (`NAME=VALUE`, as
/// ld's `--defsym`: a number, or an expression of numbers and global symbols).
///
/// Each source has its own local symbols; a `.global` (or `.weak`, or `.comm`) symbol is
/// seen by all. The sections of all the sources are placed as ld places them, the
/// zero-initialised ones included, and the script's symbols (`_end`, `__stack`, ...) are
/// defined. The entry point is the global `_start`, else 0. Errors name the source
/// ([`AsmError::file`]): a use of a name no source defines, at that statement; a global
/// symbol two sources define, at the second definition.
///
/// ```
/// use pmprobe::spu::isa::asm::link;
/// let main = ".global _start\n_start: brsl $lr, add\n stop";
/// let add = ".global add\nadd: ai $3, $3, 1\n bi $lr";
/// let mut image = [0u8; 64];
/// let program = link::<8>(&[main, add], &[], &mut image)?;
/// assert_eq!(program.symbol("add"), Some(8));
/// assert_eq!(&image[0..4], &0x3300_0100u32.to_be_bytes()); // brsl $0, add
/// # Ok::<(), pmprobe::spu::isa::asm::AsmError>(())
/// ```
pub fn link<const SYMS: usize>(
    sources: &[&str],
    definitions: &[&str],
    image: &mut [u8],
) -> Result<Program<SYMS>, AsmError> {
    if sources.len() > MAX_SOURCES {
        return Err(link_error(0, 1, too_many(MAX_SOURCES)));
    }
    if definitions.len() > MAX_DEFINITIONS {
        return Err(link_error(sources.len(), 1, too_many(MAX_DEFINITIONS)));
    }
    let mut program = Program::<SYMS>::empty(sources.len() as u16);
    link_into(&mut program, sources, definitions, image)?;
    Ok(program)
}

/// [`link`] into `program` (a separate frame, so the program is on the stack once).
#[inline(never)]
fn link_into<const SYMS: usize>(
    program: &mut Program<SYMS>,
    sources: &[&str],
    definitions: &[&str],
    image: &mut [u8],
) -> Result<(), AsmError> {
    let mut expander = Expander::new();
    let mut commons: heapless::Vec<LinkCommon, MAX_LINK_COMMONS> = heapless::Vec::new();
    // Where each source's symbols and sections start, and where the last one's end.
    let mut starts = Starts {
        symbols: [0; MAX_SOURCES + 1],
        sections: [0; MAX_SOURCES + 1],
    };
    for (index, source) in sources.iter().enumerate() {
        starts.symbols[index] = program.symbols.entries.len();
        starts.sections[index] = program.sections.len();
        let input = (*source, index as u16);
        first_pass(input, program, &mut expander, &mut commons, image.len())?;
    }
    let files = sources.len();
    starts.symbols[files] = program.symbols.entries.len();
    starts.sections[files] = program.sections.len();
    program.symbols.view = 0..0;
    check_multiple_definitions(&program.symbols)?;
    place_global_commons(&mut commons, &program.symbols, &mut program.sections);
    let layout = layout::place(&mut program.sections, &mut program.output_sections);
    place_symbols(program, &starts.sections, &mut commons);
    let mut linker = LinkerSymbols::script(&layout, &program.output_sections);
    for (index, text) in definitions.iter().enumerate() {
        let symbol = definition(text, program, &linker).map_err(|(column, kind)| AsmError {
            column,
            ..link_error(files + index, 1, kind)
        })?;
        let full = |_| link_error(files + index, 1, too_many(MAX_DEFINITIONS));
        linker.assign(symbol).map_err(full)?;
    }
    choose_definitions(&mut program.symbols, &linker);
    zero_gaps(&program.sections, image);
    for (index, source) in sources.iter().enumerate() {
        let input = (*source, index as u16);
        let link = Linked {
            starts: &starts,
            commons: &commons,
            linker: &linker,
        };
        second_pass(input, program, &mut expander, link, image)?;
    }
    program.symbols.view = 0..usize::MAX;
    if layout.end > image.len() as u64 {
        let kind = AsmErrorKind::ImageOverflow {
            capacity: image.len(),
        };
        return Err(link_error(0, 1, kind));
    }
    let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    program.len = to_usize(layout.image_end);
    program.text_len = to_usize(layout.text_end);
    program.data_start = to_usize(layout.data_start);
    program.data_len = program.len.saturating_sub(program.data_start);
    let start = linker
        .assigned("_start")
        .or_else(|| global_start(&program.symbols));
    // Without one, ld starts at `.text` ("cannot find entry symbol _start; defaulting to").
    let text = program.output_sections.iter().find(|s| s.name == ".text");
    program.entry = start.or(text.map(|s| s.address)).unwrap_or(0);
    program.entry_defined = start.is_some();
    program.linker_symbols = linker.into_output();
    Ok(())
}

/// Where each source's symbols and sections start in the program's tables (the last entry:
/// where the last source's end).
struct Starts {
    symbols: [usize; MAX_SOURCES + 1],
    sections: [usize; MAX_SOURCES + 1],
}

/// What the second passes need of the link.
#[derive(Clone, Copy)]
struct Linked<'a> {
    starts: &'a Starts,
    commons: &'a [LinkCommon],
    linker: &'a LinkerSymbols,
}

/// The first pass of `source` (the `file`-th): its symbols join the program's table, its
/// sections the program's list, its `.lcomm`/`.comm` records `commons`. Not inlined, so only
/// one pass's state is on the stack at a time.
#[inline(never)]
fn first_pass<'src, const SYMS: usize>(
    (source, file): (&'src str, u16),
    program: &mut Program<SYMS>,
    expander: &mut Expander<'src>,
    commons: &mut heapless::Vec<LinkCommon, MAX_LINK_COMMONS>,
    capacity: usize,
) -> Result<(), AsmError> {
    let index = usize::from(file);
    let symbols = &mut program.symbols;
    symbols.view = symbols.entries.len()..usize::MAX;
    let mut pass = Pass::new((source, file), capacity, expander, symbols);
    let _ = pass.sections.open(".text", None, None);
    pass.reset();
    pass.run()?;
    pass.place_local_commons();
    pass.finish()?;
    let line = pass.expander.line;
    for section in &pass.sections.list {
        let full = || link_error(index, line, too_many_sections());
        program
            .sections
            .push(SectionInfo { file, ..*section })
            .map_err(|_| full())?;
    }
    for common in &pass.commons {
        let record = LinkCommon {
            file,
            common: *common,
            definition: None,
            placed: (file, 0),
        };
        let full = || link_error(index, line, too_many_commons());
        commons.push(record).map_err(|_| full())?;
    }
    Ok(())
}

/// The second pass of `source` (the `file`-th), writing `image`, with the sections and
/// records its first pass left, placed by the link.
#[inline(never)]
fn second_pass<'src, const SYMS: usize>(
    (source, file): (&'src str, u16),
    program: &mut Program<SYMS>,
    expander: &mut Expander<'src>,
    link: Linked<'_>,
    image: &mut [u8],
) -> Result<(), AsmError> {
    let index = usize::from(file);
    let range = |starts: &[usize; MAX_SOURCES + 1]| {
        starts.get(index).copied().unwrap_or(0)..starts.get(index + 1).copied().unwrap_or(0)
    };
    let own = program
        .sections
        .get(range(&link.starts.sections))
        .unwrap_or(&[]);
    let symbols = &mut program.symbols;
    symbols.view = range(&link.starts.symbols);
    let capacity = image.len();
    let mut pass = Pass::new((source, file), capacity, expander, symbols);
    for section in own {
        // The source had these sections in its first pass: they fit again.
        let _ = pass.sections.list.push(*section);
    }
    for record in link.commons.iter().filter(|r| r.file == file) {
        // Likewise its records.
        let _ = pass.commons.push(record.common);
    }
    pass.final_pass = true;
    pass.image = Some(image);
    pass.linker = Some(link.linker);
    pass.reset();
    pass.run()?;
    pass.finish()?;
    if let Some(image) = pass.image.as_deref_mut() {
        for &address in &pass.pic_patches {
            super::reloc::add_pic(image, address);
        }
    }
    Ok(())
}

fn too_many(limit: usize) -> AsmErrorKind {
    AsmErrorKind::TooManySources { limit }
}

fn too_many_sections() -> AsmErrorKind {
    AsmErrorKind::TooManySections {
        capacity: MAX_PROGRAM_SECTIONS,
    }
}

fn too_many_commons() -> AsmErrorKind {
    AsmErrorKind::TooManySymbols {
        capacity: MAX_LINK_COMMONS,
    }
}

/// The address of the global `_start`, which ld's `ENTRY(_start)` takes.
fn global_start<const SYMS: usize>(symbols: &SymbolTable<SYMS>) -> Option<u32> {
    symbols
        .iter()
        .find(|s| s.name == "_start" && s.is_defined() && s.attributes.binding != Binding::Local)
        .map(|s| s.address)
}

/// A global symbol two sources define (commons and weak symbols aside) is ld's "multiple
/// definition": an error at the later definition.
// Not inlined: its locals stay off the stack the passes run on.
#[inline(never)]
fn check_multiple_definitions<const SYMS: usize>(
    symbols: &SymbolTable<SYMS>,
) -> Result<(), AsmError> {
    let strong = |s: &&super::Symbol| {
        s.is_defined() && s.attributes.binding == Binding::Global && !s.attributes.common
    };
    for (index, later) in symbols
        .entries
        .iter()
        .enumerate()
        .filter(|(_, s)| strong(s))
    {
        let earlier = symbols
            .entries
            .iter()
            .take(index)
            .filter(strong)
            .find(|s| s.name == later.name && s.file != later.file);
        if let Some(earlier) = earlier {
            let kind = AsmErrorKind::MultipleDefinition {
                name: Name::new(&later.name),
                first_file: earlier.file,
            };
            return Err(link_error(usize::from(later.file), later.line, kind));
        }
    }
    Ok(())
}

/// Every symbol's address once the sections are placed (each source's section `k` is
/// `sections[section_start[file] + k]`); a `.comm` symbol's is its place in a `COMMON`, or the
/// global definition it turned out to be.
// Not inlined: its locals stay off the stack the passes run on.
#[inline(never)]
fn place_symbols<const SYMS: usize>(
    program: &mut Program<SYMS>,
    section_start: &[usize],
    commons: &mut [LinkCommon],
) {
    let sections = &program.sections;
    let section_address = |file: u16, section: u8| {
        section_start
            .get(usize::from(file))
            .and_then(|&start| sections.get(start + usize::from(section)))
            .map_or(0, |s| s.address)
    };
    for symbol in program.symbols.entries.iter_mut() {
        // A use before any definition takes the first one, as gas's fixup does.
        if symbol.first != SymbolValue::Unresolved {
            symbol.value = symbol.first;
        }
        symbol.address = match symbol.value {
            SymbolValue::Label { section, offset } => {
                section_address(symbol.file, section).wrapping_add(offset)
            }
            SymbolValue::Absolute(value) => value as u32,
            SymbolValue::Unresolved => symbol.address,
        };
    }
    let sections = &program.sections;
    let common_of = |file: u16| {
        sections
            .iter()
            .find(|s| s.file == file && s.name == "COMMON")
            .map_or(0, |s| s.address)
    };
    for record in commons.iter_mut().filter(|r| !r.common.local) {
        let address = match record.definition {
            Some(definition) => program
                .symbols
                .entries
                .get(definition as usize)
                .map_or(0, |s| s.address),
            None => common_of(record.placed.0).wrapping_add(record.placed.1),
        };
        // Its offset in its own source's `COMMON`, where the second pass defines it.
        record.common.offset = address.wrapping_sub(common_of(record.file));
        if let Some(symbol) = program
            .symbols
            .entries
            .get_mut(record.common.symbol as usize)
            && let SymbolValue::Label { section, .. } = symbol.value
        {
            symbol.value = SymbolValue::Label {
                section,
                offset: record.common.offset,
            };
            symbol.first = symbol.value;
            symbol.address = address;
        }
    }
}

/// Marks, for each global name, the entry the link takes as its definition: a global one,
/// else a weak one, else a common one, the first source's among equals; none where the link
/// assigns the name.
// Not inlined: its locals stay off the stack the passes run on.
#[inline(never)]
fn choose_definitions<const SYMS: usize>(symbols: &mut SymbolTable<SYMS>, linker: &LinkerSymbols) {
    let rank = |s: &super::Symbol| match (s.attributes.binding, s.attributes.common) {
        (_, true) => 2,
        (Binding::Weak, false) => 1,
        _ => 0,
    };
    let candidate = |s: &super::Symbol| {
        s.is_defined() && (s.attributes.binding != Binding::Local || s.attributes.common)
    };
    for index in 0..symbols.entries.len() {
        let Some(symbol) = symbols.entries.get(index) else {
            continue;
        };
        let chosen = candidate(symbol)
            && linker.assigned(&symbol.name).is_none()
            && !symbols
                .entries
                .iter()
                .enumerate()
                .any(|(other_index, other)| {
                    other.name == symbol.name
                        && candidate(other)
                        && (rank(other), other_index) < (rank(symbol), index)
                });
        if let Some(symbol) = symbols.entries.get_mut(index) {
            symbol.chosen = chosen;
        }
    }
}

/// Zeroes the gaps between the sections with bytes (the second pass writes everything else).
// Not inlined: its locals stay off the stack the passes run on.
#[inline(never)]
fn zero_gaps(sections: &[SectionInfo], image: &mut [u8]) {
    let mut placed: heapless::Vec<(usize, usize), MAX_PROGRAM_SECTIONS> = sections
        .iter()
        .filter(|s| matches!(s.kind, SectionKind::Code | SectionKind::Data))
        .map(|s| (s.address as usize, s.address as usize + s.size as usize))
        .collect();
    placed.sort_unstable();
    let mut previous_end = 0;
    for (begin, end) in placed {
        if let Some(gap) = image.get_mut(previous_end..begin.min(image.len())) {
            gap.fill(0);
        }
        previous_end = previous_end.max(end);
    }
}

/// Reads a link definition `NAME=EXPRESSION`: its symbol, or the column (from 1) and kind
/// of what is wrong.
// Not inlined: its locals stay off the stack the passes run on.
#[inline(never)]
fn definition<const SYMS: usize>(
    text: &str,
    program: &Program<SYMS>,
    linker: &LinkerSymbols,
) -> Result<LinkerSymbol, (u32, AsmErrorKind)> {
    let name_len = ident_len(text);
    let equals = text.find('=').unwrap_or(text.len());
    if name_len == 0 || text.get(..equals).map(str::trim_end) != text.get(..name_len) {
        return Err((1, AsmErrorKind::BadDefinition));
    }
    let name = SymbolName::new(text.get(..name_len).unwrap_or("")).map_err(|kind| (1, kind))?;
    let expr = Span {
        text: text.get(equals + 1..).unwrap_or(""),
        offset: equals + 1,
    };
    let resolver = DefinitionResolver { program, linker };
    let value = expression(expr, &resolver).map_err(|e| (e.offset as u32 + 1, e.kind))?;
    if !value.resolved {
        return Err((expr.offset as u32 + 1, AsmErrorKind::ExpectedConstant));
    }
    let address = value.value as u32;
    // ld's `--defsym` makes "a global symbol containing the absolute address" (`SHN_ABS`),
    // also of an expression of symbols.
    Ok(LinkerSymbol {
        name,
        value: address,
        how: LinkerDefinition::Assigned,
        section: None,
        in_output: true,
    })
}

/// Names in a link definition: the sources' global symbols and the link's own.
struct DefinitionResolver<'a, const SYMS: usize> {
    program: &'a Program<SYMS>,
    linker: &'a LinkerSymbols,
}

impl<const SYMS: usize> Resolver for DefinitionResolver<'_, SYMS> {
    fn location(&self) -> Value {
        // ld's `.` has no meaning outside its script.
        Value::UNKNOWN
    }

    fn symbol(&self, name: &str) -> Result<Value, AsmErrorKind> {
        let address = |value: u32| Value {
            value: i64::from(value),
            resolved: true,
            section: Some(EXTERNAL_SECTION),
            early: true,
        };
        if let Some(value) = self.linker.assigned(name) {
            return Ok(address(value));
        }
        match self.program.symbols.global(name) {
            Some(symbol) => Ok(match symbol.value {
                SymbolValue::Absolute(value) => Value::known(value),
                _ => address(symbol.address),
            }),
            None => self
                .linker
                .provided(name)
                .map(address)
                .ok_or(AsmErrorKind::UnknownLabel(Name::new(name))),
        }
    }

    fn local_label(&self, number: u32, forward: bool) -> Result<Value, AsmErrorKind> {
        Err(AsmErrorKind::UndefinedLocalLabel { number, forward })
    }
}

impl<const SYMS: usize> Program<SYMS> {
    /// A program before its link: nothing placed.
    fn empty(files: u16) -> Self {
        Program {
            len: 0,
            text_len: 0,
            data_start: 0,
            data_len: 0,
            entry: 0,
            entry_defined: false,
            files,
            sections: heapless::Vec::new(),
            output_sections: heapless::Vec::<OutputSection, MAX_OUTPUT_SECTIONS>::new(),
            symbols: SymbolTable::new(),
            linker_symbols: heapless::Vec::new(),
        }
    }
}

// The per-source section limit must fit a program's.
const _: () = assert!(MAX_SECTIONS <= MAX_PROGRAM_SECTIONS);
