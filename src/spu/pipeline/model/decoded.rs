//! A decoded instruction as fetch keeps it: the [`InFlight`] record with the address and word
//! it was decoded from, and whether stage o may replay the shadow's effect instead of
//! interpreting it again.

use super::inflight::{EMPTY_INFLIGHT, InFlight, NO_REGISTER};
use crate::spu::exec::LS_ADDRESS_MASK;
use crate::spu::exec::checkpoint_number;
use crate::spu::isa::decode_inlined;
use crate::spu::isa::{FEATURE_D, FEATURE_E, IClass, Mnemonic};

/// A decoded instruction remembered with the address and word it came from.
#[derive(Clone, Copy)]
pub(crate) struct Decoded {
    /// The address it was decoded for, complemented: zero (an empty entry, all-zero bits)
    /// stands for address `u32::MAX`, which no instruction has.
    pub(super) not_pc: u32,
    pub(super) word: u32,
    /// The record, with channel instructions marked serializing (ideal fetch's view).
    pub inflight: InFlight,
    /// Stage o may apply the effect the shadow saw instead of interpreting the instruction
    /// again (when, in addition, the shadow saw it retire with no checkpoint and the SPU
    /// running). Not for the instructions with state beyond registers, the local store and
    /// the PC: channels and SPRs, `fscrwr` (FPSCR), `iret` and `bisled` (SRR0, events) and
    /// the branch forms that enable or disable interrupts.
    pub replay: Replay,
}

/// Whether stage o may replay what the shadow saw instead of interpreting again.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replay {
    /// Not run in the shadow at all: an illegal word or a channel instruction (fetch stops
    /// after it until it completed).
    Serializing,
    /// Never: the instruction has state beyond registers, the local store and the PC.
    Never,
    /// When the shadow saw it retire with no checkpoint and the SPU running.
    Checked,
    /// Always, as a target register write: a fixed-point, shuffle or byte instruction with a
    /// target that is not a checkpoint (these classes touch no other state, and fetch stops
    /// after anything that stops the shadow, so it retired there and fell through).
    Target,
}

impl Decoded {
    /// The record of `inflight` (decoded for its `pc` and word) with `replay`.
    #[inline(always)]
    pub(super) fn from_parts(inflight: InFlight, replay: Replay) -> Self {
        Decoded {
            not_pc: !inflight.pc,
            word: inflight.instruction.word,
            inflight,
            replay,
        }
    }

    /// The address it was decoded for.
    #[inline(always)]
    #[cfg_attr(feature = "spu-lean", allow(dead_code))] // the fast-forward's only
    pub fn pc(&self) -> u32 {
        !self.not_pc
    }

    #[inline(always)]
    pub(super) fn new(pc: u32, word: u32) -> Self {
        let inflight = decode_at(pc, word);
        let instruction = &inflight.instruction;
        let replayable = !inflight.illegal
            && !inflight.serializing()
            && inflight.class != IClass::Spr
            && !matches!(
                instruction.mnemonic,
                Mnemonic::Fscrwr | Mnemonic::Iret | Mnemonic::Bisled
            )
            && instruction.feature_bits() & (FEATURE_E | FEATURE_D) == 0;
        let only_target = matches!(
            inflight.class,
            IClass::Fx2 | IClass::Fx3 | IClass::Shuf | IClass::Fxb
        ) && inflight.target != NO_REGISTER
            && checkpoint_number(word).is_none();
        let replay = match (replayable, only_target) {
            _ if inflight.illegal || inflight.serializing() => Replay::Serializing,
            (false, _) => Replay::Never,
            (true, false) => Replay::Checked,
            (true, true) => Replay::Target,
        };
        Decoded {
            not_pc: !pc,
            word,
            inflight,
            replay,
        }
    }
}

pub(crate) const EMPTY_DECODED: Decoded = Decoded {
    not_pc: 0,
    word: 0,
    inflight: EMPTY_INFLIGHT,
    replay: Replay::Serializing,
};

/// Decodes the word at `pc`; channel instructions and the event-dependent branches are marked
/// `channel` and serializing.
#[inline(always)]
fn decode_at(pc: u32, word: u32) -> InFlight {
    let Ok(instruction) = decode_inlined(word) else {
        return InFlight::illegal_at(pc, word);
    };
    // Channel accesses, and the branches whose path depends on events or that may enter the
    // interrupt handler (`bisled`, `iret`, the E/D forms), wait for stage o: the shadow
    // cannot know the channels' state ahead of it.
    if matches!(
        instruction.mnemonic,
        Mnemonic::Rdch | Mnemonic::Wrch | Mnemonic::Rchcnt | Mnemonic::Bisled | Mnemonic::Iret
    ) || (instruction.is_branch() && instruction.feature_bits() & (FEATURE_E | FEATURE_D) != 0)
    {
        let next = pc.wrapping_add(4) & LS_ADDRESS_MASK & !3;
        let mut inflight = InFlight::new(pc, instruction, next);
        inflight.completion_duties = InFlight::SERIALIZING | InFlight::CHANNEL;
        return inflight;
    }
    InFlight::new(pc, instruction, pc)
}
