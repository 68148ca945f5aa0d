//! Where the sections of a link go in local store: as `spu-ld` 2.40 places the sections of its
//! objects with its default script (`ld --verbose`), which is what `spu-gcc` links with.
//!
//! - Output sections in the script's order: `.interrupt`, `.init`, `.plt`, `.iplt`, `.text`
//!   (its input sections grouped by the script's patterns: `.text.unlikely*`, `.text.exit*`,
//!   `.text.startup*`, `.text.hot*`, `.text.sorted.*` by name, then `.text`, `.stub`,
//!   `.text.*`), `.fini`, `.rodata`, `.rodata1`, `.fixup`, the read-only unwind tables, then,
//!   at `ALIGN(0x80)`, the writable unwind tables, `.tdata`, `.tbss`, the init/fini arrays
//!   (which take `.ctors`/`.dtors`), `.jcr`, `.data.rel.ro`, `.dynamic`, `.got`, `.data`,
//!   `.data1`, `.bss` (`.bss*`, then `COMMON`, the whole rounded to 16 bytes), and `.toe` at
//!   `ALIGN(128)`.
//! - Within a pattern group, input sections come by source (the link's order), then in the
//!   object's order (`.text`, `.data`, `.bss`, then as first used), as ld walks its inputs.
//! - A section no pattern names is an orphan: ld makes it an output section of its own name
//!   (the orphans of one name from every source together), placed after the output section of
//!   its kind: code after `.text`, read-only data after `.rodata`, writable data after
//!   `.data`, zero-initialised data after `.bss`.
//! - An output section starts at its largest input alignment; each input section at its
//!   own.
//! - A section that is not allocated is placed nowhere (address 0).
//!
//! Sections with no bytes take no room: ld drops an empty output section, so its alignment
//! moves nothing.

use super::section::{NO_OUTPUT, SectionInfo, SectionKind};
use super::symbols::SymbolName;

/// ld's output sections and orphan places, in the order the script gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Slot {
    Interrupt,
    Init,
    Plt,
    Iplt,
    Text,
    CodeOrphan,
    Fini,
    Rodata,
    RodataOrphan,
    Rodata1,
    Fixup,
    EhFrameHdr,
    EhFrame,
    Sframe,
    GccExceptTable,
    GnuExtab,
    // `. = ALIGN(0x80)`: the data segment.
    EhFrameWritable,
    SframeWritable,
    GnuExtabWritable,
    GccExceptTableWritable,
    Tdata,
    TdataOrphan,
    Tbss,
    TbssOrphan,
    PreinitArray,
    InitArray,
    FiniArray,
    Jcr,
    DataRelRo,
    Dynamic,
    Got,
    Data,
    DataOrphan,
    Data1,
    Bss,
    BssOrphan,
    // `.toe ALIGN(128)`.
    Toe,
    NotLoaded,
}

impl Slot {
    /// The output section's name, for the script's own sections.
    fn name(self) -> Option<&'static str> {
        use Slot::*;
        Some(match self {
            Interrupt => ".interrupt",
            Init => ".init",
            Plt => ".plt",
            Iplt => ".iplt",
            Text => ".text",
            Fini => ".fini",
            Rodata => ".rodata",
            Rodata1 => ".rodata1",
            Fixup => ".fixup",
            EhFrameHdr => ".eh_frame_hdr",
            EhFrame | EhFrameWritable => ".eh_frame",
            Sframe | SframeWritable => ".sframe",
            GccExceptTable | GccExceptTableWritable => ".gcc_except_table",
            GnuExtab | GnuExtabWritable => ".gnu_extab",
            Tdata => ".tdata",
            Tbss => ".tbss",
            PreinitArray => ".preinit_array",
            InitArray => ".init_array",
            FiniArray => ".fini_array",
            Jcr => ".jcr",
            DataRelRo => ".data.rel.ro",
            Dynamic => ".dynamic",
            Got => ".got",
            Data => ".data",
            Data1 => ".data1",
            Bss => ".bss",
            Toe => ".toe",
            CodeOrphan | RodataOrphan | TdataOrphan | TbssOrphan | DataOrphan | BssOrphan
            | NotLoaded => return None,
        })
    }

    fn is_orphan(self) -> bool {
        self.name().is_none() && self != Slot::NotLoaded
    }
}

/// The first slot of the data segment, which starts at `ALIGN(0x80)`.
pub(super) const DATA_SEGMENT: Slot = Slot::EhFrameWritable;
/// ld's `. = ALIGN(0x80)` before the data.
pub(super) const DATA_ALIGN: u64 = 0x80;

fn dotted(name: &str, prefix: &str) -> bool {
    name == prefix
        || name
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The `.text` pattern group of `name`, if the `.text` output section takes it.
fn text_group(name: &str) -> Option<u8> {
    let starts = |prefix: &str| name.starts_with(prefix);
    if dotted(name, ".text.unlikely") || (starts(".text.") && name.ends_with("_unlikely")) {
        Some(0)
    } else if dotted(name, ".text.exit") {
        Some(1)
    } else if dotted(name, ".text.startup") {
        Some(2)
    } else if dotted(name, ".text.hot") {
        Some(3)
    } else if starts(".text.sorted.") {
        Some(4)
    } else if dotted(name, ".text") || name == ".stub" || starts(".gnu.linkonce.t.") {
        Some(5)
    } else if name == ".gnu.warning" {
        Some(6)
    } else {
        None
    }
}

/// The unwind and exception tables, which go before the data segment when read-only
/// (`ONLY_IF_RO`) and in it when writable.
fn table_slot(name: &str, read_only: bool) -> Option<Slot> {
    use Slot::*;
    let (ro, rw) = if dotted(name, ".eh_frame") {
        (EhFrame, EhFrameWritable)
    } else if dotted(name, ".sframe") {
        (Sframe, SframeWritable)
    } else if dotted(name, ".gcc_except_table") {
        (GccExceptTable, GccExceptTableWritable)
    } else if name.starts_with(".gnu_extab") {
        (GnuExtab, GnuExtabWritable)
    } else {
        return None;
    };
    Some(if read_only { ro } else { rw })
}

/// The output section and pattern group the default script puts `section` in.
fn slot(section: &SectionInfo) -> (Slot, u8) {
    use Slot::*;
    let name = section.name.as_str();
    if section.kind == SectionKind::NotLoaded {
        return (NotLoaded, 0);
    }
    if let Some(group) = text_group(name) {
        return (Text, group);
    }
    let a = section.attributes;
    let starts = |prefix: &str| name.starts_with(prefix);
    let named = match name {
        ".interrupt" => Some((Interrupt, 0)),
        ".init" => Some((Init, 0)),
        ".plt" => Some((Plt, 0)),
        ".iplt" => Some((Iplt, 0)),
        ".fini" => Some((Fini, 0)),
        ".rodata1" => Some((Rodata1, 0)),
        ".fixup" => Some((Fixup, 0)),
        ".eh_frame_hdr" => Some((EhFrameHdr, 0)),
        ".data1" => Some((Data1, 0)),
        ".jcr" => Some((Jcr, 0)),
        ".dynamic" => Some((Dynamic, 0)),
        ".got.plt" => Some((Got, 0)),
        ".igot.plt" => Some((Got, 1)),
        ".got" => Some((Got, 2)),
        ".igot" => Some((Got, 3)),
        ".dynbss" => Some((Bss, 0)),
        "COMMON" => Some((Bss, 2)),
        ".toe" => Some((Toe, 0)),
        ".preinit_array" => Some((PreinitArray, 0)),
        ".init_array" | ".ctors" => Some((InitArray, 1)),
        ".fini_array" | ".dtors" => Some((FiniArray, 1)),
        _ => None,
    };
    if let Some(found) = named {
        return found;
    }
    if let Some(table) = table_slot(name, !a.write) {
        return (table, 0);
    }
    if dotted(name, ".rodata") || starts(".gnu.linkonce.r.") {
        (Rodata, 0)
    } else if dotted(name, ".tdata") || starts(".gnu.linkonce.td.") {
        (Tdata, 0)
    } else if dotted(name, ".tbss") || starts(".gnu.linkonce.tb.") || name == ".tcommon" {
        (Tbss, 0)
    } else if starts(".init_array.") || starts(".ctors.") {
        (InitArray, 0)
    } else if starts(".fini_array.") || starts(".dtors.") {
        (FiniArray, 0)
    } else if starts(".data.rel.ro") || starts(".gnu.linkonce.d.rel.ro.") {
        (DataRelRo, 0)
    } else if dotted(name, ".data") || starts(".gnu.linkonce.d.") {
        (Data, 0)
    } else if dotted(name, ".bss") || starts(".gnu.linkonce.b.") {
        (Bss, 1)
    } else {
        // An orphan: after the output section of its kind (ld's `ldelf_place_orphan`).
        let slot = match (section.kind, a.tls, a.write) {
            (SectionKind::Code, ..) => CodeOrphan,
            (SectionKind::Bss, true, _) => TbssOrphan,
            (SectionKind::Bss, ..) => BssOrphan,
            (_, true, _) => TdataOrphan,
            (_, _, true) => DataOrphan,
            _ => RodataOrphan,
        };
        (slot, 0)
    }
}

/// The object's order of a section: gas writes `.text`, `.data`, `.bss` first, then the
/// others as they were first used.
fn object_order(section: &SectionInfo, index: usize) -> usize {
    match section.name.as_str() {
        ".text" => 0,
        ".data" => 1,
        ".bss" => 2,
        _ => 3 + index,
    }
}

/// One output section of the link, as the linked ELF file lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputSection {
    /// `.text`, `.data`, ... or an orphan's own name.
    pub name: SymbolName,
    /// What it holds (the first input section's kind).
    pub kind: SectionKind,
    /// Local-store address of its first byte.
    pub address: u32,
    /// Bytes, from its start to the end of its last input section (`.bss` rounded to 16).
    pub size: u32,
    /// The largest alignment of its input sections.
    pub align: u32,
    /// Writable (`SHF_WRITE`).
    pub writable: bool,
    /// Thread-local (`SHF_TLS`).
    pub tls: bool,
    /// Its place in the script.
    pub(super) slot: Slot,
}

/// Where the groups of sections ended up.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Layout {
    /// End of the text segment (code and read-only data, from address 0).
    pub text_end: u64,
    /// Start of the data segment: `ALIGN(0x80)` after the text, or the first data section.
    pub data_start: u64,
    /// End of the last section with bytes in the image.
    pub image_end: u64,
    /// End of everything placed, zero-initialised sections included.
    pub end: u64,
    /// `.` after `.fini` (the script's `etext`).
    pub text_dot: u64,
    /// `.` after `.data1` (the script's `_edata`, `__bss_start`).
    pub data_dot: u64,
    /// `.` at the script's `_end`: after `.toe`, rounded to 16.
    pub end_dot: u64,
}

/// An input section in link order: slot, pattern group, source and order within it (or the
/// first appearance of an orphan's name), and its index in the list.
type Placed = (Slot, u8, (usize, usize), usize);

/// Link order of `list`: by slot, by pattern group, then by source and object order (by name
/// within `.text.sorted.*`; orphans of one name together, in the order the names appear).
fn link_order<const N: usize>(list: &heapless::Vec<SectionInfo, N>) -> heapless::Vec<Placed, N> {
    let mut order: heapless::Vec<Placed, N> = heapless::Vec::new();
    for (index, section) in list.iter().enumerate() {
        let (slot, group) = slot(section);
        let within = if slot.is_orphan() {
            let first = list
                .iter()
                .position(|s| s.name == section.name)
                .unwrap_or(index);
            (first, index)
        } else {
            // Files are small numbers; an object order fits well below.
            let file = usize::from(section.file);
            let by_file = object_order(section, index);
            (file, by_file)
        };
        // Capacity: one entry per section.
        let _ = order.push((slot, group, within, index));
    }
    let name = |i: usize| list.get(i).map_or("", |s| s.name.as_str());
    order.sort_unstable_by(|a, b| {
        let sorted = |p: &Placed| p.0 == Slot::Text && p.1 == 4;
        let key = |p: &Placed| (p.0, p.1);
        key(a).cmp(&key(b)).then_with(|| {
            if sorted(a) && sorted(b) {
                name(a.3).cmp(name(b.3)).then(a.2.cmp(&b.2))
            } else {
                a.2.cmp(&b.2)
            }
        })
    });
    order
}

/// Gives every section its address (`list` holds at most `N` sections) and lists the output
/// sections with bytes or room in `outputs` (at most `M`; more are dropped from the list,
/// not from the placing).
// Not inlined: its locals stay off the stack the passes run on.
#[inline(never)]
pub(super) fn place<const N: usize, const M: usize>(
    list: &mut heapless::Vec<SectionInfo, N>,
    outputs: &mut heapless::Vec<OutputSection, M>,
) -> Layout {
    let order = link_order(list);
    let mut layout = Layout::default();
    let mut dot: u64 = 0;
    let mut data_aligned = false;
    let mut first_data: Option<u64> = None;
    let mut start = 0;
    let passed = |slot: Slot, dot: u64, layout: &mut Layout| {
        if slot <= Slot::Fini {
            layout.text_dot = dot;
        }
        if slot <= Slot::Data1 {
            layout.data_dot = dot;
        }
    };
    while start < order.len() {
        let Some(&(slot, ..)) = order.get(start) else {
            break;
        };
        // One output section: the slot's input sections (an orphan's: those of its name).
        let first_name = list
            .get(order.get(start).map_or(0, |p| p.3))
            .map(|s| s.name);
        let len = order
            .iter()
            .skip(start)
            .take_while(|entry| {
                entry.0 == slot
                    && (!slot.is_orphan() || list.get(entry.3).map(|s| s.name) == first_name)
            })
            .count();
        let members = order.get(start..start + len).unwrap_or(&[]);
        start += len;
        if slot == Slot::NotLoaded {
            for &(.., index) in members {
                if let Some(section) = list.get_mut(index) {
                    section.address = 0;
                }
            }
            continue;
        }
        if slot >= DATA_SEGMENT && !data_aligned {
            data_aligned = true;
            layout.text_end = dot;
            dot = dot.next_multiple_of(DATA_ALIGN);
            layout.data_start = dot;
            layout.data_dot = dot;
        }
        let has_bytes = members
            .iter()
            .any(|&(.., i)| list.get(i).is_some_and(|s| s.size > 0));
        let align = members
            .iter()
            .filter_map(|&(.., i)| list.get(i))
            .map(|s| s.align.max(1))
            .max()
            .unwrap_or(1);
        if has_bytes {
            if slot == Slot::Toe {
                dot = dot.next_multiple_of(128);
            }
            dot = dot.next_multiple_of(u64::from(align));
        }
        let output_start = dot;
        let output_index = if has_bytes && outputs.len() < M {
            u8::try_from(outputs.len()).unwrap_or(NO_OUTPUT)
        } else {
            NO_OUTPUT
        };
        for &(.., index) in members {
            let Some(section) = list.get_mut(index) else {
                continue;
            };
            section.output = output_index;
            if section.size > 0 {
                dot = dot.next_multiple_of(u64::from(section.align.max(1)));
            }
            section.address = dot.min(u64::from(u32::MAX)) as u32;
            dot += u64::from(section.size);
            if section.size > 0 && section.kind != SectionKind::Bss {
                layout.image_end = layout.image_end.max(dot);
                if slot >= DATA_SEGMENT {
                    first_data.get_or_insert(u64::from(section.address));
                }
            }
        }
        // `. = ALIGN(. != 0 ? 16 : 1)` at the end of `.bss`.
        if slot == Slot::Bss && has_bytes {
            dot = dot.next_multiple_of(16);
        }
        if has_bytes && let Some(&(.., first)) = members.first() {
            let first = list.get(first).copied();
            let output = first.map(|s| OutputSection {
                name: match slot.name() {
                    Some(name) => SymbolName::new(name).unwrap_or(s.name),
                    None => s.name,
                },
                kind: members
                    .iter()
                    .filter_map(|&(.., i)| list.get(i))
                    .map(|s| s.kind)
                    .find(|&kind| kind != SectionKind::Bss)
                    .unwrap_or(SectionKind::Bss),
                address: output_start.min(u64::from(u32::MAX)) as u32,
                size: (dot - output_start).min(u64::from(u32::MAX)) as u32,
                align,
                writable: s.attributes.write,
                tls: s.attributes.tls,
                slot,
            });
            if let Some(output) = output {
                // Past the capacity the list is cut short; the placing is complete.
                let _ = outputs.push(output);
            }
        }
        passed(slot, dot, &mut layout);
    }
    if !data_aligned {
        layout.text_end = dot;
        layout.data_start = dot.next_multiple_of(DATA_ALIGN);
        layout.data_dot = layout.data_start;
    }
    if let Some(first) = first_data {
        layout.data_start = first;
    }
    layout.end = dot;
    // The script's `. = ALIGN(0x80)` moves `.` even when no data follows.
    let past_text = layout.text_end.next_multiple_of(DATA_ALIGN);
    layout.end_dot = dot.max(past_text).next_multiple_of(16);
    layout
}
