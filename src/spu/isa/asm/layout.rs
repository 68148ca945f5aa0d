//! Where the sections of a program go in local store: as `spu-ld` 2.40 places the sections of
//! one object with its default script (`ld --verbose`), which is what `spu-gcc` links with.
//!
//! - Output sections in the script's order: `.interrupt`, `.init`, `.plt`, `.text` (its
//!   input sections grouped by the script's patterns: `.text.unlikely*`, `.text.exit*`,
//!   `.text.startup*`, `.text.hot*`, `.text.sorted.*` by name, then `.text`, `.stub`,
//!   `.text.*`), `.fini`, `.rodata`, `.rodata1`, then, at `ALIGN(0x80)`, `.tdata`, `.tbss`,
//!   the init/fini arrays (which take `.ctors`/`.dtors`), `.data.rel.ro`, `.got`, `.data`,
//!   `.data1`, `.bss` (`.bss*`, then `COMMON`, the whole rounded to 16 bytes), and `.toe` at
//!   `ALIGN(128)`.
//! - A section no pattern names is an orphan, placed by ld after the output section of its
//!   kind: code after `.text`, read-only data after `.rodata`, writable data after `.data`,
//!   zero-initialised data after `.bss`, each orphan an output section of its own.
//! - An output section starts at its largest input alignment; each input section at its
//!   own. Input sections of one pattern come in the object's order (`.text`, `.data`,
//!   `.bss`, then as first used), as gas writes them.
//! - A section that is not allocated is placed nowhere (address 0).
//!
//! Sections with no bytes take no room: ld drops an empty output section, so its alignment
//! moves nothing.

use super::section::{SectionInfo, SectionKind};

/// ld's output sections and orphan places, in the order the script gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Interrupt,
    Init,
    Plt,
    Text,
    CodeOrphan,
    Fini,
    Rodata,
    RodataOrphan,
    Rodata1,
    ReadOnlyTables,
    // `. = ALIGN(0x80)`: the data segment.
    WritableTables,
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

/// The first slot of the data segment, which starts at `ALIGN(0x80)`.
const DATA_SEGMENT: Slot = Slot::WritableTables;
/// ld's `. = ALIGN(0x80)` before the data.
const DATA_ALIGN: u64 = 0x80;

fn dotted(name: &str, prefix: &str) -> bool {
    name == prefix
        || name
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The output section and pattern group the default script puts `section` in.
fn slot(section: &SectionInfo) -> (Slot, u8) {
    let name = section.name.as_str();
    let a = section.attributes;
    if section.kind == SectionKind::NotLoaded {
        return (Slot::NotLoaded, 0);
    }
    let starts = |prefix: &str| name.starts_with(prefix);
    let text_group =
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
        };
    if let Some(group) = text_group {
        return (Slot::Text, group);
    }
    let read_only_table = !a.write;
    let named = match name {
        ".interrupt" => Some((Slot::Interrupt, 0)),
        ".init" => Some((Slot::Init, 0)),
        ".plt" | ".iplt" => Some((Slot::Plt, 0)),
        ".fini" => Some((Slot::Fini, 0)),
        ".rodata1" => Some((Slot::Rodata1, 0)),
        ".fixup" => Some((Slot::ReadOnlyTables, 0)),
        ".data1" => Some((Slot::Data1, 0)),
        ".jcr" => Some((Slot::Jcr, 0)),
        ".dynamic" => Some((Slot::Dynamic, 0)),
        ".got" | ".got.plt" | ".igot" | ".igot.plt" => Some((Slot::Got, 0)),
        ".dynbss" => Some((Slot::Bss, 0)),
        "COMMON" => Some((Slot::Bss, 2)),
        ".toe" => Some((Slot::Toe, 0)),
        ".preinit_array" => Some((Slot::PreinitArray, 0)),
        ".init_array" | ".ctors" => Some((Slot::InitArray, 1)),
        ".fini_array" | ".dtors" => Some((Slot::FiniArray, 1)),
        ".eh_frame_hdr" | ".eh_frame" | ".sframe" | ".gcc_except_table" | ".gnu_extab"
            if read_only_table =>
        {
            Some((Slot::ReadOnlyTables, 0))
        }
        ".eh_frame" | ".sframe" | ".gcc_except_table" | ".gnu_extab" => {
            Some((Slot::WritableTables, 0))
        }
        _ => None,
    };
    if let Some(found) = named {
        return found;
    }
    if dotted(name, ".rodata") || starts(".gnu.linkonce.r.") {
        (Slot::Rodata, 0)
    } else if dotted(name, ".tdata") || starts(".gnu.linkonce.td.") {
        (Slot::Tdata, 0)
    } else if dotted(name, ".tbss") || starts(".gnu.linkonce.tb.") || name == ".tcommon" {
        (Slot::Tbss, 0)
    } else if starts(".init_array.") || starts(".ctors.") {
        (Slot::InitArray, 0)
    } else if starts(".fini_array.") || starts(".dtors.") {
        (Slot::FiniArray, 0)
    } else if starts(".data.rel.ro") || starts(".gnu.linkonce.d.rel.ro.") {
        (Slot::DataRelRo, 0)
    } else if dotted(name, ".data") || starts(".gnu.linkonce.d.") {
        (Slot::Data, 0)
    } else if dotted(name, ".bss") || starts(".gnu.linkonce.b.") {
        (Slot::Bss, 1)
    } else if starts(".eh_frame.") || starts(".gcc_except_table.") {
        let slot = if read_only_table {
            Slot::ReadOnlyTables
        } else {
            Slot::WritableTables
        };
        (slot, 0)
    } else {
        // An orphan: after the output section of its kind (ld's `ldelf_place_orphan`).
        let slot = match (section.kind, a.tls, a.write) {
            (SectionKind::Code, ..) => Slot::CodeOrphan,
            (SectionKind::Bss, true, _) => Slot::TbssOrphan,
            (SectionKind::Bss, ..) => Slot::BssOrphan,
            (_, true, _) => Slot::TdataOrphan,
            (_, _, true) => Slot::DataOrphan,
            _ => Slot::RodataOrphan,
        };
        (slot, 0)
    }
}

fn is_orphan(slot: Slot) -> bool {
    matches!(
        slot,
        Slot::CodeOrphan
            | Slot::RodataOrphan
            | Slot::TdataOrphan
            | Slot::TbssOrphan
            | Slot::DataOrphan
            | Slot::BssOrphan
    )
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
}

/// Gives every section its address (`list` holds at most `N` sections).
pub(super) fn place<const N: usize>(list: &mut heapless::Vec<SectionInfo, N>) -> Layout {
    // Input sections in link order: by slot, by pattern group, then by object order (by
    // name within `.text.sorted.*`).
    let mut order: heapless::Vec<(Slot, u8, usize, usize), N> = heapless::Vec::new();
    for (index, section) in list.iter().enumerate() {
        let (slot, group) = slot(section);
        let within = if slot == Slot::Text && group == 4 {
            // SORT(.text.sorted.*): by name; the index breaks no tie (names differ).
            0
        } else {
            object_order(section, index)
        };
        // Capacity: one entry per section.
        let _ = order.push((slot, group, within, index));
    }
    order.sort_unstable_by(|a, b| {
        let by_name = a.0 == Slot::Text && a.1 == 4 && b.0 == Slot::Text && b.1 == 4;
        let name = |i: usize| list.get(i).map_or("", |s| s.name.as_str());
        (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)).then_with(|| {
            if by_name {
                name(a.3).cmp(name(b.3))
            } else {
                core::cmp::Ordering::Equal
            }
        })
    });
    let mut layout = Layout::default();
    let mut dot: u64 = 0;
    let mut data_aligned = false;
    let mut first_data: Option<u64> = None;
    let mut start = 0;
    while start < order.len() {
        let Some(&(slot, ..)) = order.get(start) else {
            break;
        };
        // One output section: the slot's input sections (an orphan is one on its own).
        let len = if is_orphan(slot) {
            1
        } else {
            order
                .iter()
                .skip(start)
                .take_while(|entry| entry.0 == slot)
                .count()
        };
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
        }
        let has_bytes = members
            .iter()
            .any(|&(.., i)| list.get(i).is_some_and(|s| s.size > 0));
        if has_bytes {
            if slot == Slot::Toe {
                dot = dot.next_multiple_of(128);
            }
            let align = members
                .iter()
                .filter_map(|&(.., i)| list.get(i))
                .map(|s| u64::from(s.align.max(1)))
                .max()
                .unwrap_or(1);
            dot = dot.next_multiple_of(align);
        }
        for &(.., index) in members {
            let Some(section) = list.get_mut(index) else {
                continue;
            };
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
    }
    if !data_aligned {
        layout.text_end = dot;
        layout.data_start = dot.next_multiple_of(DATA_ALIGN);
    }
    if let Some(first) = first_data {
        layout.data_start = first;
    }
    layout.end = dot;
    layout
}
