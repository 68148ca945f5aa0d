//! Model of the Cell Broadband Engine SPU (Synergistic Processor Unit).
//!
//! The types a program needs are re-exported here, the front door: one SPU ([`SpuUnit`], its
//! [`Mode`]), eight in a static [`Arena`], what a run notifies ([`SpuObserver`], the probe
//! points of [`SpuProbes`], the PMU feed [`SpuPmuFeed`], or [`NoProbes`]) and returns
//! ([`RunOutcome`], [`RunEnd`]), the assembler ([`assemble`], [`link`]) and the ELF reader and
//! writer ([`SpuElf`], [`write_executable`]), main memory and the host's side of the MFC
//! ([`MainMemory`], [`SharedMemory`], [`SignalRegister`]), and a compiled program's run under
//! its runtime ([`run_program`]). The modules below hold the rest.
//!
//! ```
//! use pmprobe::spu::{Discard, Mode, NoProbes, RunEnd, SpuUnit, StopReason, assemble};
//! let mut image = [0u8; 64];
//! let program = assemble::<8>("il $3, 41\nai $3, $3, 1\nstop 0x2000\n", &mut image)?;
//! let mut spu = Box::new(SpuUnit::new(0)); // about 600 KiB: bare metal uses the Arena
//! spu.load_program(&image[..program.len], program.entry)?;
//! spu.set_mode(Mode::Instruction); // functional; Mode::Pipeline (a new unit's) counts cycles
//! let outcome = spu.run(1_000, &NoProbes, &mut Discard)?;
//! assert_eq!(outcome.end, RunEnd::Stopped(StopReason::Stop { pc: 8, signal: 0x2000 }));
//! assert_eq!(spu.arch().register(3).0 >> 96, 42); // the preferred slot
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`isa`]: the instruction set: one opcode table, a table-driven decoder, a disassembler to
//!   the standard SPU assembly syntax and a two-pass no_std assembler.
//! - [`exec`]: the architectural state of one SPU ([`SpuState`]) and the
//!   functional interpreter ("instruction mode"): one function per instruction, one file per
//!   instruction family (`exec/instructions/`).
//! - [`pipeline`]: the cycle-level model ("pipeline mode"): issue and execution pipes, ideal
//!   fetch and the real fetch unit, statistics, trace, pipeline-viewer log and static timing
//!   listing. `docs/spu-timing-model.md` describes the model and its sources.
//! - [`probes`]: the probe points an SPU emits and the [`SpuObserver`]
//!   the models are generic over.
//! - [`unit`](mod@unit): [`SpuUnit`], one SPU as the simulator has it (state, mode,
//!   pipeline), switching between the two modes at run time.
//! - [`arena`]: a static [`Arena`] of eight SPUs.
//! - [`dma_check`]: the DMA race checker, an observer that names every race between a
//!   program and its DMA transfers, the same in both modes.
//! - [`elf`]: SPU ELF executables: a zero-copy reader that loads them into an SPU and names
//!   addresses by their symbols, and a writer for assembled programs.
//!
//! The SPU model needs no `unsafe`, and the compiler holds it to that.
#![forbid(unsafe_code)]

pub mod arena;
pub mod dma_check;
pub mod elf;
pub mod exec;
#[doc(inline)]
pub use pmprobe_spu_isa as isa;
pub mod main_memory;
pub mod mfc;
pub mod pipeline;
pub mod probes;
pub mod runtime;
pub mod unit;

pub use self::arena::{Arena, NoSuchSpu, SPU_COUNT};
pub use self::elf::{ElfError, SpuElf, write_executable};
pub use self::exec::{SpuState, StopReason};
pub use self::isa::asm::{AsmError, Program, assemble, link};
pub use self::main_memory::{MainMemory, SharedMemory, SignalRegister};
pub use self::pipeline::{Config, FetchKind, ModelError, RunEnd, RunOutcome, Statistics};
pub use self::probes::{NoProbes, SpuObserver, SpuPmuFeed, SpuProbes, StallReason};
pub use self::runtime::{ProgramEnd, RunError, RuntimeKind, run_program};
pub use self::unit::{Discard, Mode, SpuUnit};
