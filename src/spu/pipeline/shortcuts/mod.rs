//! The exact shortcuts: ways to reach the state the model would reach cycle by cycle, with
//! every figure and every notification the same, in fewer steps.
//!
//! What lives here: the fast-forward, which skips exact repetitions of a loop
//! (`fast_forward/`: the method, its memory's definition (`memory.rs`, which the pipeline's
//! definition holds), the timing state it compares and its capture, the real fetch unit's
//! part and where it reads, and the notes that let an observer listen; under the `spu-lean`
//! feature `no_fast_forward/` stands in for it), the stall skip (`stall_skip`), which runs a stretch of identical
//! stalled cycles at once, and the channel wait (`channel_wait`), which runs the cycles a
//! channel instruction waits at stage o at once.
//!
//! What it may use: the model (its state, which the shortcuts read and move forward), the
//! [`Pipeline`](super::Pipeline) (from its definition, `state.rs`) and the rest of the SPU. Nothing here is a view, and the
//! model does not import these files: the run loop in the pipeline's root calls them.

pub(super) mod channel_wait;
#[cfg(not(feature = "spu-lean"))]
pub(super) mod fast_forward;
#[cfg(feature = "spu-lean")]
#[path = "no_fast_forward/mod.rs"]
pub(super) mod fast_forward;
pub(super) mod stall_skip;
