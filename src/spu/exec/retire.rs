//! Retiring an instruction whose result a timing model computed ahead of time.
//!
//! The pipeline's ideal fetch runs every instruction in a functional copy of the SPU when
//! it fetches it (to know the path), several cycles before the instruction reaches stage o.
//! For an instruction whose only effect is its target register, stage o then needs no second
//! interpretation: [`Spu::retire_computed`] writes the value the copy computed and does the
//! retirement bookkeeping exactly as [`Spu::execute_at_cycle`] would.

use super::outcome::Status;
use super::quadword::Quadword;
use super::state::Spu;

impl Spu {
    /// Retires the instruction at the PC as if [`execute_at_cycle`](Self::execute_at_cycle)
    /// had run it at `cycle`, for an instruction whose whole effect is writing `value` to
    /// register `rt` and continuing at `next_pc` (no memory access, branch, channel, stop,
    /// profiling checkpoint or NOP counting). The caller vouches for `value`: it is what the
    /// instruction computes from the current state. Its report is the plain fall-through one:
    /// `Executed { pc, next_pc, retired: true, status: Running, .. }` with nothing else set.
    ///
    /// Returns `false` and changes nothing when the SPU is stopped (then `execute_at_cycle`
    /// reports that the instruction did not retire).
    #[inline(always)]
    pub(crate) fn retire_computed(
        &mut self,
        rt: u8,
        value: Quadword,
        next_pc: u32,
        cycle: u64,
    ) -> bool {
        if let Status::Stopped(_) = self.status {
            return false;
        }
        self.set_register(rt, value);
        self.status = Status::Running;
        self.retired = self.retired.wrapping_add(1);
        self.retired_non_nop = self.retired_non_nop.wrapping_add(1);
        self.cycles = cycle;
        self.profile.count(false);
        self.pc = next_pc;
        true
    }
}
