//! Executing an instruction ahead of its completion, for a timing model's functional shadow.
//!
//! The pipeline's ideal fetch runs each instruction in a copy of the SPU when it fetches it,
//! to know the path and the effect stage o will apply ([`SpuState::retire_replayed`]). That copy
//! needs the effect and the next PC, not the report [`SpuState::execute`] builds nor the retirement
//! counters (stage o counts on the real state), so [`SpuState::run_ahead`] skips both on the
//! everyday paths.

use super::code::CodeStore;
use super::flow::{Flow, instruction_address};
use super::instructions::apply;
use super::op::Op;
use super::outcome::Status;
use super::state::SpuState;
use crate::spu::isa::Instruction;

/// What an instruction run ahead did (the PC has moved on to the next instruction, or stays
/// on it if it did not complete).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunAhead {
    /// It fell through.
    Next,
    /// It fell through and counts as a NOP.
    Nop,
    /// It fell through after a quadword load from this (aligned, wrapped) address.
    Load(u32),
    /// It fell through after a quadword store to this address.
    Store(u32),
    /// It branched to this address.
    Branch(u32),
    /// Anything else: a profiling checkpoint, a stop, a halt, a blocked channel access, a
    /// fault, or a stopped SPU (nothing happened). The status and the PC tell which: the SPU
    /// still runs only after a checkpoint.
    Unusual,
}

impl<C: CodeStore> SpuState<C> {
    /// Executes `insn` at the PC like [`execute`](Self::execute), without advancing the
    /// retirement counters and the clock on the everyday paths (fall-through, load, store,
    /// taken branch, NOP).
    #[cfg_attr(feature = "spu-lean", allow(dead_code))] // the lean run-ahead copy is lighter
    #[inline(always)]
    pub(crate) fn run_ahead(&mut self, insn: &Instruction) -> RunAhead {
        let pc = self.pc;
        if let Status::Stopped(_) = self.status {
            return RunAhead::Unusual;
        }
        let fall_through = instruction_address(pc.wrapping_add(4));
        let (ahead, next_pc) = match apply::<false>(self, &Op::of(insn), pc) {
            Flow::Next => (RunAhead::Next, fall_through),
            Flow::Nop => (RunAhead::Nop, fall_through),
            Flow::Load(address) => (RunAhead::Load(address), fall_through),
            Flow::Store(address) => (RunAhead::Store(address), fall_through),
            Flow::Branch(target) => (RunAhead::Branch(target), target),
            unusual => {
                self.finish_unusual::<false>(unusual, pc, insn.word, 0);
                return RunAhead::Unusual;
            }
        };
        // A retried channel access that went through leaves `Blocked`, as in `execute`.
        self.status = Status::Running;
        self.pc = next_pc;
        ahead
    }
}
