//! Model of the Cell Broadband Engine SPU (Synergistic Processor Unit).
//!
//! - [`isa`]: the instruction set: one opcode table, a table-driven decoder, a disassembler to
//!   the standard SPU assembly syntax and a two-pass no_std assembler.
//! - [`exec`]: the architectural state of one SPU ([`SpuState`](exec::SpuState)) and the
//!   functional interpreter ("instruction mode"): one function per instruction, one file per
//!   instruction family (`exec/instructions/`).
//! - [`pipeline`]: the cycle-level model ("pipeline mode"): issue and execution pipes, ideal
//!   fetch and the real fetch unit, statistics, trace, pipeline-viewer log and static timing
//!   listing. `docs/spu-timing-model.md` describes the model and its sources.
//! - [`probes`]: the probe points an SPU emits and the [`SpuObserver`](probes::SpuObserver)
//!   the models are generic over.
//! - [`unit`](mod@unit): [`SpuUnit`](unit::SpuUnit), one SPU as the simulator has it (state, mode,
//!   pipeline), switching between the two modes at run time.
//! - [`arena`]: a static [`Arena`](arena::Arena) of eight SPUs.
//! - [`elf`]: SPU ELF executables: a zero-copy reader that loads them into an SPU and names
//!   addresses by their symbols, and a writer for assembled programs.
//!
//! The SPU model needs no `unsafe`, and the compiler holds it to that.
#![forbid(unsafe_code)]

pub mod arena;
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
