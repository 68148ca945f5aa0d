//! spusim: assemble and link SPU assembly files (or read an SPU ELF executable) and run the
//! program on the pmprobe SPU model.
//!
//! `cargo spusim -- [options] prog.s [more.s ...]|prog.elf`; see `--help` ([`usage::USAGE`]). The binary is a thin
//! `main` over [`app::run`]; the library form lets tests and the fuzz targets call the option
//! parser ([`options::parse`]) and whole runs in-process.
//!
//! Modules, each using only those listed before it:
//! - [`exit`]: exit statuses and the typed [`exit::Failure`]s that map to them;
//! - [`end`]: how a run ends;
//! - [`host_options`], [`runtime_options`]: the host side's options and the runtime's;
//! - [`runtime_host`]: the program's runtime (`--runtime`): its start, its calls answered,
//!   the program's text on standard output;
//! - [`host`]: main memory, what the host feeds the SPU and drains from it (the mailboxes,
//!   through the runtime first), the DMA figures;
//! - [`engine`]: a run's summary, the [`engine::Engine`] trait and `fmt::Write` over
//!   `io::Write`;
//! - [`link_options`]: more sources, `--defsym`, `--objdump`;
//! - [`usage`], [`option_words`], [`pmu_option`], [`options`]: the help text, how a word
//!   reads, `--pmu`'s list, the command-line parser;
//! - [`source`]: reading the program files (size cap, read timeout);
//! - [`expand_source`], [`link_sources`]: includes and cpp; the link, its errors reported;
//! - [`elf_file`]: an ELF file's section headers and whole symbol table;
//! - [`program`]: the program to run, linked or read from an SPU ELF file;
//! - [`outputs`]: the refusal to let an output file replace an input;
//! - [`elf_output`]: `--elf`, the linked program as the SPU ELF executable spu-ld writes;
//! - [`objdump`], [`objdump_output`]: `--objdump`, spu-objdump -d's text;
//! - [`listing`]: `--disasm`, `--timing`, `--regs`;
//! - [`instruction_engine`], [`pipeline_engine`]: the two engines;
//! - [`attach`]: the probe listeners (`--pmu`, `--stack-distance`, `--din`);
//! - [`group`]: `--threads`, an lv2 thread group of several SPUs;
//! - [`app`]: the whole run.
#![forbid(unsafe_code)]

pub mod app;
pub mod attach;
pub mod elf_file;
pub mod elf_output;
pub mod end;
pub mod engine;
pub mod exit;
pub mod expand_source;
pub mod group;
pub mod host;
pub mod host_options;
pub mod instruction_engine;
pub mod link_options;
pub mod link_sources;
pub mod listing;
pub mod objdump;
pub mod objdump_output;
pub mod option_words;
pub mod options;
pub mod outputs;
pub mod pipeline_engine;
pub mod pmu_option;
pub mod program;
pub mod runtime_host;
pub mod runtime_options;
pub mod source;
pub mod usage;

pub use app::{run, simulate};
