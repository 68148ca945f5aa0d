//! Exact skipping of stalled cycles.
//!
//! While the instruction in issue stage j waits for an operand (or the issue stall after a
//! DP instruction), every cycle until that hazard clears is the same: nothing issues, so the
//! issue stages stay where they are, no execution row fills, and the stall is charged to the
//! same reason. The first cycle in which the hazard may clear is known in advance: the
//! release cycle of the register it waits for (or the end of the issue stall), which cannot
//! move while nothing issues. If fetch has nothing to do in those cycles either (ideal fetch
//! with stage g full; the real fetch unit with stage g full, no request queued and only the
//! line requests already in the LS pipe moving on), the cycles differ only in what stage o
//! completes: the instructions issued in the five cycles before the stall began.
//!
//! [`Pipeline::skip_stalled_cycles`] therefore runs such a stretch as: the cycles in which
//! stage o has nothing to do all at once (clock, statistics, rows, LS pipe moved on in
//! O(1)), and the few in which it completes something as stage o alone, without asking
//! issue and fetch again. A completion that changes anything beyond the architectural state
//! (a mispredict, a hint, a blocked channel, a stop, a `prof_cp` line, a request for the
//! fetch unit) ends the skip: that cycle's issue and fetch run as usual. The result is the
//! same as simulating every cycle, notifications included: a stretch is reported with
//! [`SpuObserver::stalled_cycles`], which says what the cycles one by one would have said.
//! Tests compare the two over many programs; [`Pipeline::set_stall_skip`] turns it off.

use core::fmt;

use crate::spu::exec::RunEnd;
use crate::spu::exec::SpuState;
use crate::spu::pipeline::model::cycle_end::CycleEnd;
use crate::spu::pipeline::model::error::ModelError;
use crate::spu::pipeline::model::last_issue::LastIssue;
use crate::spu::pipeline::model::notification::{Notification, emit};
use crate::spu::pipeline::model::sizes::O_STAGE;
use crate::spu::pipeline::state::Pipeline;
use crate::spu::probes::{SpuObserver, StallReason};

impl Pipeline {
    /// Turns the skipping of stalled cycles on (the default) or off. Either way the results
    /// are the same; off, every stalled cycle is simulated one by one.
    pub fn set_stall_skip(&mut self, enabled: bool) {
        self.stall_skip_off = !enabled;
    }

    /// Whether stalled cycles are skipped.
    pub fn stall_skip_enabled(&self) -> bool {
        !self.stall_skip_off
    }

    /// Stalled cycles whose issue and fetch were skipped (counted in every other figure as
    /// simulated) since the pipeline was made.
    pub fn skipped_stall_cycles(&self) -> u64 {
        self.stall_skipped
    }

    /// Called at the end of a cycle: runs the cycles after it in which stage j keeps
    /// stalling for the same reason and fetch is idle (at most `budget`), see the module
    /// documentation. Returns the cycles run and the run end if one came.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn skip_stalled_cycles<O: SpuObserver, W: fmt::Write>(
        &mut self,
        arch: &mut SpuState,
        budget: u64,
        observer: &O,
        output: &mut W,
    ) -> Result<(u64, Option<RunEnd>), ModelError> {
        let start = self.clock;
        // The run loop took every follow-up before: one that comes in the stretch ends it.
        debug_assert!(self.follow_up.is_nothing());
        if self.blocked != 0 || budget == 0 {
            return Ok((0, None));
        }
        let Some((reason, until)) = self.issue.stall_until(start + 1, &self.exec) else {
            return Ok((0, None));
        };
        // The last cycle this call may run.
        let last = (until - 1).min(start + budget);
        self.skip_until(arch, reason, start, last, observer, output)
    }

    /// The stretch of [`skip_stalled_cycles`](Self::skip_stalled_cycles) after the cycle
    /// `start`, up to cycle `last`, all stalled for `reason`: cycle by cycle while stage o may
    /// still complete something (the rows issued up to `start`), then the rest at once.
    #[inline(never)]
    fn skip_until<O: SpuObserver, W: fmt::Write>(
        &mut self,
        arch: &mut SpuState,
        reason: StallReason,
        start: u64,
        last: u64,
        observer: &O,
        output: &mut W,
    ) -> Result<(u64, Option<RunEnd>), ModelError> {
        // Cycles fetch stays idle for from the next one on; only a completion can shorten it.
        let mut fetch_idle = self.fetch.idle_cycles(self.issue.g_is_empty());
        let busy_until = last.min(start + O_STAGE);
        // Stalled cycles run one by one and not yet charged to the statistics.
        let mut stalled = 0;
        while self.clock < busy_until && fetch_idle > 0 {
            self.begin_cycle(observer);
            let now = self.clock;
            if now >= O_STAGE && !self.exec.row_is_empty(now - O_STAGE) {
                let end = self.stage_o(arch, now, observer, output)?;
                fetch_idle = self.fetch.idle_cycles(self.issue.g_is_empty());
                // A channel instruction that blocks either ends the run or asks for a wait,
                // so a follow-up (or a prof_cp line, noted the same way) covers it.
                if end.is_some() || !self.follow_up.is_nothing() || fetch_idle == 0 {
                    // Something beyond the state changed: issue and fetch decide again
                    // (with no DMA in flight: the run loop skips stalls only then).
                    self.charge_stalls(reason, stalled);
                    let end = match self.issue_and_fetch::<false, O>(arch, end, now, observer) {
                        CycleEnd::End(reason) => Some(reason),
                        CycleEnd::Continue => None,
                    };
                    return Ok((now - start, end));
                }
            }
            self.exec.open_row(now);
            emit(
                observer,
                &mut self.fast_forward,
                now,
                Notification::IssueStall(reason),
            );
            self.fetch.idle(arch, 1);
            fetch_idle -= 1;
            stalled += 1;
        }
        // Stage o has nothing left to complete before `last`.
        let quiet = (last.saturating_sub(self.clock)).min(fetch_idle);
        if quiet > 0 {
            self.exec.open_rows_after(self.clock, quiet);
            self.clock += quiet;
            self.stopped_by = None;
            self.stats.cycles += quiet;
            let quiet_cycles = Notification::StalledCycles(reason, quiet);
            emit(observer, &mut self.fast_forward, self.clock, quiet_cycles);
            self.fetch.idle(arch, quiet);
            stalled += quiet;
        }
        self.charge_stalls(reason, stalled);
        Ok((self.clock - start, None))
    }

    /// Charges `cycles` cycles stalled for `reason` run by the skip to the statistics.
    #[inline(always)]
    fn charge_stalls(&mut self, reason: StallReason, cycles: u64) {
        if cycles > 0 {
            self.stats.count_stalls(reason, cycles);
            self.last_issue = LastIssue::Stalled(reason);
            self.stall_skipped += cycles;
        }
    }
}
