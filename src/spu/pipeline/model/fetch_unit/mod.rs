//! The real fetch unit (`--fetch real`), after the article's fetch-side regions: a four-deep
//! prefetch request queue, the six-stage load/store pipe used for instruction line fetches,
//! two inline prefetch buffers (ilb1, ilb2, each two half-lines), the predicted path buffer
//! (one half-line feeding issue stage g two instructions at a time) and the mispredict states.
//!
//! What is modelled (`docs/spu-timing-model.md`, The real fetch unit, gives the sources):
//! - Lines are 128 bytes (32 instructions), half-lines 64 bytes. A flush-initiated fetch (at
//!   start and in mispredict state 3) requests the line of the target into ilb1; when the
//!   second half of ilb1 (ilb2) goes to the predicted path buffer, the next line is requested
//!   into the other buffer. Inline transfer to the predicted path buffer is destructive.
//! - A request enters the LS pipe from the head of the queue only when, after the pipe
//!   advanced, its first two stages are empty (so at most every other cycle), and not when a
//!   load/store (with `ls-line-contend-load-only`: a load) is in execution stage n (it will
//!   use the LS in stage o next cycle); such a cycle counts as LS contention. A request that
//!   leaves the sixth stage loads its buffer from the local store.
//! - Branches are predicted not taken (sequential fetch). Stage o compares the resolved next
//!   PC with the prediction; on a difference the younger instructions are squashed and the
//!   mispredict sequence runs: state 1 at detection, state 2 invalidates the inline buffers
//!   and the predicted path buffer and drops queued and in-flight inline requests, state 3
//!   requests the corrected line, state 5 invalidates the issue pipes, then state 0. Issue is
//!   held during states 1-5 (branch-miss stall cycles) and until the corrected path arrives.
//! - An empty predicted path buffer with no valid inline half to refill it is a prefetch miss.
//! - Branch hints redirect fetch to a hinted branch's target ahead of time ([`hints`]).
//!
//! What the unit holds (line requests, the request queue, the half-line buffers, the
//! predicted path buffer, the hint register) is in [`buffers`]; the unit's state, which the
//! `impl`s here and in [`hints`] share, in `state.rs`.

mod buffers;
mod hints;
mod state;

pub(crate) use self::buffers::LineRequest;
#[cfg(test)]
pub(in crate::spu::pipeline) use self::buffers::PREFETCH_QUEUE_DEPTH;
pub(in crate::spu::pipeline) use self::buffers::{
    Destination, HALF_BYTES, HalfLine, Hint, LINE_BYTES, LS_PIPE_STAGES, PathBuffer,
};

pub(crate) use self::state::FetchUnit;

use self::buffers::{EMPTY_HALF, HALF_WORDS, RequestQueue};
use super::decode_cache::DecodeCache;
use super::issue::IssuePipes;
use crate::spu::exec::{LS_ADDRESS_MASK, SpuState};
use crate::spu::probes::StallReason;

/// What the fetch unit did in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FetchStep {
    /// A group went into issue stage g.
    pub fed: bool,
    /// Mispredict state 5: the issue pipes must be invalidated.
    pub invalidate_issue: bool,
    /// A line request was kept out of the LS pipe by a load/store (LS contention).
    pub ls_contention: bool,
}

impl FetchUnit {
    /// An idle fetch unit; [`restart`](Self::restart) points it at a PC.
    pub(crate) const fn new() -> Self {
        FetchUnit {
            queue: RequestQueue::EMPTY,
            ls_pipe: [None; LS_PIPE_STAGES],
            ls_pipe_requests: 0,
            inline: [[EMPTY_HALF; 2]; 2],
            ilbh: [EMPTY_HALF; 2],
            hint: None,
            waiting_for_hint: false,
            triggered_for: None,
            on_hint_path: false,
            stale_buffers: [false, false],
            invalidate_countdown: None,
            path: PathBuffer {
                half: EMPTY_HALF,
                offset: 0,
            },
            next_half: 0,
            next_offset: 0,
            mispredict_state: 0,
            redirect: 0,
            starve_reason: StallReason::Initialisation,
            passed_loop_head: None,
        }
    }

    /// Drops everything and starts a flush-initiated fetch at `pc`.
    #[inline(never)]
    pub(crate) fn restart(&mut self, pc: u32) {
        *self = Self::new();
        self.start_path(pc);
        self.starve_reason = StallReason::Initialisation;
    }

    /// The mispredict state (0: not under mispredict).
    pub fn mispredict_state(&self) -> u8 {
        self.mispredict_state
    }

    /// The prefetch request queue, oldest first.
    pub fn queue(&self) -> impl DoubleEndedIterator<Item = &LineRequest> {
        self.queue.iter()
    }

    /// The LS pipe stages, first stage first.
    pub fn ls_pipe(&self) -> &[Option<LineRequest>; LS_PIPE_STAGES] {
        &self.ls_pipe
    }

    /// The inline buffers: `[[ilb11, ilb12], [ilb21, ilb22]]`.
    pub(in crate::spu::pipeline) fn inline_buffers(&self) -> &[[HalfLine; 2]; 2] {
        &self.inline
    }

    /// The predicted path buffer.
    pub(in crate::spu::pipeline) fn path_buffer(&self) -> &PathBuffer {
        &self.path
    }

    /// The hint register.
    pub(in crate::spu::pipeline) fn hint(&self) -> Option<Hint> {
        self.hint
    }

    /// The hint target buffer halves ilbh1, ilbh2.
    pub(in crate::spu::pipeline) fn hint_buffer(&self) -> &[HalfLine; 2] {
        &self.ilbh
    }

    /// The loop head the predicted path passed since the last call (the target of a hinted
    /// backward branch that went to stage g), once.
    #[inline(always)]
    pub(crate) fn take_loop_head(&mut self) -> Option<u32> {
        self.passed_loop_head.take()
    }

    /// The half-lines the unit holds (valid or not: the words stay) or will load: its
    /// buffers, its line requests, where the predicted path goes on and, in a mispredict
    /// sequence, the corrected address. Repeats are possible.
    #[cfg_attr(feature = "spu-lean", allow(dead_code))] // the fast-forward's only
    pub(crate) fn halves_referenced(&self) -> impl Iterator<Item = u32> + '_ {
        let held = self.inline.iter().flatten().chain(&self.ilbh);
        let held = held
            .chain(core::iter::once(&self.path.half))
            .map(|half| half.address);
        let requested = self.queue.iter().chain(self.ls_pipe.iter().flatten());
        let requested = requested.flat_map(|request| [request.line, request.line + HALF_BYTES]);
        let ahead = core::iter::once(self.next_half)
            .chain((self.mispredict_state != 0).then_some(self.redirect));
        held.chain(requested)
            .chain(ahead)
            .map(|address| address & !(HALF_BYTES - 1))
    }

    /// Whether issue is held by the mispredict sequence.
    pub(in crate::spu::pipeline) fn blocks_issue(&self) -> bool {
        self.mispredict_state != 0
    }

    /// Why issue stage j is empty (when it is).
    pub(in crate::spu::pipeline) fn starve_reason(&self) -> StallReason {
        self.starve_reason
    }

    /// How many cycles from now on [`cycle`](Self::cycle) would, with stage g full, do only
    /// its background work ([`background_cycle`](Self::background_cycle): the trigger's
    /// invalidation counting down, line requests moving down the LS pipe and loading their
    /// buffers), which [`idle`](Self::idle) runs (the stall skip's horizon): 0 while a
    /// mispredict sequence runs, a request waits in the queue, the predicted path buffer
    /// needs a refill or the hint target arrived for a waiting branch; while a branch waits
    /// for its hint target, until a hint fetch leaves the LS pipe; otherwise unbounded.
    #[inline]
    pub(crate) fn idle_cycles(&self) -> u64 {
        if self.mispredict_state != 0 || self.queue.head().is_some() {
            return 0;
        }
        if !self.waiting_for_hint {
            return if self.path.half.valid { u64::MAX } else { 0 };
        }
        if self.hint.is_some_and(|h| h.loaded) {
            return 0;
        }
        let mut idle = u64::MAX;
        for (stage, request) in self.ls_pipe.iter().enumerate() {
            if request.is_some_and(|r| r.destination == Destination::Ilbh) {
                // It loads ilbh in cycle `LS_PIPE_STAGES - stage` from now; the cycle after
                // that follows the hint.
                idle = idle.min((LS_PIPE_STAGES - stage) as u64);
            }
        }
        idle
    }

    /// Runs `cycles` idle cycles ([`idle_cycles`](Self::idle_cycles) allows them): their
    /// background work, one cycle at a time while there is any.
    #[inline]
    pub(crate) fn idle(&mut self, arch: &SpuState, cycles: u64) {
        for _ in 0..cycles {
            if self.invalidate_countdown.is_none() && self.ls_pipe_requests == 0 {
                return;
            }
            self.background_cycle(arch);
        }
    }

    /// The part of a cycle that goes on whatever issue does: the trigger's invalidation
    /// counts down (the stale inline buffers go in the eighth cycle after the trigger), and
    /// the LS pipe advances, its last stage loading its buffer.
    #[inline(always)]
    fn background_cycle(&mut self, arch: &SpuState) {
        if let Some(left) = self.invalidate_countdown {
            if left == 0 {
                for (buffer, stale) in self.inline.iter_mut().zip(self.stale_buffers) {
                    if stale {
                        *buffer = [EMPTY_HALF; 2];
                    }
                }
                self.stale_buffers = [false, false];
                self.invalidate_countdown = None;
            } else {
                self.invalidate_countdown = Some(left - 1);
            }
        }
        debug_assert_eq!(
            usize::from(self.ls_pipe_requests),
            self.ls_pipe.iter().flatten().count()
        );
        if self.ls_pipe_requests == 0 {
            return;
        }
        if let Some(done) = self.ls_pipe[LS_PIPE_STAGES - 1].take() {
            self.ls_pipe_requests -= 1;
            self.load_line(arch, done);
        }
        // Every request moves on one stage (the last stage was just emptied). Spelled out:
        // `rotate_right` is a `memmove` call on bare metal, 8 % of the demo's profile samples.
        let [s0, s1, s2, s3, s4, _] = self.ls_pipe;
        self.ls_pipe = [None, s0, s1, s2, s3, s4];
        if self.ls_pipe[2].is_some_and(|r| r.destination == Destination::Ilbh) {
            // A newer hint's fetch reached stage 3: the old hint target is gone.
            self.ilbh = [EMPTY_HALF; 2];
        }
    }

    /// Stage o resolved a branch against the prediction: start the mispredict sequence.
    pub(crate) fn mispredict(&mut self, correct_pc: u32) {
        self.mispredict_state = 1;
        self.redirect = correct_pc & LS_ADDRESS_MASK & !3;
        self.starve_reason = StallReason::BranchMiss;
    }

    /// Where the path continues: the line of `pc` is requested into ilb1.
    fn start_path(&mut self, pc: u32) {
        let pc = pc & LS_ADDRESS_MASK & !3;
        self.next_half = pc & !(HALF_BYTES - 1);
        self.next_offset = pc & (HALF_BYTES - 1);
        self.queue.push(LineRequest {
            line: pc & !(LINE_BYTES - 1),
            destination: Destination::Ilb1,
            stale: false,
        });
    }

    /// One cycle of the fetch side, in reverse pipeline order: feed stage g, refill the
    /// predicted path buffer, load buffers from the LS pipe, advance the LS pipe and admit a
    /// request, then the mispredict sequence. `g_free`: stage g can take a group;
    /// `ls_in_stage_n`: a (contending) load/store is in execution stage n. A group goes
    /// straight into `issue`'s stage g.
    pub(crate) fn cycle(
        &mut self,
        arch: &mut SpuState,
        issue: &mut IssuePipes,
        ls_in_stage_n: bool,
        decoded: &mut DecodeCache,
    ) -> FetchStep {
        let mut step = FetchStep::default();
        if self.waiting_for_hint && self.hint.is_some_and(|h| h.loaded) {
            self.waiting_for_hint = false;
            self.follow_hint();
        }
        if self.mispredict_state == 0 && issue.g_is_empty() && !self.waiting_for_hint {
            step.fed = self.feed_group(decoded, arch, issue);
            if step.fed && !self.waiting_for_hint {
                self.starve_reason = StallReason::PrefetchMiss;
            }
        }
        if self.mispredict_state == 0
            && !self.path.half.valid
            && !self.waiting_for_hint
            && !self.refill_path()
        {
            self.request_missing_half();
        }
        // The countdown is set to 8 in the trigger cycle (before this point), so the buffers
        // go in the eighth cycle after it.
        self.background_cycle(arch);
        if self.ls_pipe[1].is_none() && self.queue.head().is_some() {
            if ls_in_stage_n {
                step.ls_contention = true;
            } else {
                self.ls_pipe[0] = self.queue.pop();
                self.ls_pipe_requests += u8::from(self.ls_pipe[0].is_some());
            }
        }
        match self.mispredict_state {
            0 => {}
            1 => self.mispredict_state = 2,
            2 => {
                self.inline = [[EMPTY_HALF; 2]; 2];
                self.path.half.valid = false;
                self.waiting_for_hint = false;
                self.drop_inline_requests();
                self.triggered_for = None;
                self.on_hint_path = false;
                self.stale_buffers = [false, false];
                self.invalidate_countdown = None;
                self.mispredict_state = 3;
            }
            3 => {
                self.start_path(self.redirect);
                self.mispredict_state = 4;
            }
            4 => self.mispredict_state = 5,
            _ => {
                step.invalidate_issue = true;
                self.mispredict_state = 0;
            }
        }
        step
    }

    /// Moves the next fetch group from the predicted path buffer into issue stage g (empty),
    /// in address order; whether there was one. Each instruction is copied once, from the
    /// decode cache into the issue window (a group built and handed over by value was three
    /// copies of two 72-byte records, each a `memcpy` call on bare metal).
    fn feed_group(
        &mut self,
        decoded: &mut DecodeCache,
        arch: &mut SpuState,
        issue: &mut IssuePipes,
    ) -> bool {
        if !self.path.half.valid && !self.refill_path() {
            return false;
        }
        let base = self.path.half.address;
        let mut offset = self.path.offset;
        let mut fed = false;
        loop {
            let index = (offset / 4) as usize;
            let Some(&word) = self.path.half.words.get(index) else {
                return fed;
            };
            let pc = base + offset;
            let slot = ((pc >> 2) & 1) as usize;
            let record = decoded.get(pc, word, || arch.lent_code_lines());
            let inflight = issue.enter_slot(slot, &record.inflight);
            fed = true;
            // No oracle here: fetch goes on after a channel instruction (whose record is
            // marked serializing for ideal fetch; this unit does not read the mark),
            // predicting the next address.
            if !inflight.illegal {
                inflight.predicted_next = (pc + 4) & LS_ADDRESS_MASK;
            }
            let hinted = self.hint.filter(|hint| hint.branch == pc);
            if let Some(hint) = hinted {
                inflight.predicted_next = hint.target;
                if hint.target <= pc {
                    self.passed_loop_head = Some(hint.target);
                }
            }
            offset += 4;
            if hinted.is_some() {
                // A hint that completed after its branch was already in the predicted path
                // buffer has not triggered yet: it triggers now, so inline fetch still
                // continues after ilbh2.
                self.trigger_once();
                // Predicted taken: the path continues at the target, from ilbh.
                self.flush_stale_requests();
                self.triggered_for = None;
                self.path.half.valid = false;
                if self.hint.is_some_and(|hint| hint.loaded) {
                    self.follow_hint();
                } else {
                    self.waiting_for_hint = true;
                    self.starve_reason = StallReason::HintTarget;
                }
                return true;
            }
            if slot == 1 || offset >= HALF_BYTES {
                break;
            }
        }
        self.path.offset = offset;
        if offset >= HALF_BYTES {
            // Exhausted: refill at once so the next cycle can feed g again.
            self.path.half.valid = false;
            self.refill_path();
        }
        fed
    }

    /// Moves the next inline half-line into the predicted path buffer (destructively).
    /// Returns whether it succeeded.
    fn refill_path(&mut self) -> bool {
        let wanted = self.next_half;
        // The hint target buffer feeds the path only after the hinted branch entered stage g
        // (ilbh1, then ilbh2); any other path, such as a mispredict's corrected address that
        // happens to lie in the hint target line, comes from the inline buffers, whose
        // destructive transfer is what requests the next line.
        // Compared in place, copied once matched: on bare metal a half-line copy is a memcpy.
        for half in 0..2 {
            let matches =
                self.on_hint_path && self.ilbh[half].valid && self.ilbh[half].address == wanted;
            if matches {
                let candidate = self.ilbh[half];
                // After ilbh2 the path continues inline, with the line the trigger requested.
                self.on_hint_path = half == 0;
                self.path = PathBuffer {
                    half: candidate,
                    offset: self.next_offset,
                };
                self.next_half = (wanted + HALF_BYTES) & LS_ADDRESS_MASK;
                self.next_offset = 0;
                self.maybe_trigger();
                return true;
            }
        }
        for buffer in 0..2 {
            for half in 0..2 {
                let matches =
                    self.inline[buffer][half].valid && self.inline[buffer][half].address == wanted;
                if matches {
                    let candidate = self.inline[buffer][half];
                    self.on_hint_path = false;
                    self.inline[buffer][half].valid = false;
                    self.path = PathBuffer {
                        half: candidate,
                        offset: self.next_offset,
                    };
                    self.next_half = (wanted + HALF_BYTES) & LS_ADDRESS_MASK;
                    self.next_offset = 0;
                    if half == 1 {
                        let destination = if buffer == 0 {
                            Destination::Ilb2
                        } else {
                            Destination::Ilb1
                        };
                        self.queue.push(LineRequest {
                            line: (candidate.address + HALF_BYTES) & LS_ADDRESS_MASK,
                            destination,
                            stale: false,
                        });
                    }
                    self.maybe_trigger();
                    return true;
                }
            }
        }
        false
    }

    fn load_line(&mut self, arch: &SpuState, request: LineRequest) {
        let mut halves = [EMPTY_HALF; 2];
        for (half, slot) in halves.iter_mut().enumerate() {
            let address = (request.line + half as u32 * HALF_BYTES) & LS_ADDRESS_MASK;
            let mut words = [0u32; HALF_WORDS];
            for (i, word) in words.iter_mut().enumerate() {
                *word = arch.local_store().load_word(address + 4 * i as u32);
            }
            *slot = HalfLine {
                address,
                valid: true,
                words,
            };
        }
        match request.destination {
            Destination::Ilb1 | Destination::Ilb2 => {
                let buffer = usize::from(request.destination == Destination::Ilb2);
                if let (Some(slot), Some(stale)) = (
                    self.inline.get_mut(buffer),
                    self.stale_buffers.get_mut(buffer),
                ) {
                    *slot = halves;
                    // A stale request brings the old path: it goes with the invalidation.
                    *stale = request.stale && self.invalidate_countdown.is_some();
                    if request.stale && self.invalidate_countdown.is_none() {
                        *slot = [EMPTY_HALF; 2];
                    }
                }
            }
            Destination::Ilbh => {
                self.ilbh = halves;
                if let Some(hint) = self.hint.as_mut()
                    && hint.target & !(LINE_BYTES - 1) == request.line
                {
                    hint.loaded = true;
                }
            }
        }
    }

    /// A prefetch miss on a half-line that no buffer holds and no live request will bring
    /// (the trigger redirected inline fetch, then the hint was replaced before its branch
    /// reached g, so the branch was predicted not taken and the fall-through half was lost
    /// to the eight-cycle invalidation): the path's line is requested like a flush-initiated
    /// fetch, into an inline buffer that holds nothing the path still needs.
    fn request_missing_half(&mut self) {
        let line = self.next_half & !(LINE_BYTES - 1);
        let coming = self
            .queue
            .iter()
            .chain(self.ls_pipe.iter().flatten())
            .any(|r| r.line == line && !r.stale);
        if coming {
            return;
        }
        let destination =
            if self.inline[0].iter().any(|h| h.valid) && !self.inline[1].iter().any(|h| h.valid) {
                Destination::Ilb2
            } else {
                Destination::Ilb1
            };
        self.queue.push(LineRequest {
            line,
            destination,
            stale: false,
        });
    }

    /// Drops queued and in-flight inline requests (the hint fetch stays).
    fn drop_inline_requests(&mut self) {
        for slot in self.ls_pipe.iter_mut() {
            if slot.is_some_and(|r| r.destination != Destination::Ilbh) {
                *slot = None;
                self.ls_pipe_requests -= 1;
            }
        }
        self.queue.retain(|r| r.destination == Destination::Ilbh);
    }
}
