//! What a simulated cycle tells the run loop: keep going, or end the run.

use crate::spu::exec::RunEnd;

/// What happened in one cycle, for the caller of [`Pipeline::step_cycle`](crate::spu::pipeline::Pipeline::step_cycle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CycleEnd {
    /// Keep going.
    Continue,
    /// The run must end.
    End(RunEnd),
}
