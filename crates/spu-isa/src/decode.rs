//! Table-driven decoder: one lookup of `word >> 21` in [`DECODE_TABLE`], no match chains.
//!
//! Unused fields (e.g. RT of `nop`/`lnop`, RA/RB of `sync`, bits 11-17 of `stop`) are ignored
//! as the hardware ignores them: such words decode to their instruction and keep the raw bits
//! in [`Instruction::word`]. Only words whose opcode bits match no table row are illegal.

use core::fmt;

use super::opcodes::{
    DECODE_TABLE, FEATURE_SHIFT, Format, IClass, ILLEGAL_INDEX, Mnemonic, OPCODES, OpcodeInfo,
};

/// A decoded SPU instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// The raw word (already converted from big-endian memory order).
    pub word: u32,
    /// The base mnemonic (feature-bit variants decode to their base; see [`Self::feature_bits`]).
    pub mnemonic: Mnemonic,
    /// RT field: bits 25-31, or bits 4-10 (the destination) in RRR. 0 when the format has none.
    pub rt: u8,
    /// RA field, bits 18-24. 0 when absent.
    pub ra: u8,
    /// RB field, bits 11-17 (RR, RRR). 0 when absent.
    pub rb: u8,
    /// RC field, bits 25-31 (RRR only). 0 when absent.
    pub rc: u8,
    /// RI7/RI10/RI16: the field sign-extended, not shifted. RI8/RI18: zero-extended.
    /// LBT: the I16 target field sign-extended. Otherwise 0.
    pub imm: i32,
    /// LBT/LBTI: the 9-bit ROH:ROL branch offset in words, sign-extended. Otherwise 0.
    pub hint_offset: i16,
}

/// A word that matches no opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct IllegalInstruction {
    /// The offending word.
    pub word: u32,
}

impl fmt::Display for IllegalInstruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal SPU instruction word {:#010x}", self.word)
    }
}

impl core::error::Error for IllegalInstruction {}

const fn sign_extend(value: u32, bits: u32) -> i32 {
    let shift = 32 - bits;
    ((value << shift) as i32) >> shift
}

const fn field(word: u32, shift: u32, bits: u32) -> u32 {
    (word >> shift) & ((1 << bits) - 1)
}

/// Decodes one instruction word.
///
/// ```
/// use pmprobe_spu_isa::{Mnemonic, decode};
/// let i = decode(0x4020_0000).unwrap();
/// assert_eq!(i.mnemonic, Mnemonic::Nop);
/// assert!(decode(0x0080_0000).is_err()); // RR opcode 0x004 does not exist
/// ```
pub fn decode(word: u32) -> Result<Instruction, IllegalInstruction> {
    decode_inlined(word)
}

/// [`decode`], inlined where it is called: for a decode cache whose refill would otherwise
/// read the result back from memory as wide loads of what `decode` stored field by field
/// (the host cannot forward that; pmprobe's pipeline model refills its cache this way).
#[inline(always)]
pub fn decode_inlined(word: u32) -> Result<Instruction, IllegalInstruction> {
    // `word >> 21` < 2048 always hits the table; ILLEGAL_INDEX is past the end of OPCODES.
    let index = DECODE_TABLE
        .get((word >> 21) as usize)
        .copied()
        .unwrap_or(ILLEGAL_INDEX);
    let info = OPCODES
        .get(usize::from(index))
        .ok_or(IllegalInstruction { word })?;
    Ok(fields(word, info))
}

/// Splits `word` into fields according to `info.format` (no opcode check).
#[inline(always)]
fn fields(word: u32, info: &OpcodeInfo) -> Instruction {
    let reg = |shift: u32| field(word, shift, 7) as u8;
    let mut inst = Instruction {
        word,
        mnemonic: info.mnemonic,
        rt: 0,
        ra: 0,
        rb: 0,
        rc: 0,
        imm: 0,
        hint_offset: 0,
    };
    match info.format {
        Format::Rr => {
            inst.rt = reg(0);
            inst.ra = reg(7);
            inst.rb = reg(14);
        }
        Format::Rrr => {
            inst.rt = reg(21);
            inst.rb = reg(14);
            inst.ra = reg(7);
            inst.rc = reg(0);
        }
        Format::Ri7 => {
            inst.rt = reg(0);
            inst.ra = reg(7);
            inst.imm = sign_extend(field(word, 14, 7), 7);
        }
        Format::Ri8 => {
            inst.rt = reg(0);
            inst.ra = reg(7);
            inst.imm = field(word, 14, 8) as i32;
        }
        Format::Ri10 => {
            inst.rt = reg(0);
            inst.ra = reg(7);
            inst.imm = sign_extend(field(word, 14, 10), 10);
        }
        Format::Ri16 => {
            inst.rt = reg(0);
            inst.imm = sign_extend(field(word, 7, 16), 16);
        }
        Format::Ri18 => {
            inst.rt = reg(0);
            inst.imm = field(word, 7, 18) as i32;
        }
        Format::Lbt => {
            inst.imm = sign_extend(field(word, 7, 16), 16);
            let ro = (field(word, 23, 2) << 7) | field(word, 0, 7);
            inst.hint_offset = sign_extend(ro, 9) as i16;
        }
        Format::Lbti => {
            inst.ra = reg(7);
            let ro = (field(word, 14, 2) << 7) | field(word, 0, 7);
            inst.hint_offset = sign_extend(ro, 9) as i16;
        }
    }
    inst
}

impl Instruction {
    /// The table row of the mnemonic.
    pub fn info(&self) -> &'static OpcodeInfo {
        self.mnemonic.info()
    }

    /// Instruction class (and so the pipe).
    pub fn class(&self) -> IClass {
        self.info().class
    }

    /// The register written, if any (binutils DEPENDENCY).
    pub fn target(&self) -> Option<u8> {
        self.info().dependency.writes_rt.then_some(self.rt)
    }

    /// The registers read, in the order RA, RB, RC/RT (binutils DEPENDENCY); unused slots are
    /// `None`.
    pub fn sources(&self) -> [Option<u8>; 3] {
        let dep = self.info().dependency;
        let mut out = [None; 3];
        let mut n = 0;
        let candidates = [
            (dep.reads_ra, self.ra),
            (dep.reads_rb, self.rb),
            (dep.reads_rc, self.rc),
            (dep.reads_rt, self.rt),
        ];
        for (used, reg) in candidates {
            if used && let Some(slot) = out.get_mut(n) {
                *slot = Some(reg);
                n += 1;
            }
        }
        out
    }

    /// Quadword loads: `lqd`, `lqx`, `lqa`, `lqr`.
    pub fn is_load(&self) -> bool {
        matches!(
            self.mnemonic,
            Mnemonic::Lqd | Mnemonic::Lqx | Mnemonic::Lqa | Mnemonic::Lqr
        )
    }

    /// Quadword stores: `stqd`, `stqx`, `stqa`, `stqr`.
    pub fn is_store(&self) -> bool {
        matches!(
            self.mnemonic,
            Mnemonic::Stqd | Mnemonic::Stqx | Mnemonic::Stqa | Mnemonic::Stqr
        )
    }

    /// Branches (relative, absolute, indirect, conditional, `iret`); not `stop`/`sync`/`orx`.
    pub fn is_branch(&self) -> bool {
        matches!(
            self.mnemonic,
            Mnemonic::Br
                | Mnemonic::Bra
                | Mnemonic::Brsl
                | Mnemonic::Brasl
                | Mnemonic::Brz
                | Mnemonic::Brnz
                | Mnemonic::Brhz
                | Mnemonic::Brhnz
                | Mnemonic::Bi
                | Mnemonic::Bisl
                | Mnemonic::Iret
                | Mnemonic::Bisled
                | Mnemonic::Biz
                | Mnemonic::Binz
                | Mnemonic::Bihz
                | Mnemonic::Bihnz
        )
    }

    /// Branch hints `hbr` (including the P form `hbrp`), `hbra`, `hbrr`.
    pub fn is_hint(&self) -> bool {
        matches!(
            self.mnemonic,
            Mnemonic::Hbr | Mnemonic::Hbra | Mnemonic::Hbrr
        )
    }

    /// `hbr` with the P bit: the instruction-prefetch form `hbrp`.
    pub fn is_hbrp(&self) -> bool {
        self.mnemonic == Mnemonic::Hbr && self.feature_bits() & super::opcodes::FEATURE_C_P != 0
    }

    /// Bits 11-13 of the forms that carry feature bits (branch-indirect, `sync`, `hbr`),
    /// as `0x40` (C/P), `0x20` (D), `0x10` (E); 0 for every other instruction.
    pub fn feature_bits(&self) -> u8 {
        if self.info().has_feature_bits {
            ((self.word >> FEATURE_SHIFT) & 0x70) as u8
        } else {
            0
        }
    }

    /// `stop` signal code: bits 18-31.
    pub fn stop_signal(&self) -> u16 {
        (self.word & 0x3fff) as u16
    }
}
