//! The real fetch unit's state: its request queue and LS pipe, its buffers, the hint
//! register and the mispredict state. What the unit does with them is in the `impl`s beside
//! it: fetching in `mod.rs`, branch hints in `hints.rs`.

use super::buffers::{HalfLine, Hint, LS_PIPE_STAGES, LineRequest, PathBuffer, RequestQueue};
use crate::spu::probes::StallReason;

/// The real fetch unit's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FetchUnit {
    pub(super) queue: RequestQueue,
    pub(super) ls_pipe: [Option<LineRequest>; LS_PIPE_STAGES],
    /// How many stages of `ls_pipe` hold a request: in a loop fetched ahead the pipe is
    /// empty most cycles, and moving it on then costs one test instead of a copy of every
    /// stage.
    pub(super) ls_pipe_requests: u8,
    /// ilb11, ilb12 (index 0) and ilb21, ilb22 (index 1).
    pub(super) inline: [[HalfLine; 2]; 2],
    /// ilbh1, ilbh2.
    pub(super) ilbh: [HalfLine; 2],
    pub(super) hint: Option<Hint>,
    /// The hinted branch went to stage g before ilbh was loaded.
    pub(super) waiting_for_hint: bool,
    /// The hinted branch whose triggering already redirected inline fetch.
    pub(super) triggered_for: Option<u32>,
    /// The predicted path runs through the hint target buffer: it was entered when the hinted
    /// branch went to stage g, and only then may ilbh feed the predicted path buffer.
    pub(super) on_hint_path: bool,
    /// Inline buffers (ilb1, ilb2) holding the path from before the last trigger.
    pub(super) stale_buffers: [bool; 2],
    /// Cycles until the stale inline buffers are invalidated.
    pub(super) invalidate_countdown: Option<u8>,
    pub(super) path: PathBuffer,
    /// The half-line the predicted path continues with, and the first offset to use in it.
    pub(super) next_half: u32,
    pub(super) next_offset: u32,
    /// Mispredict state 0..=5 and the corrected address.
    pub(super) mispredict_state: u8,
    pub(super) redirect: u32,
    pub(super) starve_reason: StallReason,
    /// The target of a backward branch predicted taken that went to stage g since the
    /// fast-forward last asked (a loop head the predicted path passed).
    pub(super) passed_loop_head: Option<u32>,
}
