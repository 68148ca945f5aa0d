//! Retiring an instruction whose result a timing model computed ahead of time.
//!
//! The pipeline's ideal fetch runs every instruction in a functional copy of the SPU when
//! it fetches it (to know the path), several cycles before the instruction reaches stage o.
//! For an instruction whose only effect is its target register, stage o then needs no second
//! interpretation: [`Spu::retire_computed`] writes the value the copy computed and does the
//! retirement bookkeeping exactly as [`Spu::execute_at_cycle`] would.

use super::outcome::{Executed, Status};
use super::quadword::Quadword;
use super::state::Spu;

impl Spu {
    /// Retires the instruction `word` at the PC as if [`execute_at_cycle`](Self::execute_at_cycle)
    /// had run it at `cycle`, for an instruction whose whole effect is writing `value` to
    /// register `rt` and continuing at `next_pc` (no memory access, branch, channel, stop,
    /// profiling checkpoint or NOP counting). The caller vouches for `value`: it is what the
    /// instruction computes from the current state.
    ///
    /// Returns `None` and changes nothing when the SPU is stopped (then `execute_at_cycle`
    /// reports that the instruction did not retire).
    #[inline]
    pub fn retire_computed(
        &mut self,
        word: u32,
        rt: u8,
        value: Quadword,
        next_pc: u32,
        cycle: u64,
    ) -> Option<Executed> {
        if let Status::Stopped(_) = self.status {
            return None;
        }
        self.set_register(rt, value);
        if let Status::Blocked { .. } = self.status {
            self.status = Status::Running;
        }
        self.retired = self.retired.wrapping_add(1);
        self.retired_non_nop = self.retired_non_nop.wrapping_add(1);
        self.cycles = cycle;
        self.profile.count(false);
        let pc = self.pc;
        self.pc = next_pc;
        Some(Executed {
            pc,
            word,
            next_pc,
            branch_taken: false,
            access: None,
            profile: None,
            is_nop: false,
            retired: true,
            status: self.status,
        })
    }
}
