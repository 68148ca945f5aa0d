//! The text `spu-objdump -d` (GNU binutils 2.40) prints for an SPU ELF file, from
//! `binutils/objdump.c`: the file line, then each section with code and bytes
//! (`Disassembly of section .text:`), cut at its symbols (`00000000 <_start>:`), each
//! instruction as its address, its four bytes and the disassembler's text (the library's
//! objdump syntax), where branch targets are named `<symbol+0x..>`; a run of eight or more
//! zero bytes is `...`; bytes under a data symbol (`STT_OBJECT`) are dumped 16 a line with
//! their characters.
//!
//! Which symbol names an address follows objdump: the symbols with a name, but not the section,
//! file, undefined or common ones, sorted by value, then those of the section being printed,
//! functions and objects before the rest, global before local, larger sizes first, names
//! with a `.` last, then by name (`compare_symbols`); and `find_symbol_for_address`.

use std::cmp::Ordering;
use std::fmt::Write;

use elf::abi;
use pmprobe::spu::isa::{SymbolLookup, disassemble_word};

use crate::elf_file::{FileSection, FileSymbol};

/// objdump's `DEFAULT_SKIP_ZEROES` and `DEFAULT_SKIP_ZEROES_AT_END`.
const SKIP_ZEROES: usize = 8;
const SKIP_ZEROES_AT_END: usize = 3;

/// A symbol as objdump keeps it for disassembly.
#[derive(Clone, Debug)]
struct Sym<'a> {
    name: &'a str,
    value: u32,
    size: u32,
    /// The name of its section (`*ABS*` for an absolute one).
    section: &'a str,
    function: bool,
    object: bool,
    local: bool,
    global: bool,
}

/// objdump's `remove_useless_symbols`: named, not section or file symbols (bfd marks both as
/// debugging), not undefined or common.
fn useful<'a>(symbols: &'a [FileSymbol], sections: &'a [FileSection]) -> Vec<Sym<'a>> {
    symbols
        .iter()
        .filter(|s| !s.name.is_empty())
        .filter(|s| !matches!(s.kind, abi::STT_SECTION | abi::STT_FILE))
        .filter(|s| s.section != abi::SHN_UNDEF && s.section != abi::SHN_COMMON)
        .map(|s| Sym {
            name: &s.name,
            value: s.value,
            size: s.size,
            section: match s.section {
                abi::SHN_ABS => "*ABS*",
                index => sections
                    .get(usize::from(index))
                    .map_or("", |section| section.name.as_str()),
            },
            function: s.kind == abi::STT_FUNC,
            object: s.kind == abi::STT_OBJECT,
            local: s.binding == abi::STB_LOCAL,
            global: s.binding == abi::STB_GLOBAL,
        })
        .collect()
}

/// objdump's `compare_symbols`, with `section` the one being disassembled.
fn compare(a: &Sym<'_>, b: &Sym<'_>, section: &str) -> Ordering {
    let flag_first = |x: bool, y: bool| match (x, y) {
        (true, false) => Some(Ordering::Less),
        (false, true) => Some(Ordering::Greater),
        _ => None,
    };
    let file_like =
        |s: &Sym<'_>| s.name.len() > 2 && (s.name.ends_with(".o") || s.name.ends_with(".a"));
    let compiled =
        |s: &Sym<'_>| s.name.contains("gnu_compiled") || s.name.contains("gcc2_compiled");
    a.value.cmp(&b.value).then_with(|| {
        flag_first(a.section == section, b.section == section)
            .or_else(|| flag_first(!compiled(a), !compiled(b)))
            .or_else(|| flag_first(!file_like(a), !file_like(b)))
            .or_else(|| flag_first(a.function, b.function))
            .or_else(|| flag_first(a.object, b.object))
            .or_else(|| flag_first(!a.local, !b.local))
            .or_else(|| flag_first(a.global, b.global))
            .or_else(|| (a.size != b.size).then(|| b.size.cmp(&a.size)))
            .or_else(|| flag_first(!a.name.starts_with('.'), !b.name.starts_with('.')))
            .unwrap_or_else(|| a.name.cmp(b.name))
    })
}

/// The sorted symbols while one section is disassembled.
struct Sorted<'a> {
    symbols: Vec<Sym<'a>>,
    section: &'a str,
}

impl Sorted<'_> {
    fn value(&self, place: usize) -> u32 {
        self.symbols.get(place).map_or(0, |s| s.value)
    }

    /// `sym_ok`: in the section being printed, when one is wanted.
    fn ok(&self, want_section: bool, place: usize) -> bool {
        self.symbols
            .get(place)
            .is_some_and(|s| !want_section || s.section == self.section)
    }

    /// objdump's `find_symbol_for_address` in a linked file (no relocations):
    /// `want_section` is its `require_sec`.
    fn find(&self, vma: u32, want_section: bool) -> Option<usize> {
        let count = self.symbols.len();
        if count < 1 {
            return None;
        }
        let (mut min, mut max) = (0usize, count);
        while min + 1 < max {
            let place = (max + min) / 2;
            match self.value(place).cmp(&vma) {
                Ordering::Greater => max = place,
                Ordering::Less => min = place,
                Ordering::Equal => {
                    min = place;
                    break;
                }
            }
        }
        let mut place = min;
        while place > 0 && self.value(place) == self.value(place - 1) {
            place -= 1;
        }
        let mut min = place;
        while min < max && self.value(min) == self.value(place) {
            if self.ok(true, min) {
                return Some(min);
            }
            min += 1;
        }
        if !self.ok(want_section, place) {
            let mut newplace = count;
            for i in (0..min).rev() {
                if self.ok(want_section, i) {
                    if newplace == count {
                        newplace = i;
                    }
                    if self.value(i) != self.value(newplace) {
                        break;
                    }
                    newplace = i;
                }
            }
            if newplace != count {
                place = newplace;
            } else if let Some(i) = (place + 1..count).find(|&i| self.ok(want_section, i)) {
                place = i;
            }
            if !self.ok(want_section, place) {
                return None;
            }
        }
        Some(place)
    }
}

impl SymbolLookup for Sorted<'_> {
    fn symbol_at(&self, address: u32) -> Option<&str> {
        // binutils' `symbol_at_address_func`: the symbol found for the address, if it is
        // exactly there.
        self.find(address, false)
            .and_then(|place| self.symbols.get(place))
            .filter(|s| s.value == address)
            .map(|s| s.name)
    }

    fn symbol_before(&self, address: u32) -> Option<(&str, u32)> {
        self.find(address, false)
            .and_then(|place| self.symbols.get(place))
            .map(|s| (s.name, s.value))
    }
}

/// `objdump_print_value` without leading zeros.
fn hex(value: u32) -> String {
    format!("{value:x}")
}

/// The `<symbol+0x..>` (or `<section+0x..>`) text for `vma`, objdump's
/// `objdump_print_addr_with_sym`.
fn label(symbol: Option<&Sym<'_>>, vma: u32, section: &FileSection) -> String {
    let (name, base) = match symbol {
        Some(s) => (s.name, s.value),
        None => (section.name.as_str(), section.address),
    };
    match vma.cmp(&base) {
        Ordering::Equal => format!("<{name}>"),
        Ordering::Less => format!("<{name}-0x{}>", hex(base - vma)),
        Ordering::Greater => format!("<{name}+0x{}>", hex(vma - base)),
    }
}

/// The text `spu-objdump -d FILE` prints, `name` being FILE as given.
pub fn disassembly(name: &str, sections: &[FileSection], symbols: &[FileSymbol]) -> String {
    let mut out = format!("\n{name}:     file format elf32-spu\n\n");
    let all = useful(symbols, sections);
    for section in sections {
        let code = section.is_code() && section.kind != abi::SHT_NOBITS;
        if !code || section.size == 0 || section.bytes.is_empty() {
            continue;
        }
        let mut sorted = Sorted {
            symbols: all.clone(),
            section: &section.name,
        };
        sorted.symbols.sort_by(|a, b| compare(a, b, &section.name));
        disassemble_section(&mut out, section, &sorted);
    }
    out
}

/// objdump's `disassemble_section`.
fn disassemble_section(out: &mut String, section: &FileSection, sorted: &Sorted<'_>) {
    let _ = write!(out, "\nDisassembly of section {}:\n", section.name);
    let stop = section.bytes.len().min(section.size as usize) as u32;
    let mut place = sorted.find(section.address, true);
    let mut offset = 0u32;
    while offset < stop {
        let addr = section.address + offset;
        let symbol = place.and_then(|p| sorted.symbols.get(p));
        let _ = write!(out, "\n{addr:08x} {}:\n", label(symbol, addr, section));
        let next = match (symbol, place) {
            (Some(s), _) if s.value > addr => place,
            (None, _) | (_, None) => None,
            (Some(s), Some(mut p)) => {
                let valid = |x: &Sym<'_>| x.section == section.name && x.value > s.value;
                while p < sorted.symbols.len() && !sorted.symbols.get(p).is_some_and(valid) {
                    p += 1;
                }
                (p < sorted.symbols.len()).then_some(p)
            }
        };
        let mut next_stop = match (symbol, next.and_then(|p| sorted.symbols.get(p))) {
            (Some(s), _) if s.value > addr => s.value - section.address,
            (_, None) => stop,
            (_, Some(n)) => n.value.wrapping_sub(section.address),
        };
        if next_stop > stop || next_stop <= offset {
            next_stop = stop;
        }
        // A data object's bytes are dumped, not disassembled.
        let insns = match symbol {
            None => true,
            Some(s) => {
                s.section != section.name
                    || s.value > addr
                    || !s.object
                    || s.name.contains("gnu_compiled")
                    || s.name.contains("gcc2_compiled")
                    || s.function
            }
        };
        disassemble_bytes(out, section, sorted, insns, (offset, next_stop));
        offset = next_stop;
        place = next;
    }
}

/// objdump's `disassemble_bytes` for `start..stop` (offsets in `section`).
fn disassemble_bytes(
    out: &mut String,
    section: &FileSection,
    sorted: &Sorted<'_>,
    insns: bool,
    (start, stop): (u32, u32),
) {
    let data = &section.bytes;
    let per_line: u32 = if insns { 4 } else { 16 };
    // Leading zeros of the addresses are dropped in fours, keeping one.
    let last = format!("{:08x}", section.address.wrapping_add(section.size));
    let mut skip = last.bytes().take_while(|&c| c == b'0').count();
    if skip == last.len() && section.address != 0 {
        skip = 0;
    }
    if skip != 0 {
        skip = (skip - 1) & !3;
    }
    let address_text = |address: u32| {
        let full = format!("{address:08x}");
        let kept = &full[skip..];
        let zeros = kept.bytes().take_while(|&c| c == b'0').count();
        if zeros == kept.len() {
            format!("{}0", " ".repeat(kept.len() - 1))
        } else {
            format!("{}{}", " ".repeat(zeros), &kept[zeros..])
        }
    };
    let mut offset = start;
    while offset < stop {
        let zeros = (offset..stop)
            .take_while(|&o| data.get(o as usize) == Some(&0))
            .count();
        let at_end = offset as usize + zeros == stop as usize;
        if zeros >= SKIP_ZEROES || (at_end && zeros < SKIP_ZEROES_AT_END) {
            let skipped = if at_end { zeros } else { zeros & !3 };
            out.push_str("\t...\n");
            offset += skipped as u32;
            continue;
        }
        let address = section.address + offset;
        let _ = write!(out, "{}:\t", address_text(address));
        let octets = if insns {
            4.min(stop - offset)
        } else {
            per_line.min(stop - offset)
        };
        let bytes = data
            .get(offset as usize..(offset + octets) as usize)
            .unwrap_or(&[]);
        for byte in bytes {
            let _ = write!(out, "{byte:02x} ");
        }
        for _ in bytes.len()..per_line as usize {
            out.push_str("   ");
        }
        if insns {
            out.push('\t');
            if let [a, b, c, d] = *bytes {
                let word = u32::from_be_bytes([a, b, c, d]);
                let _ = disassemble_word(word, address, sorted, out);
            }
        } else {
            out.push_str("    ");
            for &byte in bytes {
                let printable = byte.is_ascii_graphic() || byte == b' ';
                out.push(if printable { char::from(byte) } else { '.' });
            }
        }
        out.push('\n');
        offset += octets.max(1);
    }
}
