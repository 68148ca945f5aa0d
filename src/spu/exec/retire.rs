//! Retiring an instruction whose effect a timing model computed ahead of time.
//!
//! The pipeline's ideal fetch runs every instruction in a functional copy of the SPU when
//! it fetches it (to know the path), several cycles before the instruction reaches stage o.
//! For most instructions the effect on the state is one register write or one quadword store
//! (plus the next PC); stage o then needs no second interpretation: [`SpuState::retire_replayed`]
//! applies that effect and does the retirement bookkeeping exactly as
//! [`SpuState::execute_at_cycle`] would.

use super::code::CodeStore;
use super::outcome::Status;
use super::quadword::Quadword;
use super::state::SpuState;

/// The state an instruction writes, besides the PC and the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateWrite {
    /// Nothing (a branch without link, a hint, a NOP, `sync`).
    Nothing,
    /// Register `rt` receives the value.
    Register(u8),
    /// The quadword at this (aligned, wrapped) local-store address receives the value.
    Store(u32),
}

impl<C: CodeStore> SpuState<C> {
    /// Retires the instruction at the PC as if [`execute_at_cycle`](Self::execute_at_cycle)
    /// had run it at `cycle`, for an instruction whose whole effect is `write` with `value`,
    /// continuing at `next_pc` (no channel, stop, halt, fault, checkpoint, FPSCR or interrupt
    /// enable change). `is_nop`: the instruction counts as a NOP. The caller vouches for the
    /// effect: it is what the instruction does in the current state.
    ///
    /// Returns `false` and changes nothing when the SPU is stopped (then `execute_at_cycle`
    /// reports that the instruction did not retire).
    #[inline(always)]
    pub(crate) fn retire_replayed(
        &mut self,
        write: StateWrite,
        value: Quadword,
        next_pc: u32,
        is_nop: bool,
        cycle: u64,
    ) -> bool {
        if let Status::Stopped(_) = self.status {
            return false;
        }
        self.apply_replayed_write(write, value);
        self.retire_replayed_run(1, u64::from(is_nop), next_pc, cycle);
        true
    }

    /// The state write of a replayed instruction alone (no counting, the PC unchanged), for
    /// a timing model that completes a run of such instructions and then counts them with
    /// [`retire_replayed_run`](Self::retire_replayed_run). The SPU must be running.
    #[inline(always)]
    pub(crate) fn apply_replayed_write(&mut self, write: StateWrite, value: Quadword) {
        match write {
            StateWrite::Nothing => {}
            StateWrite::Register(rt) => self.set_register(rt, value),
            StateWrite::Store(address) => self.local_store.store_quadword(address, value),
        }
    }

    /// Counts `count` instructions completed by [`apply_replayed_write`]
    /// (`nops` of them NOP-class) as [`retire_replayed`](Self::retire_replayed) would have one
    /// by one, the last at `cycle`, continuing at `next_pc`.
    #[inline(always)]
    pub(crate) fn retire_replayed_run(&mut self, count: u64, nops: u64, next_pc: u32, cycle: u64) {
        self.status = Status::Running;
        self.retired = self.retired.wrapping_add(count);
        self.retired_non_nop = self.retired_non_nop.wrapping_add(count - nops);
        self.cycles = cycle;
        self.profile.count_many(count, count - nops);
        self.pc = next_pc;
    }
}
