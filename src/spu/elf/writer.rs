//! Writing an assembled program as an SPU ELF executable, into a caller's buffer.
//!
//! The layout, in file order: the file header; one program header per segment (`.text`, then
//! `.data` with `.bss` in its memory size, or `.bss` alone); the image (`.text` at an offset
//! that is a multiple of 16, so each segment's offset and address agree modulo its 16-byte
//! alignment, the gap up to `.data`, `.data`); `.symtab`; `.strtab`; `.shstrtab`; the section
//! header table.

use elf::abi;

use super::error::ElfWriteError;
use super::format::{FILE_HEADER_BYTES, PROGRAM_HEADER_BYTES, SECTION_HEADER_BYTES, SYMBOL_BYTES};
use crate::spu::exec::LS_SIZE;
use crate::spu::isa::asm::{Program, SectionKind, Symbol, SymbolValue};

/// The section header string table: each name's offset is where it starts here.
const SECTION_NAMES: &[u8] = b"\0.text\0.data\0.bss\0.symtab\0.strtab\0.shstrtab\0";
const NAME_TEXT: u32 = 1;
const NAME_DATA: u32 = 7;
const NAME_BSS: u32 = 13;
const NAME_SYMTAB: u32 = 18;
const NAME_STRTAB: u32 = 26;
const NAME_SHSTRTAB: u32 = 34;
/// Alignment of both segments and of their sections (a quadword, the LS access unit).
const SEGMENT_ALIGN: usize = 16;

/// Where everything goes, computed once for the size and the writing.
struct Layout {
    has_data: bool,
    /// The zero-initialised sections' span in local store (empty when there are none).
    bss: core::ops::Range<usize>,
    program_headers: usize,
    text_offset: usize,
    symtab_offset: usize,
    symbols: usize,
    strtab_offset: usize,
    strtab_len: usize,
    shstrtab_offset: usize,
    section_headers_offset: usize,
    sections: usize,
    total: usize,
}

impl Layout {
    fn of<const SYMS: usize>(program: &Program<SYMS>) -> Result<Self, ElfWriteError> {
        if program.text_len == 0 {
            return Err(ElfWriteError::NoCode);
        }
        let bss = bss_span(program);
        if program.len > LS_SIZE as usize || bss.end > LS_SIZE as usize {
            return Err(ElfWriteError::TooLarge);
        }
        let has_data = program.data_len > 0;
        let has_bss = !bss.is_empty();
        let program_headers = 1 + usize::from(has_data || has_bss);
        let text_offset = (FILE_HEADER_BYTES + program_headers * PROGRAM_HEADER_BYTES)
            .next_multiple_of(SEGMENT_ALIGN);
        let symtab_offset = (text_offset + program.len).next_multiple_of(4);
        let symbols = 1 + symtab_symbols(program).count();
        let strtab_offset = symtab_offset + symbols * SYMBOL_BYTES;
        let strtab_len = 1 + symtab_symbols(program)
            .map(|s| s.name.len() + 1)
            .sum::<usize>();
        let shstrtab_offset = strtab_offset + strtab_len;
        let section_headers_offset = (shstrtab_offset + SECTION_NAMES.len()).next_multiple_of(4);
        // null, .text, .symtab, .strtab, .shstrtab, and .data and .bss when present.
        let sections = 5 + usize::from(has_data) + usize::from(has_bss);
        let total = section_headers_offset + sections * SECTION_HEADER_BYTES;
        if u32::try_from(total).is_err() {
            return Err(ElfWriteError::TooLarge);
        }
        Ok(Layout {
            has_data,
            bss,
            program_headers,
            text_offset,
            symtab_offset,
            symbols,
            strtab_offset,
            strtab_len,
            shstrtab_offset,
            section_headers_offset,
            sections,
            total,
        })
    }

    /// Section indices: 0 null, 1 `.text`, then `.data` and `.bss` when present.
    fn data_index(&self) -> u16 {
        2
    }

    fn bss_index(&self) -> u16 {
        2 + u16::from(self.has_data)
    }

    fn symtab_index(&self) -> u16 {
        2 + u16::from(self.has_data) + u16::from(!self.bss.is_empty())
    }
}

/// From the first zero-initialised section past the image's bytes to the end of the last
/// (ld puts them after the data). One that lies before data (`.bss` before a `.toe` with
/// bytes) is covered by the data's bytes, zeros in the file.
fn bss_span<const SYMS: usize>(program: &Program<SYMS>) -> core::ops::Range<usize> {
    let mut zeroed = program
        .sections
        .iter()
        .filter(|s| s.kind == SectionKind::Bss && s.size > 0 && s.address as usize >= program.len);
    let Some(first) = zeroed.next() else {
        return 0..0;
    };
    let start = first.address as usize;
    let end = zeroed
        .map(|s| (s.address + s.size) as usize)
        .fold((first.address + first.size) as usize, usize::max);
    start..end
}

/// The symbols that go into `.symtab`: all but the assembler's local labels, which GNU `as`
/// leaves out of the object file too: `.L` names (gas's `LOCAL_LABEL_PREFIX` for ELF) and
/// numeric local labels (`1:`, stored with a `\u{2}` instance mark).
fn symtab_symbols<const SYMS: usize>(program: &Program<SYMS>) -> impl Iterator<Item = &Symbol> {
    program
        .symbols
        .iter()
        .filter(|s| !s.name.starts_with(".L") && !s.name.contains('\u{2}'))
}

/// The bytes [`write_executable`] writes for `program`.
pub fn executable_size<const SYMS: usize>(program: &Program<SYMS>) -> Result<usize, ElfWriteError> {
    Layout::of(program).map(|layout| layout.total)
}

/// Writes `program`, assembled into `image`, as an SPU ELF executable at the start of `out`;
/// returns the bytes written ([`executable_size`]). Every symbol but the local labels (`.L`
/// names, numeric labels) becomes a global `STT_NOTYPE` symbol, in definition order: a label
/// of its section (`.text`, `.data` or `.bss`), a `.set` value absolute (`SHN_ABS`), as GNU
/// `as` writes them. Zero-initialised sections are `.bss`, a `SHT_NOBITS` section the data
/// segment's memory size covers. `e_entry` is the program's entry point.
pub fn write_executable<const SYMS: usize>(
    program: &Program<SYMS>,
    image: &[u8],
    out: &mut [u8],
) -> Result<usize, ElfWriteError> {
    let layout = Layout::of(program)?;
    let program_bytes = image
        .get(..program.len)
        .ok_or(ElfWriteError::ImageTooShort {
            needed: program.len,
            available: image.len(),
        })?;
    let too_small = ElfWriteError::BufferTooSmall {
        needed: layout.total,
        available: out.len(),
    };
    let file = out.get_mut(..layout.total).ok_or(too_small)?;
    file.fill(0);
    let mut w = Writer { file, ok: true };
    write_file_header(&mut w, program, &layout);
    write_program_headers(&mut w, program, &layout);
    w.bytes(layout.text_offset, program_bytes);
    write_symbols(&mut w, program, &layout);
    w.bytes(layout.shstrtab_offset, SECTION_NAMES);
    write_section_headers(&mut w, program, &layout);
    if w.ok {
        Ok(layout.total)
    } else {
        Err(too_small)
    }
}

/// Big-endian stores into the file; `ok` turns false if one fell outside it (the layout
/// makes that impossible, and the writer reports it rather than panicking).
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

    fn u32(&mut self, offset: usize, value: usize) {
        let value = u32::try_from(value).unwrap_or(u32::MAX);
        self.bytes(offset, &value.to_be_bytes());
    }
}

fn write_file_header<const SYMS: usize>(
    w: &mut Writer<'_>,
    program: &Program<SYMS>,
    layout: &Layout,
) {
    w.bytes(0, &abi::ELFMAGIC);
    w.bytes(
        abi::EI_CLASS,
        &[abi::ELFCLASS32, abi::ELFDATA2MSB, abi::EV_CURRENT],
    );
    w.u16(16, abi::ET_EXEC);
    w.u16(18, abi::EM_SPU);
    w.u32(20, usize::from(abi::EV_CURRENT));
    w.u32(24, program.entry as usize);
    w.u32(28, FILE_HEADER_BYTES);
    w.u32(32, layout.section_headers_offset);
    // 36: e_flags, 0.
    w.u16(40, FILE_HEADER_BYTES as u16);
    w.u16(42, PROGRAM_HEADER_BYTES as u16);
    w.u16(44, layout.program_headers as u16);
    w.u16(46, SECTION_HEADER_BYTES as u16);
    w.u16(48, layout.sections as u16);
    w.u16(50, layout.sections as u16 - 1);
}

fn write_program_headers<const SYMS: usize>(
    w: &mut Writer<'_>,
    program: &Program<SYMS>,
    layout: &Layout,
) {
    let mut segment = |index: usize, address: usize, file_size: usize, memory_size, flags: u32| {
        let at = FILE_HEADER_BYTES + index * PROGRAM_HEADER_BYTES;
        // A segment without file bytes points at the image's start, which agrees with any
        // 16-byte aligned address modulo the alignment.
        let offset = if file_size == 0 { 0 } else { address };
        w.u32(at, abi::PT_LOAD as usize);
        w.u32(at + 4, layout.text_offset + offset);
        w.u32(at + 8, address);
        w.u32(at + 12, address);
        w.u32(at + 16, file_size);
        w.u32(at + 20, memory_size);
        w.u32(at + 24, flags as usize);
        w.u32(at + 28, SEGMENT_ALIGN);
    };
    segment(
        0,
        0,
        program.text_len,
        program.text_len,
        abi::PF_R | abi::PF_X,
    );
    // `.bss` needs no bytes in the file: it is the memory size beyond the data's file size,
    // which a loader zeroes (or a segment of its own, of file size 0, without data).
    if layout.has_data {
        let memory_end = program.data_start + program.data_len;
        let memory_end = memory_end.max(layout.bss.end);
        segment(
            1,
            program.data_start,
            program.data_len,
            memory_end - program.data_start,
            abi::PF_R | abi::PF_W,
        );
    } else if !layout.bss.is_empty() {
        segment(
            1,
            layout.bss.start,
            0,
            layout.bss.len(),
            abi::PF_R | abi::PF_W,
        );
    }
}

fn write_symbols<const SYMS: usize>(w: &mut Writer<'_>, program: &Program<SYMS>, layout: &Layout) {
    // Entry 0 and string 0 stay zero: the null symbol and the empty name.
    let mut name_offset = 1;
    for (index, symbol) in symtab_symbols(program).enumerate() {
        // A `.set` value is no address: it goes to no section, as gas writes it.
        let section = match symbol.value {
            // The section header whose range holds the label: `.text` (code and the read-only
            // data ld puts with it), `.data`, `.bss`.
            SymbolValue::Label { section, .. } => {
                let kind = program.sections.get(usize::from(section)).map(|s| s.kind);
                let address = symbol.address as usize;
                let in_data =
                    (program.data_start..program.data_start + program.data_len).contains(&address);
                match kind {
                    Some(SectionKind::Code) => 1,
                    Some(SectionKind::Data) if address < program.text_len => 1,
                    Some(SectionKind::Data | SectionKind::Bss) if layout.has_data && in_data => {
                        layout.data_index()
                    }
                    Some(SectionKind::Data) if layout.has_data => layout.data_index(),
                    Some(SectionKind::Bss) if !layout.bss.is_empty() => layout.bss_index(),
                    // A label in an empty or unloaded section: an address, in no section's
                    // bytes.
                    _ => abi::SHN_ABS,
                }
            }
            _ => abi::SHN_ABS,
        };
        let at = layout.symtab_offset + (index + 1) * SYMBOL_BYTES;
        w.u32(at, name_offset);
        w.u32(at + 4, symbol.address as usize);
        // 8: st_size, 0 for a label.
        w.bytes(at + 12, &[(abi::STB_GLOBAL << 4) | abi::STT_NOTYPE, 0]);
        w.u16(at + 14, section);
        w.bytes(layout.strtab_offset + name_offset, symbol.name.as_bytes());
        name_offset += symbol.name.len() + 1;
    }
}

fn write_section_headers<const SYMS: usize>(
    w: &mut Writer<'_>,
    program: &Program<SYMS>,
    layout: &Layout,
) {
    struct Section {
        name: u32,
        kind: u32,
        flags: u32,
        address: usize,
        offset: usize,
        size: usize,
        link: usize,
        info: usize,
        align: usize,
        entry_size: usize,
    }
    let progbits = |name, flags, address: usize, size| Section {
        name,
        kind: abi::SHT_PROGBITS,
        flags,
        address,
        offset: layout.text_offset + address,
        size,
        link: 0,
        info: 0,
        align: SEGMENT_ALIGN,
        entry_size: 0,
    };
    let strings = |name, offset, size| Section {
        name,
        kind: abi::SHT_STRTAB,
        flags: 0,
        address: 0,
        offset,
        size,
        link: 0,
        info: 0,
        align: 1,
        entry_size: 0,
    };
    let strtab_index = usize::from(layout.symtab_index()) + 1;
    let mut sections = [
        progbits(
            NAME_TEXT,
            abi::SHF_ALLOC | abi::SHF_EXECINSTR,
            0,
            program.text_len,
        ),
        progbits(
            NAME_DATA,
            abi::SHF_ALLOC | abi::SHF_WRITE,
            program.data_start,
            program.data_len,
        ),
        Section {
            name: NAME_BSS,
            kind: abi::SHT_NOBITS,
            flags: abi::SHF_ALLOC | abi::SHF_WRITE,
            address: layout.bss.start,
            // A NOBITS section's offset is nominal; where its bytes would start.
            offset: layout.text_offset + layout.bss.start.min(program.len),
            size: layout.bss.len(),
            link: 0,
            info: 0,
            align: SEGMENT_ALIGN,
            entry_size: 0,
        },
        Section {
            name: NAME_SYMTAB,
            kind: abi::SHT_SYMTAB,
            flags: 0,
            address: 0,
            offset: layout.symtab_offset,
            size: layout.symbols * SYMBOL_BYTES,
            link: strtab_index,
            // One past the last local symbol: only the null symbol is local.
            info: 1,
            align: 4,
            entry_size: SYMBOL_BYTES,
        },
        strings(NAME_STRTAB, layout.strtab_offset, layout.strtab_len),
        strings(NAME_SHSTRTAB, layout.shstrtab_offset, SECTION_NAMES.len()),
    ];
    let present = sections.iter_mut().filter(|s| match s.name {
        NAME_DATA => layout.has_data,
        NAME_BSS => !layout.bss.is_empty(),
        _ => true,
    });
    // Section 0 is the null section, all zeros.
    for (index, section) in present.enumerate() {
        let at = layout.section_headers_offset + (index + 1) * SECTION_HEADER_BYTES;
        w.u32(at, section.name as usize);
        w.u32(at + 4, section.kind as usize);
        w.u32(at + 8, section.flags as usize);
        w.u32(at + 12, section.address);
        w.u32(at + 16, section.offset);
        w.u32(at + 20, section.size);
        w.u32(at + 24, section.link);
        w.u32(at + 28, section.info);
        w.u32(at + 32, section.align);
        w.u32(at + 36, section.entry_size);
    }
}
