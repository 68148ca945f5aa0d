//! The record of one instruction in flight, shared by fetch, issue, execute and the views.
//!
//! Fetch builds an [`InFlight`] for every instruction it fetches (decoded once per address
//! and word by the [`decode_cache`](super::decode_cache)); the instruction window keeps it
//! while the instruction travels down the pipes, which refer to it by sequence number.

use crate::spu::isa::Instruction;
use crate::spu::isa::{IClass, Mnemonic};

/// "No register": index of an always-ready scoreboard slot. Public: an [`InFlight`]'s
/// `target` and `sources` name it for a register not written or read.
pub const NO_REGISTER: u8 = 128;

/// An instruction travelling through the issue and execution pipes.
///
/// Public because the pipeline shows its stages with it, to a caller that reads them
/// ([`Pipeline::issue_stage`](crate::spu::pipeline::Pipeline::issue_stage),
/// [`Pipeline::exec_stage_slots`](crate::spu::pipeline::Pipeline::exec_stage_slots)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// Its local-store address.
    pub pc: u32,
    /// The decoded instruction (for an illegal word: the word with `illegal` set).
    pub instruction: Instruction,
    /// The address fetch expects to follow it.
    pub predicted_next: u32,
    /// Class (execution pipe and timing).
    pub class: IClass,
    /// Register written, or [`NO_REGISTER`] (128).
    pub target: u8,
    /// Registers read; unused entries are [`NO_REGISTER`].
    pub sources: [u8; 3],
    /// The registers read or written as a bit set (register `r` is bit `r % 64` of word
    /// `r / 64`), for the registers-used statistic.
    pub registers: [u64; 2],
    /// What its completion asks of the pipeline besides its effect: the
    /// [`SERIALIZING`](Self::SERIALIZING) and [`CHANNEL`](Self::CHANNEL) bits (see
    /// [`serializing`](Self::serializing), [`channel`](Self::channel)). One byte, so that
    /// stage o's common path, where neither is set, tests once.
    pub(crate) completion_duties: u8,
    /// The word is not an SPU instruction: stage o reports the fault.
    pub illegal: bool,
    /// Fetch sequence number, given when the instruction enters issue stage g (for
    /// pipeline viewers; 0 before).
    pub seq: u64,
}

impl InFlight {
    /// Wraps a decoded instruction.
    ///
    /// The operand lists are [`Instruction::sources`] and [`Instruction::target`], computed
    /// with arithmetic on whole words: fetch decodes every instruction of a straight-line
    /// kernel longer than its decode cache again on each pass, and the byte-by-byte form
    /// (its registers stored one at a time, then read back as a word, which the host cannot
    /// forward, and a branch per operand) was a quarter of pipeline mode's time there.
    #[inline(always)]
    pub(crate) fn new(pc: u32, instruction: Instruction, predicted_next: u32) -> Self {
        let info = instruction.info();
        let dependency = info.dependency;
        // The registers read, in the order RA, RB, RC, RT, packed into the low bytes of a
        // word (the first three kept, as `sources()` keeps them); the bytes above the last
        // one read NO_REGISTER.
        let mut packed = 0u32;
        let mut shift = 0u32;
        for (read, register) in [
            (dependency.reads_ra, instruction.ra),
            (dependency.reads_rb, instruction.rb),
            (dependency.reads_rc, instruction.rc),
            (dependency.reads_rt, instruction.rt),
        ] {
            let kept = u32::from(read & (shift < 24));
            packed |= (u32::from(register & 0x7f) * kept) << shift;
            shift += 8 * kept;
        }
        packed |= 0x0080_8080 & !((1u32 << shift) - 1);
        let [first, second, third, _] = packed.to_le_bytes();
        let sources = [first, second, third];
        let target = if dependency.writes_rt {
            instruction.rt & 0x7f
        } else {
            NO_REGISTER
        };
        // NO_REGISTER (128) sets no bit.
        let mut registers = [0u64; 2];
        for register in [first, second, third, target] {
            let bit = u64::from(register < NO_REGISTER) << (register % 64);
            registers[usize::from((register / 64) & 1)] |= bit;
        }
        InFlight {
            pc,
            instruction,
            predicted_next,
            class: info.class,
            target,
            sources,
            registers,
            completion_duties: 0,
            illegal: false,
            seq: 0,
        }
    }

    /// An illegal word: timed like a `nop`, faults at stage o.
    pub(crate) fn illegal_at(pc: u32, word: u32) -> Self {
        let mut nop = NOP_INSTRUCTION;
        nop.word = word;
        let mut inflight = Self::new(pc, nop, pc);
        inflight.set_serializing(true);
        inflight.illegal = true;
        inflight
    }

    /// [`completion_duties`](Self::completion_duties) bit: ideal fetch waits until this
    /// instruction completed.
    pub(crate) const SERIALIZING: u8 = 1;
    /// [`completion_duties`](Self::completion_duties) bit: the channels may need a service
    /// once it completed.
    pub(crate) const CHANNEL: u8 = 2;

    /// Ideal fetch waits until this instruction completed (channel, stop, halt, fault). The
    /// real fetch unit, which predicts the next address instead, fetches on past it.
    #[inline(always)]
    pub(crate) fn serializing(&self) -> bool {
        self.completion_duties & Self::SERIALIZING != 0
    }

    /// A channel instruction, or a branch that may change the interrupt state (`bisled`,
    /// `iret`, the E/D forms): once it completes the channels may need a service. (Ideal
    /// fetch also serializes these; the real fetch unit fetches on past them.)
    #[inline(always)]
    pub fn channel(&self) -> bool {
        self.completion_duties & Self::CHANNEL != 0
    }

    /// Makes fetch wait (or not) until this instruction completed.
    #[inline(always)]
    pub(crate) fn set_serializing(&mut self, serializing: bool) {
        self.completion_duties =
            (self.completion_duties & !Self::SERIALIZING) | u8::from(serializing);
    }

    /// `nop` or `lnop`.
    pub fn is_nop(&self) -> bool {
        matches!(self.class, IClass::Nop | IClass::Lnop)
    }
}

const NOP_INSTRUCTION: Instruction = Instruction {
    word: 0x4020_0000,
    mnemonic: Mnemonic::Nop,
    rt: 0,
    ra: 0,
    rb: 0,
    rc: 0,
    imm: 0,
    hint_offset: 0,
};

/// A placeholder record, all-zero bits: sequence number 0 (never handed out), so no lookup
/// by sequence number finds it. Its instruction is `stop 0`, the decode of the zero word.
pub(crate) const EMPTY_INFLIGHT: InFlight = InFlight {
    pc: 0,
    instruction: Instruction {
        word: 0,
        mnemonic: Mnemonic::Stop,
        rt: 0,
        ra: 0,
        rb: 0,
        rc: 0,
        imm: 0,
        hint_offset: 0,
    },
    predicted_next: 0,
    class: IClass::Fx2,
    target: 0,
    sources: [0; 3],
    registers: [0; 2],
    completion_duties: 0,
    illegal: false,
    seq: 0,
};

/// A fetch group: the pair at an even and the following odd word address. A slot is `None`
/// when the path does not go through that address.
pub(crate) type Group = [Option<InFlight>; 2];
