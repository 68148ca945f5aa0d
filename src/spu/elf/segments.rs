//! The program segments of a linked program and where its sections go in the file, as
//! spu-ld 2.40 lays them out (bfd `elf.c`, `_bfd_elf_map_sections_to_segments` and
//! `assign_file_positions_for_load_sections`, and `elf32-spu.c`):
//!
//! - The allocated output sections, in address order, share a `PT_LOAD` segment until one
//!   overlaps the one before, would leave a whole page (0x80 bytes, spu-ld's page) unused
//!   between them, is loaded after a zero-initialised one, or is writable after read-only
//!   ones on another page. `.toe` is a segment of its own (`spu_elf_modify_segment_map`).
//! - A segment's file offset agrees with its address modulo its alignment: the page, or a
//!   section's larger alignment. Sections follow in the file as in memory; a
//!   zero-initialised one takes no file room, and a segment of only those has offset 0.
//! - Every segment's file and memory sizes are rounded up to 16 bytes, the DMA granule
//!   (`spu_elf_modify_headers`), unless that would make two overlap.
//! - After the segments: the `PT_NOTE` segment of `.note.spu_name`, which names the file.

use crate::spu::isa::asm::{OutputSection, SectionKind};

use super::format::MAX_LOAD_SEGMENTS;
use crate::spu::isa::asm::MAX_OUTPUT_SECTIONS;

/// spu-ld's page size (`ELF_MAXPAGESIZE` of `elf32-spu.c`).
pub(super) const PAGE: u64 = 0x80;

/// One `PT_LOAD` segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Segment {
    pub offset: u64,
    pub address: u64,
    pub file_size: u64,
    pub memory_size: u64,
    pub flags: u32,
    pub align: u64,
    /// Its output sections: `first..end` (indices into the program's output sections).
    pub sections: (usize, usize),
}

/// The segments and the file offset of every allocated output section.
#[derive(Clone, Debug)]
pub(super) struct LoadLayout {
    pub segments: heapless::Vec<Segment, MAX_LOAD_SEGMENTS>,
    /// `sh_offset` of each output section.
    pub offsets: [u64; MAX_OUTPUT_SECTIONS],
    /// The file offset after the last byte of a segment (where the other sections follow).
    pub end: u64,
}

fn has_bytes(section: &OutputSection) -> bool {
    section.kind != SectionKind::Bss
}

fn is_toe(section: &OutputSection) -> bool {
    section.name == ".toe"
}

/// Whether `next` starts a new segment after `last` (`_bfd_elf_map_sections_to_segments`
/// for a demand-paged file), with `writable` telling whether the current segment is.
fn starts_segment(last: &OutputSection, next: &OutputSection, writable: bool) -> bool {
    let (last_start, last_end) = (
        u64::from(last.address),
        u64::from(last.address) + u64::from(last.size),
    );
    let start = u64::from(next.address);
    if start < last_end {
        return true;
    }
    if last_end > last_start && ((last_end - 1) & !(PAGE - 1)) == (start & !(PAGE - 1)) {
        return false;
    }
    if last_end.next_multiple_of(PAGE) + PAGE <= start {
        return true;
    }
    if !has_bytes(last) && has_bytes(next) {
        return true;
    }
    !writable && next.writable
}

/// The segments of `sections` (the allocated output sections, in address order), with the
/// file offsets from `header_end` (the end of the file and program headers) on.
pub(super) fn lay_out(sections: &[OutputSection], header_end: u64) -> LoadLayout {
    let mut layout = LoadLayout {
        segments: heapless::Vec::new(),
        offsets: [0; MAX_OUTPUT_SECTIONS],
        end: header_end,
    };
    // Map the sections to segments.
    let mut first = 0;
    let mut writable = false;
    for index in 0..sections.len() {
        let (Some(section), previous) = (sections.get(index), index.checked_sub(1)) else {
            continue;
        };
        let split = match previous.and_then(|p| sections.get(p)) {
            None => false,
            Some(last) => {
                starts_segment(last, section, writable) || is_toe(last) || is_toe(section)
            }
        };
        if split {
            push_segment(&mut layout, sections, (first, index));
            first = index;
            writable = false;
        }
        writable |= section.writable;
    }
    if !sections.is_empty() {
        push_segment(&mut layout, sections, (first, sections.len()));
    }
    // File offsets, segment by segment.
    let mut offset = header_end;
    for segment in layout.segments.iter_mut() {
        let (first, end) = segment.sections;
        let members = sections.get(first..end).unwrap_or(&[]);
        let align = members
            .iter()
            .map(|s| u64::from(s.align.max(1)))
            .max()
            .unwrap_or(1)
            .max(PAGE);
        let adjust = segment.address.wrapping_sub(offset) % align;
        offset += adjust;
        let no_contents = !members.iter().any(has_bytes);
        segment.offset = if no_contents { 0 } else { offset };
        segment.align = align;
        for (index, section) in members.iter().enumerate() {
            let gap = u64::from(section.address) - (segment.address + segment.memory_size);
            segment.memory_size += gap;
            if has_bytes(section) || index == 0 {
                offset += gap;
            }
            if has_bytes(section) {
                segment.file_size += gap;
            }
            if let Some(slot) = layout.offsets.get_mut(first + index) {
                *slot = offset;
            }
            let size = u64::from(section.size);
            segment.memory_size += size;
            if has_bytes(section) {
                offset += size;
                segment.file_size += size;
            }
        }
        if no_contents {
            offset -= adjust;
        }
    }
    layout.end = offset;
    round_to_granule(&mut layout.segments);
    layout
}

fn push_segment(layout: &mut LoadLayout, sections: &[OutputSection], (first, end): (usize, usize)) {
    let members = sections.get(first..end).unwrap_or(&[]);
    let mut flags = elf::abi::PF_R;
    for section in members {
        if section.kind == SectionKind::Code {
            flags |= elf::abi::PF_X;
        }
        if section.writable {
            flags |= elf::abi::PF_W;
        }
    }
    let segment = Segment {
        address: members.first().map_or(0, |s| u64::from(s.address)),
        flags,
        sections: (first, end),
        ..Segment::default()
    };
    // The sections are at most MAX_OUTPUT_SECTIONS, fewer than MAX_LOAD_SEGMENTS allows.
    let _ = layout.segments.push(segment);
}

/// `spu_elf_modify_headers`: every segment's sizes rounded up to 16, unless one would then
/// overlap the next segment that has file bytes, in the file or in memory.
fn round_to_granule(segments: &mut [Segment]) {
    let mut last: Option<Segment> = None;
    for segment in segments.iter().rev() {
        if let Some(last) = last {
            let file_adjust = segment.file_size.wrapping_neg() & 15;
            if file_adjust != 0 && segment.offset + segment.file_size > last.offset - file_adjust {
                return;
            }
            let memory_adjust = segment.memory_size.wrapping_neg() & 15;
            let end = segment.address + segment.memory_size;
            if memory_adjust != 0
                && segment.file_size != 0
                && end > last.address - memory_adjust
                && end <= last.address
            {
                return;
            }
        }
        if segment.file_size != 0 {
            last = Some(*segment);
        }
    }
    for segment in segments.iter_mut() {
        segment.file_size = segment.file_size.next_multiple_of(16);
        segment.memory_size = segment.memory_size.next_multiple_of(16);
    }
}
