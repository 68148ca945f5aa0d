//! The SPU instruction set architecture.
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

pub(crate) use decode::decode_inlined;
pub use decode::{IllegalInstruction, Instruction, decode};
pub use disasm::{
    DisplayAt, NoSymbols, SymbolLookup, Syntax, disassemble, disassemble_word, write_instruction,
};
pub use listing::write_listing;
pub(crate) use mnemonic::with_mnemonics;
pub use opcodes::{
    DECODE_TABLE, Dependency, FEATURE_C_P, FEATURE_D, FEATURE_E, FEATURE_SHIFT, Format, IClass,
    ILLEGAL_INDEX, MNEMONIC_COUNT, Mnemonic, OPCODES, OpcodeInfo, OperandKind, VARIANTS, Variant,
};
