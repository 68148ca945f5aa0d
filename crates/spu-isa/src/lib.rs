//! # pmprobe-spu-isa
//!
//! The instruction set of the Cell Broadband Engine's SPU (Synergistic Processor Unit), on its
//! own: it needs nothing of the SPU model, so an assembler, a disassembler or a checker of SPU
//! code can use it alone. It is `#![no_std]` and heap-free: every table has a fixed capacity,
//! and what exceeds one is a typed error. pmprobe re-exports it as `pmprobe::spu::isa`.
//!
//! - The opcode table (`opcodes.rs`, its row types beside it): the 199 binutils base mnemonics
//!   ([`Mnemonic`], [`OPCODES`]), their formats, operand kinds, instruction classes and pipes
//!   ([`IClass`]), register dependencies, plus the feature-bit variants and aliases the
//!   assembler accepts (`bid`, `hbrp`, `syncc`, `lr`, `bit`, ... in [`VARIANTS`]).
//! - The decoder (`decode.rs`): [`decode`] looks `word >> 21` up in a table and gives an
//!   [`Instruction`].
//! - The disassembler (`disasm.rs`): GNU `objdump -d`'s text ([`disassemble`],
//!   [`disassemble_word`]), e.g. `fma\t$50,$51,$12,$52`, `lqd\t$3,32($1)\t# 20`; the same on
//!   one line for traces ([`Instruction::display_at`]); and a listing that reassembles
//!   ([`write_listing`], `listing.rs`).
//! - [`asm`]: a two-pass assembler for GNU `as` SPU syntax into a caller-provided image.
//!
//! Source of the encoding facts: binutils `include/opcode/spu-insns.h` and
//! `gas/config/tc-spu.c` (operand ranges); see `docs/spu-timing-model.md`, Sources.
//!
//! ```
//! use pmprobe_spu_isa::{NoSymbols, asm::assemble, decode, disassemble};
//! let mut image = [0u8; 16];
//! let program = assemble::<4>("il $3,42\nstop", &mut image).unwrap();
//! let word = u32::from_be_bytes([image[0], image[1], image[2], image[3]]);
//! let mut text = heapless::String::<32>::new();
//! disassemble(&decode(word).unwrap(), 0, &NoSymbols, &mut text).unwrap();
//! // objdump (binutils spu-dis.c) follows an immediate above 16 with its hex.
//! assert_eq!((program.len, text.as_str()), (8, "il\t$3,42\t# 2a"));
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod asm;
mod decode;
mod disasm;
mod format;
mod iclass;
mod listing;
mod mnemonic;
mod opcode_info;
mod opcodes;
mod operand_kind;
mod printed_forms;

pub use decode::{IllegalInstruction, Instruction, decode, decode_inlined};
pub use disasm::{
    DisplayAt, NoSymbols, SymbolLookup, Syntax, disassemble, disassemble_word, write_instruction,
};
pub use listing::write_listing;
pub use opcodes::{
    DECODE_TABLE, Dependency, FEATURE_C_P, FEATURE_D, FEATURE_E, FEATURE_SHIFT, Format, IClass,
    ILLEGAL_INDEX, MNEMONIC_COUNT, Mnemonic, OPCODES, OpcodeInfo, OperandKind, VARIANTS, Variant,
};
