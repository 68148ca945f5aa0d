//! Waiting on a channel in bulk.
//!
//! A channel instruction held at stage o (it waits for the MFC or an event: tag status, an
//! atomic command, a list stall, queue room, the decrementer) is retried every cycle, and
//! nothing else is in flight: fetch waits behind it (ideal fetch, which treats channel
//! instructions as serializing) or is held (the real fetch unit, whose younger instructions
//! were squashed). Until the next channel event, which ends the run loop's budget, every
//! retry fails the same way, so those cycles are all alike: nothing completes, nothing
//! issues, the stall is [`StallReason::ChannelWait`]. [`Pipeline::wait_on_channel`] runs
//! them at once, with the figures and notifications of running them one by one.

use crate::spu::exec::SpuState;
use crate::spu::pipeline::model::last_issue::LastIssue;
use crate::spu::pipeline::model::notification::{Notification, emit};
use crate::spu::pipeline::state::Pipeline;
use crate::spu::probes::{SpuObserver, StallReason};

impl Pipeline {
    /// Runs up to `budget` cycles of a channel wait at once; returns the cycles run.
    #[inline(never)]
    pub(in crate::spu::pipeline) fn wait_on_channel<O: SpuObserver>(
        &mut self,
        arch: &mut SpuState,
        budget: u64,
        observer: &O,
    ) -> u64 {
        if budget == 0 || !self.issue.is_drained() {
            return 0;
        }
        let reason = StallReason::ChannelWait;
        self.exec.open_rows_after(self.clock, budget);
        self.clock += budget;
        self.stopped_by = None;
        self.stats.cycles += budget;
        self.stats.count_stalls(reason, budget);
        self.last_issue = LastIssue::Stalled(reason);
        let stalled = Notification::StalledCycles(reason, budget);
        emit(observer, &mut self.fast_forward, self.clock, stalled);
        arch.mfc_mut().count_wait(budget);
        budget
    }
}
