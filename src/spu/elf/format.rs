//! The constants of the SPU ELF format and the reader's bounds. A leaf: the reader, the
//! symbols, the writer and the errors all use them, and `mod.rs` declares those.

use crate::spu::exec::LS_SIZE;

/// The first four bytes of every ELF file.
pub const ELF_MAGIC: [u8; 4] = elf::abi::ELFMAGIC;

/// The local store's size: every segment must lie below it.
pub const LOCAL_STORE_BYTES: u32 = LS_SIZE;

/// `PT_LOAD` segments a file may have. The SPU toolchain's executables have two or three
/// (code, data, sometimes an overlay table); the bound keeps the overlap check short and the
/// reader free of allocation.
pub const MAX_LOAD_SEGMENTS: usize = 32;

/// The longest symbol name the reader accepts, in bytes. A bound on the search for each
/// name's NUL keeps the check of a hostile string table linear in the file's size.
pub const MAX_NAME_LEN: usize = 1024;

/// `e_machine` of an SPU program.
pub const EM_SPU: u16 = elf::abi::EM_SPU;

/// Sizes of the ELF32 structures (System V gABI).
pub(super) const FILE_HEADER_BYTES: usize = 52;
pub(super) const PROGRAM_HEADER_BYTES: usize = 32;
pub(super) const SECTION_HEADER_BYTES: usize = 40;
pub(super) const SYMBOL_BYTES: usize = 16;
