//! What issue stage j did in the last cycle: the state the run loop, the shortcuts and the
//! fast-forward's timing state share.

use crate::spu::probes::StallReason;

/// What stage j did in the last cycle (`repr(u8)`: `Issued`, tag 0, is the reset state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(in crate::spu::pipeline) enum LastIssue {
    /// Something issued.
    Issued,
    /// Nothing issued, for this reason.
    Stalled(StallReason),
}
