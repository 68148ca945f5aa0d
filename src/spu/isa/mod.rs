//! The SPU instruction set architecture.
//!
//! - The opcode table (`opcodes.rs`): the 199 binutils base mnemonics ([`Mnemonic`], [`OPCODES`]),
//!   their formats, operand kinds, instruction classes and pipes ([`IClass`]), register
//!   dependencies, plus the feature-bit variants and aliases the assembler accepts (`bid`,
//!   `hbrp`, `syncc`, `lr`, `bit`, ... in [`VARIANTS`]).
//! - The decoder (`decode.rs`): [`decode`] looks `word >> 21` up in a table and gives an
//!   [`Instruction`].
//! - The disassembler (`disasm.rs`): standard SPU assembly text ([`disassemble`],
//!   [`Instruction::display_at`], [`write_listing`]), e.g. `fma $50,$51,$12,$52`,
//!   `lqd $3,16($1)`.
//! - [`asm`]: a two-pass assembler for GNU `as` SPU syntax into a caller-provided image.
//!
//! Source of the encoding facts: binutils `include/opcode/spu-insns.h` and
//! `gas/config/tc-spu.c` (operand ranges); see `docs/spu-timing-model.md`, Sources.
pub mod asm;
mod decode;
mod disasm;
mod format;
mod iclass;
mod mnemonic;
mod opcode_info;
mod opcodes;
mod operand_kind;

pub use decode::{IllegalInstruction, Instruction, decode};
pub use disasm::{DisplayAt, NoSymbols, SymbolLookup, disassemble, write_listing};
pub use opcodes::{
    DECODE_TABLE, Dependency, FEATURE_C_P, FEATURE_D, FEATURE_E, FEATURE_SHIFT, Format, IClass,
    ILLEGAL_INDEX, MNEMONIC_COUNT, Mnemonic, OPCODES, OpcodeInfo, OperandKind, VARIANTS, Variant,
};
