//! The SPU opcode table: one row per binutils base mnemonic (199), plus the feature-bit
//! variants and assembler aliases.
//!
//! Every fact here is transcribed from binutils `include/opcode/spu-insns.h` (FORMAT, 11-bit
//! OPCODE, MNEMONIC, ASM_FORMAT, DEPENDENCY, PIPE columns) and the operand ranges of
//! `gas/config/tc-spu.c` (`arg_encode`). Where GNU `as` only warns, or does not check at all,
//! this assembler picks the range that makes "out of range" mean "would not be encoded
//! exactly" (see [`OperandKind`]).
//!
//! Field numbering follows the SPU ISA: bit 0 is the most significant bit of the word.

pub use super::format::Format;
pub use super::iclass::IClass;
pub use super::mnemonic::{MNEMONIC_COUNT, Mnemonic};
pub use super::opcode_info::{
    Dependency, FEATURE_C_P, FEATURE_D, FEATURE_E, FEATURE_SHIFT, OpcodeInfo, Variant,
};
pub use super::operand_kind::OperandKind;

impl Mnemonic {
    /// The table row of this mnemonic.
    pub fn info(self) -> &'static OpcodeInfo {
        // `OPCODES` has exactly one row per variant, in declaration order (checked at compile
        // time below), so the index is always in bounds.
        &OPCODES[self as usize]
    }

    /// Lower-case assembly name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Finds a base mnemonic by its exact lower-case name.
    pub fn from_name(name: &str) -> Option<Mnemonic> {
        OPCODES
            .iter()
            .find(|row| row.name == name)
            .map(|row| row.mnemonic)
    }
}

use OperandKind::*;

type Forms = &'static [&'static [OperandKind]];

const F_NONE: Forms = &[&[]];
const F_RR: Forms = &[&[Rt, Ra, Rb]];
const F_RA_T: Forms = &[&[Rt, Ra]];
const F_RT: Forms = &[&[Rt]];
const F_RA: Forms = &[&[Ra]];
const F_RRR: Forms = &[&[Rt, Ra, Rb, Rc]];
const F_HALT_RR: Forms = &[&[Rt, Ra, Rb], &[Ra, Rb]];
const F_HALT_RI: Forms = &[&[Rt, Ra, S10], &[Ra, S10]];
const F_S10: Forms = &[&[Rt, Ra, S10]];
const F_S10B: Forms = &[&[Rt, Ra, S10B]];
const F_MEM14: Forms = &[&[Rt, MemS14]];
const F_MEM7: Forms = &[&[Rt, MemU7]];
const F_T_R18: Forms = &[&[Rt, R18]];
const F_T_S18: Forms = &[&[Rt, S18]];
const F_T_X16: Forms = &[&[Rt, X16]];

const fn row(
    mnemonic: Mnemonic,
    name: &'static str,
    format: Format,
    opcode: u16,
    dep: u16,
    class: IClass,
    forms: Forms,
) -> OpcodeInfo {
    let has_feature_bits = matches!(
        mnemonic,
        Mnemonic::Bi
            | Mnemonic::Bisl
            | Mnemonic::Iret
            | Mnemonic::Bisled
            | Mnemonic::Biz
            | Mnemonic::Binz
            | Mnemonic::Bihz
            | Mnemonic::Bihnz
            | Mnemonic::Sync
            | Mnemonic::Hbr
    );
    OpcodeInfo {
        mnemonic,
        name,
        format,
        opcode,
        class,
        dependency: Dependency::from_binutils(dep, format),
        forms,
        has_feature_bits,
    }
}

use Format::{Lbt, Lbti, Ri7, Ri8, Ri10, Ri16, Ri18, Rr, Rrr};
use IClass::{
    Br as BR, Fp6, Fp7, Fpd, Fx2, Fx3, Fxb, Lnop as LNOP, Ls, Nop as NOP, Shuf, Spr as SPR,
};
use Mnemonic as M;

/// The opcode table, indexed by `Mnemonic as usize`. DEPENDENCY codes are the binutils ones.
pub static OPCODES: [OpcodeInfo; MNEMONIC_COUNT] = ROWS;

#[rustfmt::skip]
const ROWS: [OpcodeInfo; MNEMONIC_COUNT] = [
    // BR, first (see the mnemonic list)
    row(M::Stop, "stop", Rr, 0x000, 0, BR, &[&[U14], &[]]),
    // FX2
    row(M::Il, "il", Ri16, 0x204, 2, Fx2, &[&[Rt, S16]]),
    row(M::Ilh, "ilh", Ri16, 0x20c, 2, Fx2, F_T_X16),
    row(M::Ilhu, "ilhu", Ri16, 0x208, 2, Fx2, F_T_X16),
    row(M::Ila, "ila", Ri18, 0x210, 2, Fx2, &[&[Rt, U18]]),
    row(M::Iohl, "iohl", Ri16, 0x304, 3, Fx2, F_T_X16),
    row(M::Andbi, "andbi", Ri10, 0x0b0, 12, Fx2, F_S10B),
    row(M::Andhi, "andhi", Ri10, 0x0a8, 12, Fx2, F_S10),
    row(M::Andi, "andi", Ri10, 0x0a0, 12, Fx2, F_S10),
    row(M::Orbi, "orbi", Ri10, 0x030, 12, Fx2, F_S10B),
    row(M::Orhi, "orhi", Ri10, 0x028, 12, Fx2, F_S10),
    row(M::Ori, "ori", Ri10, 0x020, 12, Fx2, F_S10),
    row(M::Xorbi, "xorbi", Ri10, 0x230, 12, Fx2, F_S10B),
    row(M::Xorhi, "xorhi", Ri10, 0x228, 12, Fx2, F_S10),
    row(M::Xori, "xori", Ri10, 0x220, 12, Fx2, F_S10),
    row(M::Ahi, "ahi", Ri10, 0x0e8, 12, Fx2, F_S10),
    row(M::Ai, "ai", Ri10, 0x0e0, 12, Fx2, F_S10),
    row(M::Sfhi, "sfhi", Ri10, 0x068, 12, Fx2, F_S10),
    row(M::Sfi, "sfi", Ri10, 0x060, 12, Fx2, F_S10),
    row(M::Cgtbi, "cgtbi", Ri10, 0x270, 12, Fx2, F_S10B),
    row(M::Cgthi, "cgthi", Ri10, 0x268, 12, Fx2, F_S10),
    row(M::Cgti, "cgti", Ri10, 0x260, 12, Fx2, F_S10),
    row(M::Clgtbi, "clgtbi", Ri10, 0x2f0, 12, Fx2, F_S10B),
    row(M::Clgthi, "clgthi", Ri10, 0x2e8, 12, Fx2, F_S10),
    row(M::Clgti, "clgti", Ri10, 0x2e0, 12, Fx2, F_S10),
    row(M::Ceqbi, "ceqbi", Ri10, 0x3f0, 12, Fx2, F_S10B),
    row(M::Ceqhi, "ceqhi", Ri10, 0x3e8, 12, Fx2, F_S10),
    row(M::Ceqi, "ceqi", Ri10, 0x3e0, 12, Fx2, F_S10),
    row(M::Hgti, "hgti", Ri10, 0x278, 10, Fx2, F_HALT_RI),
    row(M::Hlgti, "hlgti", Ri10, 0x2f8, 10, Fx2, F_HALT_RI),
    row(M::Heqi, "heqi", Ri10, 0x3f8, 10, Fx2, F_HALT_RI),
    row(M::Clz, "clz", Rr, 0x2a5, 12, Fx2, F_RA_T),
    row(M::Xsbh, "xsbh", Rr, 0x2b6, 12, Fx2, F_RA_T),
    row(M::Xshw, "xshw", Rr, 0x2ae, 12, Fx2, F_RA_T),
    row(M::Xswd, "xswd", Rr, 0x2a6, 12, Fx2, F_RA_T),
    row(M::A, "a", Rr, 0x0c0, 112, Fx2, F_RR),
    row(M::Ah, "ah", Rr, 0x0c8, 112, Fx2, F_RR),
    row(M::Sf, "sf", Rr, 0x040, 112, Fx2, F_RR),
    row(M::Sfh, "sfh", Rr, 0x048, 112, Fx2, F_RR),
    row(M::Cgt, "cgt", Rr, 0x240, 112, Fx2, F_RR),
    row(M::Cgtb, "cgtb", Rr, 0x250, 112, Fx2, F_RR),
    row(M::Cgth, "cgth", Rr, 0x248, 112, Fx2, F_RR),
    row(M::Clgt, "clgt", Rr, 0x2c0, 112, Fx2, F_RR),
    row(M::Clgtb, "clgtb", Rr, 0x2d0, 112, Fx2, F_RR),
    row(M::Clgth, "clgth", Rr, 0x2c8, 112, Fx2, F_RR),
    row(M::Ceq, "ceq", Rr, 0x3c0, 112, Fx2, F_RR),
    row(M::Ceqb, "ceqb", Rr, 0x3d0, 112, Fx2, F_RR),
    row(M::Ceqh, "ceqh", Rr, 0x3c8, 112, Fx2, F_RR),
    row(M::Hgt, "hgt", Rr, 0x258, 110, Fx2, F_HALT_RR),
    row(M::Hlgt, "hlgt", Rr, 0x2d8, 110, Fx2, F_HALT_RR),
    row(M::Heq, "heq", Rr, 0x3d8, 110, Fx2, F_HALT_RR),
    row(M::Fceq, "fceq", Rr, 0x3c2, 112, Fx2, F_RR),
    row(M::Fcmeq, "fcmeq", Rr, 0x3ca, 112, Fx2, F_RR),
    row(M::Fcgt, "fcgt", Rr, 0x2c2, 112, Fx2, F_RR),
    row(M::Fcmgt, "fcmgt", Rr, 0x2ca, 112, Fx2, F_RR),
    row(M::And, "and", Rr, 0x0c1, 112, Fx2, F_RR),
    row(M::Nand, "nand", Rr, 0x0c9, 112, Fx2, F_RR),
    row(M::Or, "or", Rr, 0x041, 112, Fx2, F_RR),
    row(M::Nor, "nor", Rr, 0x049, 112, Fx2, F_RR),
    row(M::Xor, "xor", Rr, 0x241, 112, Fx2, F_RR),
    row(M::Eqv, "eqv", Rr, 0x249, 112, Fx2, F_RR),
    row(M::Andc, "andc", Rr, 0x2c1, 112, Fx2, F_RR),
    row(M::Orc, "orc", Rr, 0x2c9, 112, Fx2, F_RR),
    row(M::Addx, "addx", Rr, 0x340, 113, Fx2, F_RR),
    row(M::Cg, "cg", Rr, 0x0c2, 112, Fx2, F_RR),
    row(M::Cgx, "cgx", Rr, 0x342, 113, Fx2, F_RR),
    row(M::Sfx, "sfx", Rr, 0x341, 113, Fx2, F_RR),
    row(M::Bg, "bg", Rr, 0x042, 112, Fx2, F_RR),
    row(M::Bgx, "bgx", Rr, 0x343, 113, Fx2, F_RR),
    row(M::Dfceq, "dfceq", Rr, 0x3c3, 112, Fx2, F_RR),
    row(M::Dfcmeq, "dfcmeq", Rr, 0x3cb, 112, Fx2, F_RR),
    row(M::Dfcgt, "dfcgt", Rr, 0x2c3, 112, Fx2, F_RR),
    row(M::Dfcmgt, "dfcmgt", Rr, 0x2cb, 112, Fx2, F_RR),
    row(M::Dftsv, "dftsv", Ri7, 0x3bf, 12, Fx2, &[&[Rt, Ra, U7]]),
    row(M::Selb, "selb", Rrr, 0x400, 2111, Fx2, F_RRR),
    // FX3
    row(M::Roti, "roti", Ri7, 0x078, 12, Fx3, &[&[Rt, Ra, S7N]]),
    row(M::Rotmi, "rotmi", Ri7, 0x079, 12, Fx3, &[&[Rt, Ra, S7]]),
    row(M::Rotmai, "rotmai", Ri7, 0x07a, 12, Fx3, &[&[Rt, Ra, S7]]),
    row(M::Shli, "shli", Ri7, 0x07b, 12, Fx3, &[&[Rt, Ra, U6]]),
    row(M::Rothi, "rothi", Ri7, 0x07c, 12, Fx3, &[&[Rt, Ra, S7N]]),
    row(M::Rothmi, "rothmi", Ri7, 0x07d, 12, Fx3, &[&[Rt, Ra, S6]]),
    row(M::Rotmahi, "rotmahi", Ri7, 0x07e, 12, Fx3, &[&[Rt, Ra, S6]]),
    row(M::Shlhi, "shlhi", Ri7, 0x07f, 12, Fx3, &[&[Rt, Ra, U5]]),
    row(M::Rot, "rot", Rr, 0x058, 112, Fx3, F_RR),
    row(M::Rotm, "rotm", Rr, 0x059, 112, Fx3, F_RR),
    row(M::Rotma, "rotma", Rr, 0x05a, 112, Fx3, F_RR),
    row(M::Shl, "shl", Rr, 0x05b, 112, Fx3, F_RR),
    row(M::Roth, "roth", Rr, 0x05c, 112, Fx3, F_RR),
    row(M::Rothm, "rothm", Rr, 0x05d, 112, Fx3, F_RR),
    row(M::Rotmah, "rotmah", Rr, 0x05e, 112, Fx3, F_RR),
    row(M::Shlh, "shlh", Rr, 0x05f, 112, Fx3, F_RR),
    // FXB
    row(M::Cntb, "cntb", Rr, 0x2b4, 12, Fxb, F_RA_T),
    row(M::Absdb, "absdb", Rr, 0x053, 112, Fxb, F_RR),
    row(M::Avgb, "avgb", Rr, 0x0d3, 112, Fxb, F_RR),
    row(M::Sumb, "sumb", Rr, 0x253, 112, Fxb, F_RR),
    // FP6
    row(M::Fa, "fa", Rr, 0x2c4, 112, Fp6, F_RR),
    row(M::Fs, "fs", Rr, 0x2c5, 112, Fp6, F_RR),
    row(M::Fm, "fm", Rr, 0x2c6, 112, Fp6, F_RR),
    row(M::Fma, "fma", Rrr, 0x700, 2111, Fp6, F_RRR),
    row(M::Fms, "fms", Rrr, 0x780, 2111, Fp6, F_RRR),
    row(M::Fnms, "fnms", Rrr, 0x680, 2111, Fp6, F_RRR),
    // FP7
    row(M::Mpyi, "mpyi", Ri10, 0x3a0, 12, Fp7, F_S10),
    row(M::Mpyui, "mpyui", Ri10, 0x3a8, 12, Fp7, F_S10),
    row(M::Cflts, "cflts", Ri8, 0x3b0, 12, Fp7, &[&[Rt, Ra, U7A]]),
    row(M::Cfltu, "cfltu", Ri8, 0x3b2, 12, Fp7, &[&[Rt, Ra, U7A]]),
    row(M::Csflt, "csflt", Ri8, 0x3b4, 12, Fp7, &[&[Rt, Ra, U7B]]),
    row(M::Cuflt, "cuflt", Ri8, 0x3b6, 12, Fp7, &[&[Rt, Ra, U7B]]),
    row(M::Fscrwr, "fscrwr", Rr, 0x3ba, 10, Fp7, &[&[Rt, Ra], &[Ra]]),
    row(M::Mpy, "mpy", Rr, 0x3c4, 112, Fp7, F_RR),
    row(M::Mpyh, "mpyh", Rr, 0x3c5, 112, Fp7, F_RR),
    row(M::Mpyhh, "mpyhh", Rr, 0x3c6, 112, Fp7, F_RR),
    row(M::Mpyhhu, "mpyhhu", Rr, 0x3ce, 112, Fp7, F_RR),
    row(M::Mpys, "mpys", Rr, 0x3c7, 112, Fp7, F_RR),
    row(M::Mpyu, "mpyu", Rr, 0x3cc, 112, Fp7, F_RR),
    row(M::Fi, "fi", Rr, 0x3d4, 112, Fp7, F_RR),
    row(M::Mpyhha, "mpyhha", Rr, 0x346, 113, Fp7, F_RR),
    row(M::Mpyhhau, "mpyhhau", Rr, 0x34e, 113, Fp7, F_RR),
    row(M::Mpya, "mpya", Rrr, 0x600, 2111, Fp7, F_RRR),
    // FPD
    row(M::Fesd, "fesd", Rr, 0x3b8, 12, Fpd, F_RA_T),
    row(M::Frds, "frds", Rr, 0x3b9, 12, Fpd, F_RA_T),
    row(M::Fscrrd, "fscrrd", Rr, 0x398, 2, Fpd, F_RT),
    row(M::Dfa, "dfa", Rr, 0x2cc, 112, Fpd, F_RR),
    row(M::Dfs, "dfs", Rr, 0x2cd, 112, Fpd, F_RR),
    row(M::Dfm, "dfm", Rr, 0x2ce, 112, Fpd, F_RR),
    row(M::Dfma, "dfma", Rr, 0x35c, 113, Fpd, F_RR),
    row(M::Dfms, "dfms", Rr, 0x35d, 113, Fpd, F_RR),
    row(M::Dfnms, "dfnms", Rr, 0x35e, 113, Fpd, F_RR),
    row(M::Dfnma, "dfnma", Rr, 0x35f, 113, Fpd, F_RR),
    // NOP (RT is ignored by the hardware; binutils accepts it as an optional operand)
    row(M::Nop, "nop", Rr, 0x201, 0, NOP, &[&[Rt], &[]]),
    // SHUF
    row(M::Fsmbi, "fsmbi", Ri16, 0x194, 2, Shuf, F_T_X16),
    row(M::Frest, "frest", Rr, 0x1b8, 12, Shuf, F_RA_T),
    row(M::Frsqest, "frsqest", Rr, 0x1b9, 12, Shuf, F_RA_T),
    row(M::Fsm, "fsm", Rr, 0x1b4, 12, Shuf, F_RA_T),
    row(M::Fsmh, "fsmh", Rr, 0x1b5, 12, Shuf, F_RA_T),
    row(M::Fsmb, "fsmb", Rr, 0x1b6, 12, Shuf, F_RA_T),
    row(M::Gb, "gb", Rr, 0x1b0, 12, Shuf, F_RA_T),
    row(M::Gbh, "gbh", Rr, 0x1b1, 12, Shuf, F_RA_T),
    row(M::Gbb, "gbb", Rr, 0x1b2, 12, Shuf, F_RA_T),
    row(M::Cbd, "cbd", Ri7, 0x1f4, 12, Shuf, F_MEM7),
    row(M::Chd, "chd", Ri7, 0x1f5, 12, Shuf, F_MEM7),
    row(M::Cwd, "cwd", Ri7, 0x1f6, 12, Shuf, F_MEM7),
    row(M::Cdd, "cdd", Ri7, 0x1f7, 12, Shuf, F_MEM7),
    row(M::Rotqbii, "rotqbii", Ri7, 0x1f8, 12, Shuf, &[&[Rt, Ra, U3]]),
    row(M::Rotqmbii, "rotqmbii", Ri7, 0x1f9, 12, Shuf, &[&[Rt, Ra, S3]]),
    row(M::Shlqbii, "shlqbii", Ri7, 0x1fb, 12, Shuf, &[&[Rt, Ra, U3]]),
    row(M::Rotqbyi, "rotqbyi", Ri7, 0x1fc, 12, Shuf, &[&[Rt, Ra, S7N]]),
    row(M::Rotqmbyi, "rotqmbyi", Ri7, 0x1fd, 12, Shuf, &[&[Rt, Ra, S6]]),
    row(M::Shlqbyi, "shlqbyi", Ri7, 0x1ff, 12, Shuf, &[&[Rt, Ra, U5]]),
    row(M::Cbx, "cbx", Rr, 0x1d4, 112, Shuf, F_RR),
    row(M::Chx, "chx", Rr, 0x1d5, 112, Shuf, F_RR),
    row(M::Cwx, "cwx", Rr, 0x1d6, 112, Shuf, F_RR),
    row(M::Cdx, "cdx", Rr, 0x1d7, 112, Shuf, F_RR),
    row(M::Rotqbi, "rotqbi", Rr, 0x1d8, 112, Shuf, F_RR),
    row(M::Rotqmbi, "rotqmbi", Rr, 0x1d9, 112, Shuf, F_RR),
    row(M::Shlqbi, "shlqbi", Rr, 0x1db, 112, Shuf, F_RR),
    row(M::Rotqby, "rotqby", Rr, 0x1dc, 112, Shuf, F_RR),
    row(M::Rotqmby, "rotqmby", Rr, 0x1dd, 112, Shuf, F_RR),
    row(M::Shlqby, "shlqby", Rr, 0x1df, 112, Shuf, F_RR),
    row(M::Rotqbybi, "rotqbybi", Rr, 0x1cc, 112, Shuf, F_RR),
    row(M::Rotqmbybi, "rotqmbybi", Rr, 0x1cd, 112, Shuf, F_RR),
    row(M::Shlqbybi, "shlqbybi", Rr, 0x1cf, 112, Shuf, F_RR),
    row(M::Shufb, "shufb", Rrr, 0x580, 2111, Shuf, F_RRR),
    // LS
    row(M::Lqa, "lqa", Ri16, 0x184, 2, Ls, F_T_S18),
    row(M::Lqr, "lqr", Ri16, 0x19c, 2, Ls, F_T_R18),
    row(M::Stqa, "stqa", Ri16, 0x104, 1, Ls, F_T_S18),
    row(M::Stqr, "stqr", Ri16, 0x11c, 1, Ls, F_T_R18),
    row(M::Lqd, "lqd", Ri10, 0x1a0, 12, Ls, F_MEM14),
    row(M::Stqd, "stqd", Ri10, 0x120, 11, Ls, F_MEM14),
    row(M::Lqx, "lqx", Rr, 0x1c4, 112, Ls, F_RR),
    row(M::Stqx, "stqx", Rr, 0x144, 111, Ls, F_RR),
    row(M::Hbra, "hbra", Lbt, 0x080, 0, Ls, &[&[S11, S18]]),
    row(M::Hbrr, "hbrr", Lbt, 0x090, 0, Ls, &[&[S11, R18]]),
    row(M::Hbr, "hbr", Lbti, 0x1ac, 10, Ls, &[&[S11I, Ra]]),
    // BR
    row(M::Br, "br", Ri16, 0x190, 0, BR, &[&[R18]]),
    row(M::Brsl, "brsl", Ri16, 0x198, 2, BR, F_T_R18),
    row(M::Bra, "bra", Ri16, 0x180, 0, BR, &[&[S18]]),
    row(M::Brasl, "brasl", Ri16, 0x188, 2, BR, F_T_S18),
    row(M::Brz, "brz", Ri16, 0x100, 1, BR, F_T_R18),
    row(M::Brnz, "brnz", Ri16, 0x108, 1, BR, F_T_R18),
    row(M::Brhz, "brhz", Ri16, 0x110, 1, BR, F_T_R18),
    row(M::Brhnz, "brhnz", Ri16, 0x118, 1, BR, F_T_R18),
    row(M::Bi, "bi", Rr, 0x1a8, 10, BR, F_RA),
    row(M::Bisl, "bisl", Rr, 0x1a9, 12, BR, F_RA_T),
    row(M::Iret, "iret", Rr, 0x1aa, 10, BR, &[&[Ra], &[]]),
    row(M::Bisled, "bisled", Rr, 0x1ab, 12, BR, F_RA_T),
    row(M::Biz, "biz", Rr, 0x128, 11, BR, F_RA_T),
    row(M::Binz, "binz", Rr, 0x129, 11, BR, F_RA_T),
    row(M::Bihz, "bihz", Rr, 0x12a, 11, BR, F_RA_T),
    row(M::Bihnz, "bihnz", Rr, 0x12b, 11, BR, F_RA_T),
    row(M::Stopd, "stopd", Rr, 0x140, 111, BR, F_RR),
    row(M::Sync, "sync", Rr, 0x002, 0, BR, F_NONE),
    row(M::Dsync, "dsync", Rr, 0x003, 0, BR, F_NONE),
    row(M::Orx, "orx", Rr, 0x1f0, 12, BR, F_RA_T),
    // SPR
    row(M::Mfspr, "mfspr", Rr, 0x00c, 2, SPR, &[&[Rt, Spr]]),
    row(M::Rdch, "rdch", Rr, 0x00d, 2, SPR, &[&[Rt, Channel]]),
    row(M::Rchcnt, "rchcnt", Rr, 0x00f, 2, SPR, &[&[Rt, Channel]]),
    row(M::Mtspr, "mtspr", Rr, 0x10c, 1, SPR, &[&[Spr, Rt]]),
    row(M::Wrch, "wrch", Rr, 0x10d, 1, SPR, &[&[Channel, Rt]]),
    // LNOP
    row(M::Lnop, "lnop", Rr, 0x001, 0, LNOP, F_NONE),
];

const fn var(name: &'static str, base: Mnemonic, feature: u8, forms: Forms) -> Variant {
    Variant {
        name,
        base,
        feature,
        forms,
        synonym: false,
    }
}

const fn syn(name: &'static str, base: Mnemonic, feature: u8, forms: Forms) -> Variant {
    Variant {
        name,
        base,
        feature,
        forms,
        synonym: true,
    }
}

/// Feature-bit variants (binutils `APUOPFB`) and synonyms ("required by the AS manual").
#[rustfmt::skip]
pub static VARIANTS: [Variant; 32] = [
    var("bid", M::Bi, FEATURE_D, F_RA),
    var("bie", M::Bi, FEATURE_E, F_RA),
    var("bisld", M::Bisl, FEATURE_D, F_RA_T),
    var("bisle", M::Bisl, FEATURE_E, F_RA_T),
    var("iretd", M::Iret, FEATURE_D, &[&[Ra], &[]]),
    var("irete", M::Iret, FEATURE_E, &[&[Ra], &[]]),
    var("bisledd", M::Bisled, FEATURE_D, F_RA_T),
    var("bislede", M::Bisled, FEATURE_E, F_RA_T),
    var("bihnzd", M::Bihnz, FEATURE_D, F_RA_T),
    var("bihnze", M::Bihnz, FEATURE_E, F_RA_T),
    var("bihzd", M::Bihz, FEATURE_D, F_RA_T),
    var("bihze", M::Bihz, FEATURE_E, F_RA_T),
    var("binzd", M::Binz, FEATURE_D, F_RA_T),
    var("binze", M::Binz, FEATURE_E, F_RA_T),
    var("bizd", M::Biz, FEATURE_D, F_RA_T),
    var("bize", M::Biz, FEATURE_E, F_RA_T),
    var("syncc", M::Sync, FEATURE_C_P, F_NONE),
    // binutils gives hbrp no operands; the ROH/RA/ROL fields are written as zero.
    var("hbrp", M::Hbr, FEATURE_C_P, F_NONE),
    syn("lr", M::Ori, 0, F_RA_T),
    syn("biht", M::Bihnz, 0, F_RA_T),
    syn("bihf", M::Bihz, 0, F_RA_T),
    syn("bit", M::Binz, 0, F_RA_T),
    syn("bif", M::Biz, 0, F_RA_T),
    syn("bihtd", M::Bihnz, FEATURE_D, F_RA_T),
    syn("bihte", M::Bihnz, FEATURE_E, F_RA_T),
    syn("bihfd", M::Bihz, FEATURE_D, F_RA_T),
    syn("bihfe", M::Bihz, FEATURE_E, F_RA_T),
    syn("bitd", M::Binz, FEATURE_D, F_RA_T),
    syn("bite", M::Binz, FEATURE_E, F_RA_T),
    syn("bifd", M::Biz, FEATURE_D, F_RA_T),
    syn("bife", M::Biz, FEATURE_E, F_RA_T),
    // binutils: "for system function call, this uses op-code of mtspr": RI7 fields RT, RA and
    // a 7-bit immediate where mtspr has RB.
    syn("syscall", M::Mtspr, 0, &[&[Rt, Ra, S7N]]),
];

impl Variant {
    /// Finds a variant or synonym by its exact lower-case name.
    pub fn from_name(name: &str) -> Option<&'static Variant> {
        VARIANTS.iter().find(|v| v.name == name)
    }
}

/// The 2048-entry decode table: `DECODE_TABLE[word >> 21]` is the index into [`OPCODES`] or
/// [`ILLEGAL_INDEX`]. Built at compile time; a table whose opcode ranges overlap fails to
/// compile.
pub static DECODE_TABLE: [u8; 2048] = build_decode_table();

/// Value of a [`DECODE_TABLE`] entry that no opcode covers.
pub const ILLEGAL_INDEX: u8 = 0xff;

const fn build_decode_table() -> [u8; 2048] {
    let mut table = [ILLEGAL_INDEX; 2048];
    let mut i = 0;
    while i < ROWS.len() {
        let row = &ROWS[i];
        assert!(
            row.mnemonic as usize == i,
            "OPCODES must be in Mnemonic order"
        );
        let span = row.format.table_span();
        let start = row.opcode as usize;
        assert!(
            start.is_multiple_of(span),
            "opcode has bits set below its op width"
        );
        let mut k = 0;
        while k < span {
            assert!(
                table[start + k] == ILLEGAL_INDEX,
                "overlapping opcode ranges"
            );
            table[start + k] = i as u8;
            k += 1;
        }
        i += 1;
    }
    table
}
