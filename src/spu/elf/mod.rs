//! SPU ELF executables: read one into an SPU's local store, name PCs by its symbols, write one
//! from an assembled program.
//!
//! - [`SpuElf::parse`] checks a byte slice as an ELF32 big-endian `EM_SPU` `ET_EXEC` file,
//!   zero-copy: every `PT_LOAD` segment must lie in the file and in the local store, no two may
//!   overlap, the entry point must be a word inside one, and every `.symtab` name must be
//!   readable. Any failure is an [`ElfError`] naming the part, and happens before anything is
//!   loaded, so a load is never partial. [`SpuElf::load_into`] then copies the segments into an
//!   SPU's local store, zeroes each segment's `p_memsz` beyond its `p_filesz`, and resets the
//!   SPU to start at `e_entry`.
//! - [`ElfSymbols`] (from [`SpuElf::symbols`]) implements the disassembler's
//!   [`SymbolLookup`](crate::spu::isa::SymbolLookup), so ELF symbols name addresses wherever
//!   assembler labels do (listings, branch targets), and finds the symbol containing a PC.
//! - [`write_executable`] writes a linked [`Program`](crate::spu::isa::asm::Program) as the
//!   ELF executable `spu-ld` 2.40 writes for the same sources, into a caller's buffer
//!   ([`executable_size`] bytes): ld's segments (`segments`), its symbol table
//!   (`output_symbols`) and string tables (`strings`). It is in the library, heap-free, so a
//!   firmware or a `no_std` test can produce a loadable file as well as read one.
//!
//! The headers and tables are parsed by the `elf` crate (no default features: `no_std`, no
//! allocation); the checks that make a file loadable on an SPU are this module's.
//! `docs/spu-elf.md` has the format facts relied on.
//!
//! ```
//! use pmprobe::spu::elf::{ElfNames, SpuElf, executable_size, write_executable};
//! use pmprobe::spu::exec::SpuState;
//! use pmprobe::spu::isa::SymbolLookup;
//! use pmprobe::spu::isa::asm::assemble;
//! let mut image = [0u8; 64];
//! let program = assemble::<8>("_start: il $3,42\nend: stop\n", &mut image)?;
//! let names = ElfNames { output: "a.out", objects: &["prog.o"] };
//! let mut file = [0u8; 1024];
//! let len = write_executable(&program, &image, &names, &mut file)?;
//! assert_eq!(len, executable_size(&program, &names)?);
//!
//! let elf = SpuElf::parse(&file[..len])?;
//! assert_eq!((elf.entry(), elf.symbols().symbol_at(4)), (0, Some("end")));
//! let mut spu = Box::new(SpuState::new(0));
//! elf.load_into(&mut spu);
//! assert_eq!(spu.local_store().load_word(0), 0x4080_1503); // il $3,42
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod format;
mod notes;
mod output_symbols;
mod reader;
mod segments;
mod strings;
mod symbols;
mod writer;

pub use error::{ElfError, ElfPart, ElfWriteError, NameProblem};
pub use format::{ELF_MAGIC, EM_SPU, LOCAL_STORE_BYTES, MAX_LOAD_SEGMENTS, MAX_NAME_LEN};
pub use notes::{PS3_SDK_SECTIONS, SPU_NAME_NOTE};
pub use reader::{LoadSegment, SpuElf};
pub use symbols::{ElfSymbol, ElfSymbols, SymbolKind};
pub use writer::{ElfNames, check_entry_point, executable_size, write_executable};
