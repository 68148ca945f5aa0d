//! An instruction as the interpreter executes it: the mnemonic and the fields it reads, in 8
//! bytes (an [`Instruction`] is 16), so that a decoded copy of the whole local store
//! (`code.rs`) takes 512 KiB.

use crate::spu::isa::{Format, Instruction, Mnemonic, decode};

/// A decoded instruction for execution, in one 64-bit word (so that it is loaded, and passed
/// to a handler, in one register): the mnemonic in bits 0..7, RT in 8..15, RA in 16..23, RB
/// in 24..31, and in 32..63 the immediate as [`Instruction::imm`] has it, RC in the RRR
/// format, or the signal of `stop` and `stopd`. For the branch-indirect forms, RB's bits 4..6
/// are the feature bits.
///
/// All-zero bits are the decode of word 0, `stop 0`, which is also what the decoded copy of
/// the local store holds for a word not decoded yet (`code.rs`): the interpreter meets it on
/// the out-of-line path of `stop` and decodes then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op(u64);

impl Op {
    /// `stop 0`, and a word not decoded yet.
    pub(crate) const ZERO: Op = Op(0);

    /// The op of a decoded instruction.
    #[inline]
    pub(crate) fn of(insn: &Instruction) -> Op {
        let imm = match insn.mnemonic {
            Mnemonic::Stop | Mnemonic::Stopd => i32::from(insn.stop_signal()),
            _ if insn.info().format == Format::Rrr => i32::from(insn.rc),
            _ => insn.imm,
        };
        Op(insn.mnemonic as u64
            | u64::from(insn.rt) << 8
            | u64::from(insn.ra) << 16
            | u64::from(insn.rb) << 24
            | u64::from(imm as u32) << 32)
    }

    /// The op whose 64 bits are `bits` (as [`bits`](Self::bits) gave them).
    #[inline(always)]
    pub(crate) const fn from_bits(bits: u64) -> Op {
        Op(bits)
    }

    /// The op's 64 bits (the decoded code keeps ops as plain words, `code.rs`).
    #[inline(always)]
    pub(crate) const fn bits(self) -> u64 {
        self.0
    }

    /// The op of `word`, `None` if the word is no instruction.
    #[inline]
    pub(crate) fn decode(word: u32) -> Option<Op> {
        decode(word).ok().map(|insn| Op::of(&insn))
    }

    /// The mnemonic's number (`Mnemonic as usize`), below 256.
    #[inline(always)]
    pub(crate) fn index(self) -> usize {
        (self.0 & 0xff) as usize
    }

    /// The mnemonic.
    #[inline(always)]
    pub(crate) fn mnemonic(self) -> Mnemonic {
        // Every op is built from a mnemonic: the index is in the table.
        Mnemonic::ALL
            .get(self.index())
            .copied()
            .unwrap_or(Mnemonic::Stop)
    }

    /// RT (the destination in RRR).
    #[inline(always)]
    pub(crate) fn rt(self) -> u8 {
        (self.0 >> 8) as u8
    }

    /// RA.
    #[inline(always)]
    pub(crate) fn ra(self) -> u8 {
        (self.0 >> 16) as u8
    }

    /// RB.
    #[inline(always)]
    pub(crate) fn rb(self) -> u8 {
        (self.0 >> 24) as u8
    }

    /// The immediate, as [`Instruction::imm`] has it.
    #[inline(always)]
    pub(crate) fn imm(self) -> i32 {
        (self.0 >> 32) as i32
    }

    /// RC of an RRR instruction.
    #[inline(always)]
    pub(crate) fn rc(self) -> u8 {
        (self.0 >> 32) as u8
    }

    /// The `stop`/`stopd` signal.
    #[inline(always)]
    pub(crate) fn stop_signal(self) -> u16 {
        (self.0 >> 32) as u16
    }

    /// The feature bits of the branch-indirect forms, as [`Instruction::feature_bits`] gives
    /// them (`0x40` C/P, `0x20` D, `0x10` E); call it only for those forms (the interpreter
    /// reads no other's).
    #[inline(always)]
    pub(crate) fn feature_bits(self) -> u8 {
        self.rb() & 0x70
    }

    /// The `prof_cp` number when this is `and $N,$N,$N` with N up to 31 (the whole word is
    /// then fixed by its fields).
    #[inline(always)]
    pub(crate) fn checkpoint(self) -> Option<u8> {
        let n = self.rt();
        (self.index() == Mnemonic::And as usize && n <= 31 && self.ra() == n && self.rb() == n)
            .then_some(n)
    }

    /// A branch instruction, taken or not (as [`Instruction::is_branch`]): the branch
    /// mnemonics are declared together, from `br` to `bihnz`, so this is one range test.
    #[inline(always)]
    pub(crate) const fn is_branch_mnemonic(mnemonic: Mnemonic) -> bool {
        (mnemonic as u8).wrapping_sub(Mnemonic::Br as u8)
            <= Mnemonic::Bihnz as u8 - Mnemonic::Br as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spu::exec::checkpoint_number;
    use crate::spu::isa::{FEATURE_SHIFT, OPCODES};

    #[test]
    fn eight_bytes_and_zero_is_stop_zero() {
        assert_eq!(size_of::<Op>(), 8);
        assert_eq!(Op::decode(0), Some(Op::ZERO));
    }

    /// Every field an instruction function reads comes through: checked over every opcode
    /// with fields of distinct values.
    #[test]
    fn every_opcode_keeps_its_fields() {
        for info in OPCODES.iter() {
            let shift = match info.format {
                Format::Rr | Format::Ri7 | Format::Lbti => 21,
                Format::Rrr => 28,
                Format::Ri8 => 22,
                Format::Ri10 => 24,
                Format::Ri16 | Format::Lbt => 23,
                Format::Ri18 => 25,
            };
            for fields in [0x0012_3456u32, 0x0005_4321, 0x001f_ffff] {
                let word = (u32::from(info.opcode) << shift) | (fields & ((1 << shift) - 1));
                let Ok(insn) = decode(word) else { continue };
                let op = Op::of(&insn);
                assert_eq!(op.mnemonic(), insn.mnemonic);
                assert_eq!((op.rt(), op.ra(), op.rb()), (insn.rt, insn.ra, insn.rb));
                match insn.mnemonic {
                    Mnemonic::Stop | Mnemonic::Stopd => {
                        assert_eq!(op.stop_signal(), insn.stop_signal());
                    }
                    _ if insn.info().format == Format::Rrr => assert_eq!(op.rc(), insn.rc),
                    _ => assert_eq!(op.imm(), insn.imm),
                }
                if insn.info().has_feature_bits && insn.is_branch() {
                    assert_eq!(op.feature_bits(), insn.feature_bits(), "{word:#x}");
                }
                assert_eq!(op.checkpoint(), checkpoint_number(word), "{word:#x}");
                assert_eq!(Op::is_branch_mnemonic(op.mnemonic()), insn.is_branch());
            }
        }
        // The feature bits sit in RB's top bits.
        assert_eq!(FEATURE_SHIFT, 14);
        // Every prof_cp checkpoint is recognised.
        for n in 0..32u32 {
            let word = 0x1820_0000 | n << 14 | n << 7 | n;
            assert_eq!(Op::decode(word).and_then(Op::checkpoint), Some(n as u8));
        }
    }
}
