//! The SPU instruction set architecture.
//!
//! - [`opcodes`]: the single opcode table (199 binutils base mnemonics, their formats, operand
//!   kinds, instruction classes/pipes, register dependencies) plus the feature-bit variants and
//!   aliases accepted by the assembler (`bid`, `hbrp`, `syncc`, `lr`, `bit`, ...).
//! - [`decode`]: `word >> 21` table lookup into [`decode::Instruction`].
//! - [`disasm`]: standard SPU assembly text (`fma $50,$51,$12,$52`, `lqd $3,16($1)`).
//! - [`asm`]: a two-pass assembler for GNU `as` SPU syntax into a caller-provided image.
//!
//! Source of the encoding facts: binutils `include/opcode/spu-insns.h` and `gas/config/tc-spu.c`
//! (operand ranges), summarised in `spu-reference.md` section 2.
pub mod asm;
pub mod decode;
pub mod disasm;
pub mod opcodes;
