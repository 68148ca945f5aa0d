//! What can be wrong with an SPU ELF file, and with a request to write one.

use core::fmt;

/// The part of an ELF file an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfPart {
    /// The 52-byte file header.
    FileHeader,
    /// The program header table (`e_phoff`, `e_phnum` entries of `e_phentsize` bytes).
    ProgramHeaders,
    /// The section header table (`e_shoff`, `e_shnum` entries of `e_shentsize` bytes).
    SectionHeaders,
    /// The file bytes of program header `index` (a `PT_LOAD` segment).
    Segment(u16),
    /// The `.symtab` section's bytes.
    SymbolTable,
    /// The bytes of the string table `.symtab` links to.
    StringTable,
}

impl fmt::Display for ElfPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElfPart::FileHeader => f.write_str("the file header"),
            ElfPart::ProgramHeaders => f.write_str("the program header table"),
            ElfPart::SectionHeaders => f.write_str("the section header table"),
            ElfPart::Segment(index) => write!(f, "segment {index}"),
            ElfPart::SymbolTable => f.write_str("the symbol table"),
            ElfPart::StringTable => f.write_str("the symbol string table"),
        }
    }
}

/// Why a symbol's name cannot be read from its string table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameProblem {
    /// `st_name` points past the end of the string table.
    OffsetOutside,
    /// No NUL byte ends the name before the string table does.
    MissingNul,
    /// The name is longer than [`MAX_NAME_LEN`](super::MAX_NAME_LEN) bytes.
    TooLong,
    /// The name is not UTF-8.
    NotUtf8,
}

impl fmt::Display for NameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameProblem::OffsetOutside => "its offset lies outside the string table",
            NameProblem::MissingNul => "no NUL byte ends it inside the string table",
            NameProblem::TooLong => "it is longer than the names the reader accepts",
            NameProblem::NotUtf8 => "it is not UTF-8",
        })
    }
}

/// Why bytes are not an SPU ELF executable that can be loaded. Nothing is loaded when the
/// reader returns one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfError {
    /// The file does not start with `\x7fELF`.
    NotElf,
    /// `EI_CLASS` is not `ELFCLASS32` (1).
    WrongClass {
        /// The class byte found.
        found: u8,
    },
    /// `EI_DATA` is not `ELFDATA2MSB` (2, big-endian).
    WrongByteOrder {
        /// The data encoding byte found.
        found: u8,
    },
    /// `EI_VERSION` or `e_version` is not `EV_CURRENT` (1).
    WrongVersion {
        /// The version found.
        found: u32,
    },
    /// `e_machine` is not `EM_SPU` (23).
    WrongMachine {
        /// The machine found.
        found: u16,
    },
    /// `e_type` is not `ET_EXEC` (2).
    WrongType {
        /// The type found.
        found: u16,
    },
    /// The file ends before `part` does.
    Truncated {
        /// What is cut short.
        part: ElfPart,
        /// The offset one past the last byte the part needs.
        needs_end: u64,
        /// The file's length.
        file_len: usize,
    },
    /// A table's entry size is not the ELF32 one.
    BadEntrySize {
        /// The table.
        part: ElfPart,
        /// The entry size found.
        found: u64,
        /// The ELF32 entry size.
        expected: u64,
    },
    /// The header uses the extended numbering of program headers or sections (`e_phnum` =
    /// `PN_XNUM`, or `e_shnum` = 0 with a section table), which no SPU program needs.
    ExtendedNumbering,
    /// The file has no `PT_LOAD` segment.
    NoLoadSegment,
    /// More `PT_LOAD` segments than [`MAX_LOAD_SEGMENTS`](super::MAX_LOAD_SEGMENTS).
    TooManyLoadSegments {
        /// The segments found.
        found: usize,
    },
    /// A segment's `p_filesz` is larger than its `p_memsz`.
    FileSizeAboveMemorySize {
        /// The program header's index.
        index: u16,
        /// `p_filesz`.
        file_size: u64,
        /// `p_memsz`.
        memory_size: u64,
    },
    /// A segment's `p_vaddr .. p_vaddr + p_memsz` does not lie inside the local store.
    SegmentOutsideLocalStore {
        /// The program header's index.
        index: u16,
        /// `p_vaddr`.
        start: u64,
        /// `p_vaddr + p_memsz` (saturated).
        end: u64,
    },
    /// Two segments' memory ranges overlap.
    SegmentsOverlap {
        /// The earlier program header's index.
        first: u16,
        /// The later one's.
        second: u16,
    },
    /// `e_entry` is not a word address inside a loaded segment.
    BadEntry {
        /// `e_entry`.
        entry: u64,
    },
    /// The `.symtab` section's link does not name a string table section.
    BadSymbolTableLink {
        /// `sh_link`.
        link: u32,
    },
    /// The `.symtab` section's size is not a whole number of entries.
    BadSymbolTableSize {
        /// `sh_size`.
        size: u64,
    },
    /// A symbol's name cannot be read from the string table.
    BadSymbolName {
        /// The symbol's index in `.symtab`.
        symbol: usize,
        /// Its `st_name`.
        offset: u32,
        /// What is wrong.
        problem: NameProblem,
    },
    /// A table the `elf` crate could not parse for another reason.
    Malformed {
        /// The table.
        part: ElfPart,
    },
}

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ElfError::NotElf => f.write_str("not an ELF file (no \\x7fELF magic)"),
            ElfError::WrongClass { found } => write!(
                f,
                "not a 32-bit ELF file: EI_CLASS is {found}, an SPU executable has 1 (ELFCLASS32)"
            ),
            ElfError::WrongByteOrder { found } => write!(
                f,
                "not a big-endian ELF file: EI_DATA is {found}, an SPU executable has 2 (ELFDATA2MSB)"
            ),
            ElfError::WrongVersion { found } => {
                write!(f, "ELF version {found}, expected 1 (EV_CURRENT)")
            }
            ElfError::WrongMachine { found } => write!(
                f,
                "not an SPU program: e_machine is {found}, an SPU executable has 23 (EM_SPU)"
            ),
            ElfError::WrongType { found } => write!(
                f,
                "not an executable: e_type is {found}, expected 2 (ET_EXEC)"
            ),
            ElfError::Truncated {
                part,
                needs_end,
                file_len,
            } => write!(
                f,
                "truncated: {part} needs the bytes up to offset {needs_end}, the file has {file_len}"
            ),
            ElfError::BadEntrySize {
                part,
                found,
                expected,
            } => write!(
                f,
                "{part} has entries of {found} bytes, ELF32 ones have {expected}"
            ),
            ElfError::ExtendedNumbering => f.write_str(
                "extended section or program header numbering (e_phnum = 0xffff or e_shnum = 0) is not supported",
            ),
            ElfError::NoLoadSegment => f.write_str("no PT_LOAD segment: nothing to load"),
            ElfError::TooManyLoadSegments { found } => write!(
                f,
                "{found} PT_LOAD segments, the reader takes at most {}",
                super::format::MAX_LOAD_SEGMENTS
            ),
            ElfError::FileSizeAboveMemorySize {
                index,
                file_size,
                memory_size,
            } => write!(
                f,
                "segment {index}: p_filesz {file_size:#x} is larger than p_memsz {memory_size:#x}"
            ),
            ElfError::SegmentOutsideLocalStore { index, start, end } => write!(
                f,
                "segment {index} ({start:#x}..{end:#x}) lies outside the {} KiB local store",
                super::format::LOCAL_STORE_BYTES / 1024
            ),
            ElfError::SegmentsOverlap { first, second } => {
                write!(f, "segments {first} and {second} overlap in the local store")
            }
            ElfError::BadEntry { entry } => write!(
                f,
                "entry point {entry:#x} is not a word address inside a loaded segment"
            ),
            ElfError::BadSymbolTableLink { link } => write!(
                f,
                "the symbol table links to section {link}, which is not a string table"
            ),
            ElfError::BadSymbolTableSize { size } => write!(
                f,
                "the symbol table's size {size} is not a multiple of 16 bytes"
            ),
            ElfError::BadSymbolName {
                symbol,
                offset,
                problem,
            } => write!(
                f,
                "bad string table: the name of symbol {symbol} (offset {offset}): {problem}"
            ),
            ElfError::Malformed { part } => write!(f, "{part} cannot be parsed"),
        }
    }
}

impl core::error::Error for ElfError {}

/// Why an SPU ELF executable could not be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfWriteError {
    /// The output buffer is too small; [`executable_size`](super::executable_size) says how
    /// large it must be.
    BufferTooSmall {
        /// Bytes the executable takes.
        needed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
    /// The image holds fewer bytes than the program says it has.
    ImageTooShort {
        /// The program's length.
        needed: usize,
        /// The image's length.
        available: usize,
    },
    /// The program has no code (its `.text` is empty), so no entry point can lie in it.
    NoCode,
    /// The program does not fit in the local store, or the file would pass 4 GiB.
    TooLarge,
    /// The entry point is no word inside a segment (a global `_start` past the end of the
    /// code, or not word-aligned): the reader would refuse the file.
    EntryOutsideSegments {
        /// The entry point.
        entry: u32,
    },
}

impl fmt::Display for ElfWriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ElfWriteError::BufferTooSmall { needed, available } => write!(
                f,
                "the ELF file takes {needed} bytes, the buffer has {available}"
            ),
            ElfWriteError::ImageTooShort { needed, available } => write!(
                f,
                "the program has {needed} bytes, the image only {available}"
            ),
            ElfWriteError::NoCode => f.write_str("the program has no code to run"),
            ElfWriteError::TooLarge => f.write_str("the program does not fit in the local store"),
            ElfWriteError::EntryOutsideSegments { entry } => write!(
                f,
                "the entry point {entry:#x} is no word inside the program's segments (a global \
                 `_start` after the last instruction?)"
            ),
        }
    }
}

impl core::error::Error for ElfWriteError {}
