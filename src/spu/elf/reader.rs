//! Checking an SPU ELF executable and loading its segments.

use elf::ElfBytes;
use elf::abi;
use elf::endian::BigEndian;
use elf::file::{FileHeader, parse_ident};

use super::error::{ElfError, ElfPart};
use super::format::{
    FILE_HEADER_BYTES, LOCAL_STORE_BYTES, MAX_LOAD_SEGMENTS, PROGRAM_HEADER_BYTES,
    SECTION_HEADER_BYTES,
};
use super::notes::{has_ps3_sdk_section, has_spu_name_note};
use super::symbols::ElfSymbols;
use crate::spu::exec::SpuState;

/// One `PT_LOAD` segment, checked to lie in the file and in the local store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadSegment<'data> {
    /// Its program header's index.
    pub index: u16,
    /// `p_vaddr`: where it starts in the local store.
    pub address: u32,
    /// Its `p_filesz` bytes, borrowed from the file.
    pub bytes: &'data [u8],
    /// `p_memsz`: the bytes it takes in the local store (those past `bytes` are zero).
    pub memory_size: u32,
    /// `p_flags` (`PF_X` 1, `PF_W` 2, `PF_R` 4).
    pub flags: u32,
}

impl LoadSegment<'_> {
    /// One past its last local-store address.
    pub fn end(&self) -> u32 {
        // Both lie in the local store (checked by the reader), so the sum cannot overflow.
        self.address.saturating_add(self.memory_size)
    }

    /// Whether the segment is marked executable (`PF_X`): code, for listings.
    pub fn is_executable(&self) -> bool {
        self.flags & abi::PF_X != 0
    }
}

/// An SPU ELF executable, checked and ready to load (see the module documentation).
#[derive(Clone, Debug)]
pub struct SpuElf<'data> {
    entry: u32,
    segments: heapless::Vec<LoadSegment<'data>, MAX_LOAD_SEGMENTS>,
    symbols: ElfSymbols<'data>,
    spu_name_note: bool,
    ps3_sdk_section: bool,
}

impl<'data> SpuElf<'data> {
    /// Checks `data` as an SPU ELF executable; nothing is copied.
    pub fn parse(data: &'data [u8]) -> Result<Self, ElfError> {
        let header = file_header(data)?;
        check_tables(&header, data.len())?;
        let file = ElfBytes::<BigEndian>::minimal_parse(data).map_err(|_| ElfError::Malformed {
            part: ElfPart::FileHeader,
        })?;
        let segments = load_segments(&file, data)?;
        let entry = u32::try_from(header.e_entry).ok().filter(|entry| {
            entry % 4 == 0
                && segments
                    .iter()
                    .any(|segment| (segment.address..segment.end()).contains(entry))
        });
        let Some(entry) = entry else {
            return Err(ElfError::BadEntry {
                entry: header.e_entry,
            });
        };
        let symbols = ElfSymbols::parse(&file, data)?;
        Ok(SpuElf {
            entry,
            segments,
            symbols,
            spu_name_note: has_spu_name_note(&file, data),
            ps3_sdk_section: has_ps3_sdk_section(&file),
        })
    }

    /// `e_entry`: where execution starts.
    pub fn entry(&self) -> u32 {
        self.entry
    }

    /// The `PT_LOAD` segments, in program header order.
    pub fn segments(&self) -> &[LoadSegment<'data>] {
        &self.segments
    }

    /// Whether the file carries spu-ld's `SPUNAME` note ([`SPU_NAME_NOTE`](super::SPU_NAME_NOTE)):
    /// it was linked by spu-ld (any SDK's, or binutils').
    pub fn has_spu_name_note(&self) -> bool {
        self.spu_name_note
    }

    /// Whether the PS3 SDK linked it: the file has one of its sections
    /// ([`PS3_SDK_SECTIONS`](super::PS3_SDK_SECTIONS)) or its runtime's parameter block,
    /// `_cell_spu_ls_param`.
    pub fn is_ps3_sdk_build(&self) -> bool {
        self.ps3_sdk_section || self.symbols.address_of("_cell_spu_ls_param").is_some()
    }

    /// The named symbols of `.symtab` (empty when the file has none).
    pub fn symbols(&self) -> &ElfSymbols<'data> {
        &self.symbols
    }

    /// Copies every segment into `spu`'s local store, zeroes what each takes beyond its file
    /// bytes, and resets `spu` to start at [`entry`](Self::entry) (as
    /// [`SpuState::load_program`] does). The rest of the local store is left as it is.
    pub fn load_into(&self, spu: &mut SpuState) {
        let local_store = spu.local_store_mut();
        for segment in &self.segments {
            let mut address = segment.address;
            for &byte in segment.bytes {
                local_store.store_byte(address, byte);
                address = address.wrapping_add(1);
            }
            while address < segment.end() {
                local_store.store_byte(address, 0);
                address += 1;
            }
        }
        spu.reset(self.entry);
    }
}

/// The file header, after the identification and the fields an SPU executable must have.
fn file_header(data: &[u8]) -> Result<FileHeader<BigEndian>, ElfError> {
    let magic_len = data.len().min(4);
    if data.get(..magic_len) != abi::ELFMAGIC.get(..magic_len) {
        return Err(ElfError::NotElf);
    }
    let truncated = ElfError::Truncated {
        part: ElfPart::FileHeader,
        needs_end: FILE_HEADER_BYTES as u64,
        file_len: data.len(),
    };
    let (Some(ident), Some(tail)) = (
        data.get(..abi::EI_NIDENT),
        data.get(abi::EI_NIDENT..FILE_HEADER_BYTES),
    ) else {
        return Err(truncated);
    };
    let byte = |index: usize| ident.get(index).copied().unwrap_or(0);
    if byte(abi::EI_CLASS) != abi::ELFCLASS32 {
        return Err(ElfError::WrongClass {
            found: byte(abi::EI_CLASS),
        });
    }
    if byte(abi::EI_DATA) != abi::ELFDATA2MSB {
        return Err(ElfError::WrongByteOrder {
            found: byte(abi::EI_DATA),
        });
    }
    if byte(abi::EI_VERSION) != abi::EV_CURRENT {
        return Err(ElfError::WrongVersion {
            found: u32::from(byte(abi::EI_VERSION)),
        });
    }
    let malformed = |_| ElfError::Malformed {
        part: ElfPart::FileHeader,
    };
    let ident = parse_ident::<BigEndian>(ident).map_err(malformed)?;
    let header = FileHeader::parse_tail(ident, tail).map_err(malformed)?;
    if header.version != u32::from(abi::EV_CURRENT) {
        return Err(ElfError::WrongVersion {
            found: header.version,
        });
    }
    if header.e_machine != abi::EM_SPU {
        return Err(ElfError::WrongMachine {
            found: header.e_machine,
        });
    }
    if header.e_type != abi::ET_EXEC {
        return Err(ElfError::WrongType {
            found: header.e_type,
        });
    }
    Ok(header)
}

/// Both header tables have ELF32 entries and lie inside the file.
fn check_tables(header: &FileHeader<BigEndian>, file_len: usize) -> Result<(), ElfError> {
    if header.e_phoff == 0 || header.e_phnum == 0 {
        return Err(ElfError::NoLoadSegment);
    }
    if header.e_phnum == abi::PN_XNUM {
        return Err(ElfError::ExtendedNumbering);
    }
    check_table(
        ElfPart::ProgramHeaders,
        header.e_phoff,
        header.e_phnum,
        header.e_phentsize,
        PROGRAM_HEADER_BYTES,
        file_len,
    )?;
    if header.e_shoff != 0 {
        if header.e_shnum == 0 {
            return Err(ElfError::ExtendedNumbering);
        }
        check_table(
            ElfPart::SectionHeaders,
            header.e_shoff,
            header.e_shnum,
            header.e_shentsize,
            SECTION_HEADER_BYTES,
            file_len,
        )?;
    }
    Ok(())
}

fn check_table(
    part: ElfPart,
    offset: u64,
    count: u16,
    entry_size: u16,
    expected: usize,
    file_len: usize,
) -> Result<(), ElfError> {
    if usize::from(entry_size) != expected {
        return Err(ElfError::BadEntrySize {
            part,
            found: u64::from(entry_size),
            expected: expected as u64,
        });
    }
    let end = offset.saturating_add(u64::from(count) * expected as u64);
    if end > file_len as u64 {
        return Err(ElfError::Truncated {
            part,
            needs_end: end,
            file_len,
        });
    }
    Ok(())
}

/// The `PT_LOAD` segments, each checked, and checked not to overlap.
fn load_segments<'data>(
    file: &ElfBytes<'data, BigEndian>,
    data: &'data [u8],
) -> Result<heapless::Vec<LoadSegment<'data>, MAX_LOAD_SEGMENTS>, ElfError> {
    let mut segments = heapless::Vec::new();
    let mut found = 0usize;
    let table = file.segments().ok_or(ElfError::NoLoadSegment)?;
    for (index, header) in table.iter().enumerate() {
        if header.p_type != abi::PT_LOAD {
            continue;
        }
        found += 1;
        let index = u16::try_from(index).unwrap_or(u16::MAX);
        let segment = load_segment(index, &header, data)?;
        // Past the capacity only the count goes on, for the error.
        let _ = segments.push(segment);
    }
    if found == 0 {
        return Err(ElfError::NoLoadSegment);
    }
    if found > MAX_LOAD_SEGMENTS {
        return Err(ElfError::TooManyLoadSegments { found });
    }
    for (position, later) in segments.iter().enumerate() {
        for earlier in segments.iter().take(position) {
            let empty = earlier.memory_size == 0 || later.memory_size == 0;
            if !empty && earlier.address < later.end() && later.address < earlier.end() {
                return Err(ElfError::SegmentsOverlap {
                    first: earlier.index,
                    second: later.index,
                });
            }
        }
    }
    Ok(segments)
}

fn load_segment<'data>(
    index: u16,
    header: &elf::segment::ProgramHeader,
    data: &'data [u8],
) -> Result<LoadSegment<'data>, ElfError> {
    if header.p_filesz > header.p_memsz {
        return Err(ElfError::FileSizeAboveMemorySize {
            index,
            file_size: header.p_filesz,
            memory_size: header.p_memsz,
        });
    }
    let end = header.p_vaddr.saturating_add(header.p_memsz);
    let outside = ElfError::SegmentOutsideLocalStore {
        index,
        start: header.p_vaddr,
        end,
    };
    if end > u64::from(LOCAL_STORE_BYTES) {
        return Err(outside);
    }
    let (Ok(address), Ok(memory_size)) =
        (u32::try_from(header.p_vaddr), u32::try_from(header.p_memsz))
    else {
        return Err(outside);
    };
    let bytes = if header.p_filesz == 0 {
        &[][..]
    } else {
        let file_end = header.p_offset.saturating_add(header.p_filesz);
        usize::try_from(header.p_offset)
            .ok()
            .zip(usize::try_from(file_end).ok())
            .and_then(|(start, end)| data.get(start..end))
            .ok_or(ElfError::Truncated {
                part: ElfPart::Segment(index),
                needs_end: file_end,
                file_len: data.len(),
            })?
    };
    Ok(LoadSegment {
        index,
        address,
        bytes,
        memory_size,
        flags: header.p_flags,
    })
}
