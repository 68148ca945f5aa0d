//! One test binary for the SPU ISA crate's integration tests: each file below is a module of it
//! (why one binary per area: the README's "Tests"). Each file declares the support modules it uses
//! itself, so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "spu_asm_gnu.rs"]
mod spu_asm_gnu;
#[path = "spu_asm_gnu_directives.rs"]
mod spu_asm_gnu_directives;
#[path = "spu_asm_gnu_layout.rs"]
mod spu_asm_gnu_layout;
#[path = "spu_asm_gnu_macros.rs"]
mod spu_asm_gnu_macros;
#[path = "spu_asm_gnu_operands.rs"]
mod spu_asm_gnu_operands;
#[path = "spu_isa_asm.rs"]
mod spu_isa_asm;
#[path = "spu_isa_asm_nesting.rs"]
mod spu_isa_asm_nesting;
#[path = "spu_isa_decode.rs"]
mod spu_isa_decode;
#[path = "spu_isa_disasm.rs"]
mod spu_isa_disasm;
#[path = "spu_isa_listing.rs"]
mod spu_isa_listing;
#[path = "spu_isa_objdump_sweep.rs"]
mod spu_isa_objdump_sweep;
#[path = "spu_isa_roundtrip.rs"]
mod spu_isa_roundtrip;
