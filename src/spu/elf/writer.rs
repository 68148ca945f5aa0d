//! Writing a linked program as an SPU ELF executable, into a caller's buffer, laid out as
//! spu-ld 2.40 lays out the file it links (so the two are the same bytes for the same
//! program, see `docs/spu-elf.md`):
//!
//! the file header; the program headers (the `PT_LOAD` segments of `segments`, then
//! `PT_NOTE`); the allocated output sections, at the offsets `segments` gives them;
//! `.note.spu_name` (the output file's name, spu-ld's note); `.symtab` (`output_symbols`);
//! `.strtab`; `.shstrtab` (both laid out as bfd does, `strings`); the section headers.

use elf::abi;

use super::error::ElfWriteError;
use super::format::{FILE_HEADER_BYTES, PROGRAM_HEADER_BYTES, SECTION_HEADER_BYTES, SYMBOL_BYTES};
use super::notes::SPU_NAME_NOTE;
use super::output_symbols::{Context, OutputSymbol};
use super::segments::{LoadLayout, lay_out};
use super::strings::{ends, is_kept, reversed_cmp, table_size, write_table};
use crate::spu::exec::LS_SIZE;
use crate::spu::isa::asm::{OutputSection, Program, SectionKind};

/// The names a linked file records, as spu-ld records them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfNames<'a> {
    /// The output file's name as given to the linker (`-o NAME`): spu-ld writes it into the
    /// `.note.spu_name` note.
    pub output: &'a str,
    /// Each source's object file name (`crt0.o` for `crt0.S`): the `STT_FILE` symbol before
    /// the source's local symbols. A source without a name here gets an empty one.
    pub objects: &'a [&'a str],
}

/// The note's type (`NT_SPU`).
const NOTE_TYPE: u32 = 1;
/// The section names that always come first in `.shstrtab`, in bfd's order.
const FIRST_NAMES: [&str; 3] = [".symtab", ".strtab", ".shstrtab"];
const NOTE_SECTION: &str = ".note.spu_name";

/// Where everything goes, computed once for the size and the writing.
struct Plan {
    load: LoadLayout,
    program_headers: usize,
    note_offset: usize,
    note_size: usize,
    symtab_offset: usize,
    /// Local and global symbols (the null symbol included in the locals).
    symbols: (usize, usize),
    strtab_offset: usize,
    strtab_size: usize,
    shstrtab_offset: usize,
    shstrtab_size: usize,
    section_headers_offset: usize,
    /// Section headers: null, the output sections, the note, `.symtab`, `.strtab`,
    /// `.shstrtab`.
    sections: usize,
    total: usize,
}

/// The section names in `.shstrtab`'s order of addition.
fn section_names<const SYMS: usize>(program: &Program<SYMS>) -> impl Iterator<Item = &str> + Clone {
    FIRST_NAMES
        .into_iter()
        .chain(program.output_sections.iter().map(|s| s.name.as_str()))
        .chain(core::iter::once(NOTE_SECTION))
}

fn context<'a, const SYMS: usize>(
    program: &'a Program<SYMS>,
    names: &ElfNames<'a>,
) -> Context<'a, SYMS> {
    Context {
        program,
        objects: names.objects,
        note_index: program.output_sections.len() as u16 + 1,
    }
}

impl Plan {
    fn of<const SYMS: usize>(
        program: &Program<SYMS>,
        names: &ElfNames<'_>,
    ) -> Result<Self, ElfWriteError> {
        if program.text_len == 0 {
            return Err(ElfWriteError::NoCode);
        }
        let outputs = &program.output_sections;
        let end = outputs
            .iter()
            .map(|s| u64::from(s.address) + u64::from(s.size))
            .max()
            .unwrap_or(0);
        if program.len > LS_SIZE as usize || end > u64::from(LS_SIZE) {
            return Err(ElfWriteError::TooLarge);
        }
        // The segments first, to count the program headers; their offsets do not depend
        // on the count but through the headers' end, so lay them out again with it.
        let count = lay_out(outputs, 0).segments.len() + 1;
        let header_end = FILE_HEADER_BYTES + count * PROGRAM_HEADER_BYTES;
        let load = lay_out(outputs, header_end as u64);
        check_entry(program.entry, &load)?;
        let note_offset = usize::try_from(load.end)
            .map_err(|_| ElfWriteError::TooLarge)?
            .next_multiple_of(16);
        let note_size = 12 + SPU_NAME_NOTE.len() + (names.output.len() + 1).next_multiple_of(4);
        let symtab_offset = (note_offset + note_size).next_multiple_of(4);
        let context = context(program, names);
        let symbols = context.count();
        let strtab_offset = symtab_offset + (symbols.0 + symbols.1) * SYMBOL_BYTES;
        let strtab_size = table_size(context.names());
        let shstrtab_offset = strtab_offset + strtab_size;
        let shstrtab_size = table_size(section_names(program));
        let section_headers_offset = (shstrtab_offset + shstrtab_size).next_multiple_of(4);
        let sections = outputs.len() + 5;
        let total = section_headers_offset + sections * SECTION_HEADER_BYTES;
        if u32::try_from(total).is_err() {
            return Err(ElfWriteError::TooLarge);
        }
        Ok(Plan {
            load,
            program_headers: count,
            note_offset,
            note_size,
            symtab_offset,
            symbols,
            strtab_offset,
            strtab_size,
            shstrtab_offset,
            shstrtab_size,
            section_headers_offset,
            sections,
            total,
        })
    }
}

/// The entry point must be a word inside a segment, as the reader requires of a file.
fn check_entry(entry: u32, load: &LoadLayout) -> Result<(), ElfWriteError> {
    let entry64 = u64::from(entry);
    let inside = load
        .segments
        .iter()
        .any(|s| (s.address..s.address + s.memory_size).contains(&entry64));
    if inside && entry.is_multiple_of(4) {
        Ok(())
    } else {
        Err(ElfWriteError::EntryOutsideSegments { entry })
    }
}

/// Whether `program` can be written: it has code, and its entry point is a word inside the
/// segments it would have (the check [`executable_size`] makes, without the symbol table's
/// cost). spusim refuses to run a source this refuses, so a program starts at the same
/// place from its source as from its ELF file.
pub fn check_entry_point<const SYMS: usize>(program: &Program<SYMS>) -> Result<(), ElfWriteError> {
    if program.text_len == 0 {
        return Err(ElfWriteError::NoCode);
    }
    // The segments' addresses and sizes do not depend on where the file puts them.
    check_entry(program.entry, &lay_out(&program.output_sections, 0))
}

/// The bytes [`write_executable`] writes for `program`.
pub fn executable_size<const SYMS: usize>(
    program: &Program<SYMS>,
    names: &ElfNames<'_>,
) -> Result<usize, ElfWriteError> {
    Plan::of(program, names).map(|plan| plan.total)
}

/// Writes `program`, linked into `image`, as an SPU ELF executable at the start of `out`, as
/// spu-ld writes it for the same sources (`names` gives the file names it records); returns
/// the bytes written ([`executable_size`]).
///
/// The allocated output sections are in `PT_LOAD` segments as ld maps them, each segment's
/// sizes rounded to 16 bytes; `.symtab` has ld's section, file, local and global symbols in
/// ld's order, the link's own symbols (`_end`, `--defsym`s) included. `e_entry` is the
/// program's entry point. Sections that are not allocated (`.comment`, `.debug*`) are not
/// written. A program without code (`NoCode`), or whose entry point is in no segment
/// (`EntryOutsideSegments`), is refused: the reader would refuse the file.
pub fn write_executable<const SYMS: usize>(
    program: &Program<SYMS>,
    image: &[u8],
    names: &ElfNames<'_>,
    out: &mut [u8],
) -> Result<usize, ElfWriteError> {
    let plan = Plan::of(program, names)?;
    let needed = program.len;
    if image.len() < needed {
        return Err(ElfWriteError::ImageTooShort {
            needed,
            available: image.len(),
        });
    }
    let too_small = ElfWriteError::BufferTooSmall {
        needed: plan.total,
        available: out.len(),
    };
    let file = out.get_mut(..plan.total).ok_or(too_small)?;
    file.fill(0);
    let mut w = Writer { file, ok: true };
    write_file_header(&mut w, program, &plan);
    write_program_headers(&mut w, &plan);
    for (index, section) in program.output_sections.iter().enumerate() {
        if section.kind == SectionKind::Bss {
            continue;
        }
        let start = section.address as usize;
        let bytes = image
            .get(start..start + section.size as usize)
            .unwrap_or(&[]);
        let offset = plan.load.offsets.get(index).copied().unwrap_or(0) as usize;
        w.bytes(offset, bytes);
    }
    write_note(&mut w, &plan, names.output);
    write_symbols(&mut w, &context(program, names), &plan);
    if let Some(table) = w
        .file
        .get_mut(plan.shstrtab_offset..plan.shstrtab_offset + plan.shstrtab_size)
    {
        write_table(section_names(program), table);
    }
    write_section_headers(&mut w, program, &plan);
    if w.ok { Ok(plan.total) } else { Err(too_small) }
}

/// Big-endian stores into the file; `ok` turns false if one fell outside it (the plan makes
/// that impossible, and the writer reports it rather than panicking).
struct Writer<'a> {
    file: &'a mut [u8],
    ok: bool,
}

impl Writer<'_> {
    fn bytes(&mut self, offset: usize, bytes: &[u8]) {
        match self
            .file
            .get_mut(offset..offset.saturating_add(bytes.len()))
        {
            Some(place) => place.copy_from_slice(bytes),
            None => self.ok = false,
        }
    }

    fn u16(&mut self, offset: usize, value: u16) {
        self.bytes(offset, &value.to_be_bytes());
    }

    fn u32(&mut self, offset: usize, value: u64) {
        let value = u32::try_from(value).unwrap_or(u32::MAX);
        self.bytes(offset, &value.to_be_bytes());
    }
}

fn write_file_header<const SYMS: usize>(w: &mut Writer<'_>, program: &Program<SYMS>, plan: &Plan) {
    w.bytes(0, &abi::ELFMAGIC);
    w.bytes(
        abi::EI_CLASS,
        &[abi::ELFCLASS32, abi::ELFDATA2MSB, abi::EV_CURRENT],
    );
    w.u16(16, abi::ET_EXEC);
    w.u16(18, abi::EM_SPU);
    w.u32(20, u64::from(abi::EV_CURRENT));
    w.u32(24, u64::from(program.entry));
    w.u32(28, FILE_HEADER_BYTES as u64);
    w.u32(32, plan.section_headers_offset as u64);
    // 36: e_flags, 0.
    w.u16(40, FILE_HEADER_BYTES as u16);
    w.u16(42, PROGRAM_HEADER_BYTES as u16);
    w.u16(44, plan.program_headers as u16);
    w.u16(46, SECTION_HEADER_BYTES as u16);
    w.u16(48, plan.sections as u16);
    w.u16(50, plan.sections as u16 - 1);
}

fn write_program_headers(w: &mut Writer<'_>, plan: &Plan) {
    let mut at = FILE_HEADER_BYTES;
    let mut header = |w: &mut Writer<'_>, fields: [u64; 8]| {
        for (index, value) in fields.into_iter().enumerate() {
            w.u32(at + 4 * index, value);
        }
        at += PROGRAM_HEADER_BYTES;
    };
    for s in &plan.load.segments {
        let load = u64::from(abi::PT_LOAD);
        let fields = [
            load,
            s.offset,
            s.address,
            s.address,
            s.file_size,
            s.memory_size,
        ];
        let [a, b, c, d, e, f] = fields;
        header(w, [a, b, c, d, e, f, u64::from(s.flags), s.align]);
    }
    let note = [
        u64::from(abi::PT_NOTE),
        plan.note_offset as u64,
        0,
        0,
        plan.note_size as u64,
        0,
        u64::from(abi::PF_R),
        16,
    ];
    header(w, note);
}

/// `.note.spu_name`: the note name `SPUNAME` and the output file's name (`elf32-spu.c`).
fn write_note(w: &mut Writer<'_>, plan: &Plan, output: &str) {
    let at = plan.note_offset;
    w.u32(at, SPU_NAME_NOTE.len() as u64);
    w.u32(at + 4, output.len() as u64 + 1);
    w.u32(at + 8, u64::from(NOTE_TYPE));
    w.bytes(at + 12, SPU_NAME_NOTE);
    w.bytes(at + 12 + SPU_NAME_NOTE.len(), output.as_bytes());
}

/// The slot of symbol `index` in the symbol table.
fn slot(index: usize) -> core::ops::Range<usize> {
    index * SYMBOL_BYTES..(index + 1) * SYMBOL_BYTES
}

/// Writes `.symtab` and `.strtab`, using the symbol table's own room as scratch space: first
/// each entry's symbol (and the globals' hash keys, to sort them), then each name's offset,
/// then the entries.
fn write_symbols<const SYMS: usize>(w: &mut Writer<'_>, context: &Context<'_, SYMS>, plan: &Plan) {
    let count = plan.symbols.0 + plan.symbols.1;
    let table_end = plan.symtab_offset + count * SYMBOL_BYTES;
    let (head, strtab) = w.file.split_at_mut(table_end);
    let Some(table) = head.get_mut(plan.symtab_offset..) else {
        w.ok = false;
        return;
    };
    let Some(strtab) = strtab.get_mut(..plan.strtab_size) else {
        w.ok = false;
        return;
    };
    // Bytes 0..8: a sort key; 8: the kind; 9..13: its index.
    let mut index = 0;
    let mut put = |table: &mut [u8], symbol: OutputSymbol, key: u64| {
        let (kind, number) = encode(symbol);
        if let Some(entry) = table.get_mut(slot(index)) {
            entry[..8].copy_from_slice(&key.to_be_bytes());
            entry[8] = kind;
            entry[9..13].copy_from_slice(&number.to_be_bytes());
        }
        index += 1;
    };
    context.for_each_local(|symbol| put(table, symbol, 0));
    context.for_each_global(|symbol| put(table, symbol, context.hash_key(symbol)));
    if let Some((_, globals)) = table
        .as_chunks_mut::<SYMBOL_BYTES>()
        .0
        .split_at_mut_checked(plan.symbols.0)
    {
        globals.sort_unstable_by_key(|entry| {
            u64::from_be_bytes([
                entry[0], entry[1], entry[2], entry[3], entry[4], entry[5], entry[6], entry[7],
            ])
        });
    }
    let symbol_at = |table: &[u8], i: usize| {
        table.get(slot(i)).map_or(OutputSymbol::Null, |e| {
            decode(e[8], [e[9], e[10], e[11], e[12]])
        })
    };
    let name_at = |table: &[u8], i: usize| context.name(symbol_at(table, i));
    // Bytes 0..4: the name's offset; 4: first occurrence (1) and kept (2).
    for i in 0..count {
        let name = name_at(table, i);
        let first = !(0..i).any(|j| name_at(table, j) == name);
        let kept = first && is_kept((0..count).map(|j| name_at(table, j)), name);
        if let Some(entry) = table.get_mut(slot(i)) {
            entry[4] = u8::from(first) | u8::from(kept) << 1;
        }
    }
    let flags = |table: &[u8], i: usize| table.get(slot(i)).map_or(0, |e| e[4]);
    let offset_at = |table: &[u8], i: usize| {
        table
            .get(slot(i))
            .map_or(0, |e| u32::from_be_bytes([e[0], e[1], e[2], e[3]]))
    };
    let set_offset = |table: &mut [u8], i: usize, offset: u32| {
        if let Some(entry) = table.get_mut(slot(i)) {
            entry[..4].copy_from_slice(&offset.to_be_bytes());
        }
    };
    let mut next = 1;
    for i in 0..count {
        let name = name_at(table, i);
        if flags(table, i) & 2 != 0 {
            if let Some(place) = strtab.get_mut(next..next + name.len()) {
                place.copy_from_slice(name.as_bytes());
            }
            set_offset(table, i, next as u32);
            next += name.len() + 1;
        } else {
            set_offset(table, i, 0);
        }
    }
    for i in 0..count {
        let name = name_at(table, i);
        if flags(table, i) & 2 != 0 || name.is_empty() {
            continue;
        }
        let offset = if flags(table, i) & 1 == 0 {
            (0..i)
                .find(|&j| name_at(table, j) == name)
                .map_or(0, |j| offset_at(table, j))
        } else {
            let host = (0..count)
                .filter(|&k| flags(table, k) & 2 != 0 && ends(name_at(table, k), name))
                .min_by(|&a, &b| reversed_cmp(name_at(table, a), name_at(table, b)));
            host.map_or(0, |k| {
                offset_at(table, k) + (name_at(table, k).len() - name.len()) as u32
            })
        };
        set_offset(table, i, offset);
    }
    for i in 0..count {
        let symbol = symbol_at(table, i);
        let name_offset = offset_at(table, i);
        let fields = context.fields(symbol);
        if let Some(entry) = table.get_mut(slot(i)) {
            entry[..4].copy_from_slice(&name_offset.to_be_bytes());
            entry[4..8].copy_from_slice(&fields.value.to_be_bytes());
            entry[8..12].copy_from_slice(&fields.size.to_be_bytes());
            entry[12] = fields.info;
            entry[13] = fields.other;
            entry[14..16].copy_from_slice(&fields.shndx.to_be_bytes());
        }
    }
}

/// A symbol as a kind byte and a number, in its scratch slot.
fn encode(symbol: OutputSymbol) -> (u8, u32) {
    match symbol {
        OutputSymbol::Null => (0, 0),
        OutputSymbol::Section(index) => (1, u32::from(index)),
        OutputSymbol::File(file) => (2, u32::from(file)),
        OutputSymbol::Source(index) => (3, index),
        OutputSymbol::Linker(index) => (4, u32::from(index)),
        OutputSymbol::UndefinedStart => (5, 0),
    }
}

fn decode(kind: u8, number: [u8; 4]) -> OutputSymbol {
    let number = u32::from_be_bytes(number);
    match kind {
        1 => OutputSymbol::Section(number as u16),
        2 => OutputSymbol::File(number as u16),
        3 => OutputSymbol::Source(number),
        4 => OutputSymbol::Linker(number as u8),
        5 => OutputSymbol::UndefinedStart,
        _ => OutputSymbol::Null,
    }
}

/// One section header's fields.
struct Header {
    name: usize,
    kind: u32,
    flags: u64,
    address: u64,
    offset: u64,
    size: u64,
    link: u64,
    info: u64,
    align: u64,
    entry_size: u64,
}

fn output_header(section: &OutputSection, name: usize, offset: u64) -> Header {
    let mut flags = u64::from(abi::SHF_ALLOC);
    if section.kind == SectionKind::Code {
        flags |= u64::from(abi::SHF_EXECINSTR);
    }
    if section.writable {
        flags |= u64::from(abi::SHF_WRITE);
    }
    if section.tls {
        flags |= u64::from(abi::SHF_TLS);
    }
    Header {
        name,
        kind: if section.kind == SectionKind::Bss {
            abi::SHT_NOBITS
        } else {
            abi::SHT_PROGBITS
        },
        flags,
        address: u64::from(section.address),
        offset,
        size: u64::from(section.size),
        link: 0,
        info: 0,
        align: u64::from(section.align.max(1)),
        entry_size: 0,
    }
}

fn write_section_headers<const SYMS: usize>(
    w: &mut Writer<'_>,
    program: &Program<SYMS>,
    plan: &Plan,
) {
    let names = section_names(program);
    let name = |text: &str| super::strings::offset_of(names.clone(), text);
    let outputs = &program.output_sections;
    let plain = |name, kind, offset: usize, size: usize, align| Header {
        name,
        kind,
        flags: 0,
        address: 0,
        offset: offset as u64,
        size: size as u64,
        link: 0,
        info: 0,
        align,
        entry_size: 0,
    };
    let strtab_index = outputs.len() as u64 + 3;
    let mut at = plan.section_headers_offset + SECTION_HEADER_BYTES;
    let mut header = |w: &mut Writer<'_>, h: Header| {
        w.u32(at, h.name as u64);
        w.u32(at + 4, u64::from(h.kind));
        w.u32(at + 8, h.flags);
        w.u32(at + 12, h.address);
        w.u32(at + 16, h.offset);
        w.u32(at + 20, h.size);
        w.u32(at + 24, h.link);
        w.u32(at + 28, h.info);
        w.u32(at + 32, h.align);
        w.u32(at + 36, h.entry_size);
        at += SECTION_HEADER_BYTES;
    };
    for (index, section) in outputs.iter().enumerate() {
        let offset = plan.load.offsets.get(index).copied().unwrap_or(0);
        header(w, output_header(section, name(&section.name), offset));
    }
    let note = name(NOTE_SECTION);
    let note = plain(note, abi::SHT_NOTE, plan.note_offset, plan.note_size, 16);
    header(w, note);
    let count = plan.symbols.0 + plan.symbols.1;
    let symtab = Header {
        link: strtab_index,
        info: plan.symbols.0 as u64,
        entry_size: SYMBOL_BYTES as u64,
        ..plain(
            name(".symtab"),
            abi::SHT_SYMTAB,
            plan.symtab_offset,
            count * SYMBOL_BYTES,
            4,
        )
    };
    header(w, symtab);
    let strtab = plain(
        name(".strtab"),
        abi::SHT_STRTAB,
        plan.strtab_offset,
        plan.strtab_size,
        1,
    );
    header(w, strtab);
    let shstrtab = plain(
        name(".shstrtab"),
        abi::SHT_STRTAB,
        plan.shstrtab_offset,
        plan.shstrtab_size,
        1,
    );
    header(w, shstrtab);
}
