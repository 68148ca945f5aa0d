//! Branch hints in the real fetch unit.
//!
//! A hint (`hbr` without the P bit, `hbra`, `hbrr`) completing at stage o sets
//! the hint (branch address, target) and requests the target's line into the hint target
//! buffer ilbh (ahead of queued inline requests); the previous ilbh contents become invalid
//! when that request reaches LS pipe stage 3. When the hinted branch is loaded into the
//! predicted path buffer the hint triggers: queued inline requests become stale (`?`),
//! the line after ilbh2 is requested into ilb1, and eight cycles later the inline buffers
//! that still hold the old path are invalidated; stale requests still queued are flushed
//! when the hinted branch reaches stage g (ones already in the LS pipe complete). The hinted
//! branch is predicted taken to the target; after it enters stage g the predicted path
//! buffer is filled from ilbh (non-destructively). If ilbh is not loaded yet, fetch waits
//! ("waiting for hint target").
//!
//! ilbh feeds the predicted path buffer only on that path (ilbh1, then ilbh2); any other
//! path that happens to lie in the hint target line (a mispredict's corrected address)
//! comes from the inline buffers, whose destructive transfer requests the next line. A hint
//! that completes after its branch was already in the predicted path buffer triggers when
//! the branch reaches g. A prefetch miss on a half-line that no buffer holds and no live
//! request will bring (a hint replaced after triggering, its branch then predicted not
//! taken) requests that line, so fetch always makes progress.
//!
//! Simplification: the hint takes effect when it completes at stage o, so it must lead its
//! branch by the fetch-to-o distance plus the line fetch (about 14 single-issued
//! instructions in this model, against the 8 instructions the compiler rules require).

use super::buffers::{Destination, HALF_BYTES, Hint, LINE_BYTES, LineRequest};
use super::state::FetchUnit;
use crate::spu::exec::LS_ADDRESS_MASK;

impl FetchUnit {
    /// A hint completed at stage o: hint `branch` to `target` and fetch the target's line.
    pub(crate) fn set_hint(&mut self, branch: u32, target: u32) {
        let branch = branch & LS_ADDRESS_MASK & !3;
        let target = target & LS_ADDRESS_MASK & !3;
        self.hint = Some(Hint {
            branch,
            target,
            loaded: false,
        });
        // The hint fetch has precedence over queued inline requests.
        self.queue.push_front(LineRequest {
            line: target & !(LINE_BYTES - 1),
            destination: Destination::Ilbh,
            stale: false,
        });
    }

    /// The hinted branch was loaded into the predicted path buffer: redirect inline fetch to
    /// the line after ilbh2.
    pub(super) fn maybe_trigger(&mut self) {
        let Some(hint) = self.hint else {
            return;
        };
        let start = self.path.half.address + self.path.offset;
        let end = self.path.half.address + HALF_BYTES;
        if !(start..end).contains(&hint.branch) {
            return;
        }
        self.trigger_once();
    }

    /// Triggers the hint unless it already triggered for its branch: older inline requests
    /// become stale and inline fetch is redirected to the line after ilbh2.
    pub(super) fn trigger_once(&mut self) {
        let Some(hint) = self.hint else {
            return;
        };
        if self.triggered_for == Some(hint.branch) {
            return;
        }
        self.triggered_for = Some(hint.branch);
        // Older inline requests become stale; the buffers holding the old path are
        // invalidated eight cycles from now.
        for request in self.queue.iter_mut() {
            if request.destination != Destination::Ilbh {
                request.stale = true;
            }
        }
        self.stale_buffers = [true, true];
        self.invalidate_countdown = Some(8);
        self.queue.push(LineRequest {
            line: ((hint.target & !(LINE_BYTES - 1)) + LINE_BYTES) & LS_ADDRESS_MASK,
            destination: Destination::Ilb1,
            stale: false,
        });
    }

    /// The hinted branch reached stage g: stale requests still queued are flushed.
    pub(super) fn flush_stale_requests(&mut self) {
        self.queue.retain(|r| !r.stale);
    }

    /// Continue the predicted path at the hint target, from ilbh.
    pub(super) fn follow_hint(&mut self) {
        let Some(hint) = self.hint else {
            return;
        };
        self.next_half = hint.target & !(HALF_BYTES - 1);
        self.next_offset = hint.target & (HALF_BYTES - 1);
        self.path.half.valid = false;
        self.on_hint_path = true;
        self.refill_path();
    }
}
