//! Model of the Cell Broadband Engine SPU (Synergistic Processor Unit).
//!
//! - [`isa`]: the instruction set: one opcode table, a table-driven decoder, a disassembler to
//!   the standard SPU assembly syntax and a two-pass no_std assembler.
//! - [`exec`]: functional execution ("instruction mode") of SPU programs.
pub mod arena;
pub mod exec;
pub mod isa;
pub mod pipeline;
pub mod probes;
pub mod unit;
