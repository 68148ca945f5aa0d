//! Zero-initialised symbols: `.lcomm`, SPU's `.bss` and `.comm`, placed where gas and ld put
//! them, which is known only once the first pass has read everything.
//!
//! - `.lcomm sym, size` and `.bss sym, size, align` (SPU gas: `tc-spu.c` maps `bss` to
//!   `s_lcomm_bytes`, alignment in bytes and required) take room in `.bss` after everything
//!   else in it (gas's `bss_alloc` uses subsection 1), in source order. `.lcomm` aligns by
//!   size, as gas's `TC_IMPLICIT_LCOMM_ALIGNMENT` does: 8 bytes from size 8, 4 from 4, 2
//!   from 2. A bare `.bss` is an error, as in gas.
//! - `.comm sym, size[, align]` makes a common symbol, which ld allocates in `COMMON` at the
//!   end of `.bss`, in the order of its global symbol hash table (`bfd_hash_hash` of the
//!   name, modulo the table's 4051 buckets; within a bucket the later symbol first), each
//!   aligned to its alignment: the given one rounded up to a power of two, or, without one,
//!   the size's rounded up to a power of two and at most 16 (`elf.c`).
//!
//! The first pass records each one; between the passes they are placed; the second pass
//! takes the k-th directive's place from the k-th record.

use super::error::AsmErrorKind;
use super::pass::Pass;
use super::section::{Attributes, SectionInfo};
use super::symbols::{
    Binding, Common, Definition, MAX_COMMONS, SymbolName, SymbolTable, SymbolType, SymbolValue,
};
use super::text::{Located, PResult, Span, err, ident_len, operands};

/// ld's hash table size for the global symbols (`bfd/hash.c` `DEFAULT_SIZE`).
const LD_HASH_BUCKETS: u64 = 4051;

/// The bucket of `name` in ld's global symbol hash table, whose traversal orders the `COMMON`
/// symbols and the global symbols of the linked file's `.symtab`.
pub fn ld_hash_bucket(name: &str) -> u64 {
    ld_hash(name) % LD_HASH_BUCKETS
}

/// `bfd_hash_hash` (`bfd/hash.c`), in a 64-bit `unsigned long` as on the hosts spu-ld runs on.
fn ld_hash(name: &str) -> u64 {
    let mut hash: u64 = 0;
    for c in name.bytes() {
        let c = u64::from(c);
        hash = hash.wrapping_add(c.wrapping_add(c << 17));
        hash ^= hash >> 2;
    }
    let len = name.len() as u64;
    hash = hash.wrapping_add(len.wrapping_add(len << 17));
    hash ^= hash >> 2;
    hash
}

/// `1 << bfd_log2(value)`: the power of two at or above `value` (1 for 0).
fn power_of_two_at_least(value: u64) -> u32 {
    u32::try_from(value.max(1).next_power_of_two()).unwrap_or(1 << 31)
}

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// The symbol name and size of `sym, size...`; the list's remaining arguments follow.
    fn name_and_size<'a>(
        &self,
        at: usize,
        args: Span<'a>,
    ) -> PResult<(
        Span<'a>,
        u32,
        impl Iterator<Item = Span<'a>> + use<'a, SYMS>,
    )> {
        let mut list = operands(args);
        let Some(sym) = list.next().map(Span::trim).filter(|s| !s.text.is_empty()) else {
            return err(
                at,
                AsmErrorKind::UnexpectedToken {
                    expected: "a symbol name",
                },
            );
        };
        if ident_len(sym.text) != sym.text.len() {
            return sym.err(AsmErrorKind::ExpectedExpression);
        }
        let Some(size) = list.next() else {
            return err(
                sym.offset + sym.text.len(),
                AsmErrorKind::UnexpectedToken {
                    expected: "`,` and a size",
                },
            );
        };
        let bytes = self.constant(size)?;
        let max = self.capacity as i64;
        if !(0..=max).contains(&bytes) {
            return size.err(AsmErrorKind::ImmediateOutOfRange {
                operand: 2,
                value: bytes,
                min: 0,
                max,
            });
        }
        Ok((sym, bytes as u32, list))
    }

    /// `.lcomm sym, size` and SPU's `.bss sym, size, align`.
    pub(super) fn local_common(&mut self, d: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let (sym, size, mut rest) = self.name_and_size(at, args)?;
        let align = if d == "bss" {
            let Some(span) = rest.next() else {
                return err(
                    args.trim().offset + args.trim().text.len(),
                    AsmErrorKind::UnexpectedToken {
                        expected: "`,` and an alignment (`.bss symbol, size, alignment`)",
                    },
                );
            };
            let value = self.constant(span)?;
            if value < 0 || (value != 0 && value & (value - 1) != 0) {
                return span.err(AsmErrorKind::InvalidAlignment { value });
            }
            (value as u32).max(1)
        } else {
            match size {
                8.. => 8,
                4..=7 => 4,
                2..=3 => 2,
                _ => 1,
            }
        };
        if let Some(extra) = rest.next() {
            return extra.err(AsmErrorKind::UnexpectedToken {
                expected: "end of statement",
            });
        }
        self.record_common(sym, size, align, true, at)
    }

    /// `.comm sym, size[, align]`.
    pub(super) fn common(&mut self, at: usize, args: Span<'_>) -> PResult<()> {
        let (sym, size, mut rest) = self.name_and_size(at, args)?;
        let align = match rest.next() {
            Some(span) => self.constant(span)?.max(0) as u64,
            None => 0,
        };
        if let Some(extra) = rest.next() {
            return extra.err(AsmErrorKind::UnexpectedToken {
                expected: "end of statement",
            });
        }
        let align = if align == 0 {
            power_of_two_at_least(u64::from(size)).min(16)
        } else {
            power_of_two_at_least(align)
        };
        self.record_common(sym, size, align, false, at)
    }

    /// Opens `section` (zero-initialised) without making it the current one.
    fn switch_to_keep(&mut self, section: &str, at: usize) -> PResult<u8> {
        let writable = Attributes::from_flags("aw");
        self.sections
            .open(section, Some(writable), Some(true))
            .map_err(|kind| Located { offset: at, kind })
    }

    fn record_common(
        &mut self,
        sym: Span<'_>,
        size: u32,
        align: u32,
        local: bool,
        at: usize,
    ) -> PResult<()> {
        let section_name = if local { ".bss" } else { "COMMON" };
        let section = self.switch_to_keep(section_name, at)?;
        // A second `.comm` of a common symbol keeps the first (gas warns about another size).
        if !local
            && let Some(symbol) = self.symbols.find(sym.text)
            && symbol.defined
            && symbol.value_section() == Some(section)
        {
            return Ok(());
        }
        let name = SymbolName::new(sym.text).map_err(|kind| Located {
            offset: sym.offset,
            kind,
        })?;
        let located = |kind| Located { offset: at, kind };
        let offset = if self.final_pass {
            let record = self.commons.get(self.next_common).copied();
            self.next_common += 1;
            record.map_or(0, |c| c.offset)
        } else {
            0
        };
        self.define(
            name,
            SymbolValue::Label { section, offset },
            Definition::Label,
            false,
            sym.offset,
        )?;
        if let Some(symbol) = self.symbols.find_mut(sym.text) {
            // gas makes them objects of their size; `.comm` ones global and common.
            let attributes = &mut symbol.attributes;
            attributes.kind = SymbolType::Object;
            attributes.size = attributes.size.max(size);
            if !local {
                attributes.common = true;
                if attributes.binding == Binding::Local {
                    attributes.binding = Binding::Global;
                }
            }
        }
        if !self.final_pass {
            let symbol = self.symbols.position(sym.text).unwrap_or(0) as u32;
            self.commons
                .push(Common {
                    symbol,
                    size,
                    align,
                    local,
                    offset: 0,
                })
                .map_err(|_| {
                    located(AsmErrorKind::TooManySymbols {
                        capacity: MAX_COMMONS,
                    })
                })?;
        }
        Ok(())
    }

    /// After the first pass: `.lcomm` room after `.bss`'s own bytes; every `.lcomm` symbol
    /// gets its offset. (The `.comm` symbols are placed by the link, see
    /// [`place_global_commons`].)
    pub(super) fn place_local_commons(&mut self) {
        if let Some(bss) = self.sections.list.iter().position(|s| s.name == ".bss") {
            let mut end = self.offsets.get(bss).copied().unwrap_or(0);
            let mut align = 1;
            for common in self.commons.iter_mut().filter(|c| c.local) {
                if common.align > 1 {
                    align = align.max(common.align);
                    end = end.next_multiple_of(common.align);
                }
                common.offset = end;
                end = end.saturating_add(common.size);
            }
            if let Some(section) = self.sections.list.get_mut(bss) {
                section.size = section.size.max(end);
                section.align = section.align.max(align);
            }
        }
        let commons = &self.commons;
        for common in commons.iter().filter(|c| c.local) {
            if let Some(symbol) = self.symbols.entries.get_mut(common.symbol as usize)
                && let SymbolValue::Label { section, .. } = symbol.value
            {
                symbol.value = SymbolValue::Label {
                    section,
                    offset: common.offset,
                };
                symbol.first = symbol.value;
            }
        }
    }
}

/// The `.comm` symbols of every source (`records`, with their symbols in `table`), merged and
/// placed as ld does: a name some source defines as a global symbol is that definition (its
/// records get `definition`); the others are one common symbol per name, of the largest size
/// and alignment asked for. Each goes into the `COMMON` section of the source whose record set
/// its size (the first of the largest), and each source's `COMMON` takes its symbols in the
/// order of ld's global symbol hash table (by bucket, and within a bucket the later symbol
/// first), each at its alignment; `sections` get their `COMMON` sizes and alignments, and
/// every record its `placed` source and offset.
// Not inlined: its locals stay off the stack the passes run on.
#[inline(never)]
pub(super) fn place_global_commons<const SYMS: usize>(
    records: &mut [LinkCommon],
    table: &SymbolTable<SYMS>,
    sections: &mut [SectionInfo],
) {
    let name = |index: u32| {
        table
            .entries
            .get(index as usize)
            .map_or("", |s| s.name.as_str())
    };
    let mut records: heapless::Vec<&mut LinkCommon, MAX_LINK_COMMONS> =
        records.iter_mut().filter(|r| !r.common.local).collect();
    for record in records.iter_mut() {
        let wanted = name(record.common.symbol);
        record.definition = table
            .entries
            .iter()
            .position(|s| {
                s.name == wanted
                    && s.is_defined()
                    && s.attributes.binding == Binding::Global
                    && !s.attributes.common
            })
            .and_then(|i| u32::try_from(i).ok());
    }
    // One entry per name: (bucket, its earliest symbol, size, alignment, owner source).
    let mut merged: heapless::Vec<(u64, u32, u32, u32, u16), MAX_LINK_COMMONS> =
        heapless::Vec::new();
    for record in records.iter().filter(|r| r.definition.is_none()) {
        let symbol = record.common.symbol;
        let (size, align) = (record.common.size, record.common.align);
        match merged.iter_mut().find(|m| name(m.1) == name(symbol)) {
            Some(entry) => {
                entry.1 = entry.1.min(symbol);
                if size > entry.2 {
                    // bfd takes the section of the larger symbol.
                    entry.2 = size;
                    entry.4 = record.file;
                }
                entry.3 = entry.3.max(align);
            }
            None => {
                // Capacity: one entry per record at most.
                let _ = merged.push((0, symbol, size, align, record.file));
            }
        }
    }
    for entry in merged.iter_mut() {
        entry.0 = ld_hash_bucket(name(entry.1));
    }
    // ld's hash traversal: by bucket, and within a bucket the last inserted first.
    merged.sort_unstable_by_key(|&(bucket, symbol, ..)| (bucket, u32::MAX - symbol));
    for &(_, symbol, size, align, owner) in &merged {
        let Some(common) = sections
            .iter_mut()
            .find(|s| s.file == owner && s.name == "COMMON")
        else {
            continue;
        };
        let offset = common.size.next_multiple_of(align);
        common.size = offset.saturating_add(size);
        common.align = common.align.max(align);
        for record in records.iter_mut().filter(|r| r.definition.is_none()) {
            if name(record.common.symbol) == name(symbol) {
                record.placed = (owner, offset);
            }
        }
    }
}

/// Most `.lcomm`, `.bss` and `.comm` records of all the sources of a link together.
pub const MAX_LINK_COMMONS: usize = MAX_COMMONS;

/// A `.comm` record of one source, in the link.
#[derive(Clone, Copy, Debug)]
pub(super) struct LinkCommon {
    /// The source.
    pub file: u16,
    /// The record (its symbol an index into the whole table); the offset in `COMMON`.
    pub common: Common,
    /// The global symbol some source defines under its name, which it is (its index).
    pub definition: Option<u32>,
    /// Otherwise: the source whose `COMMON` holds it, and its offset there.
    pub placed: (u16, u32),
}
