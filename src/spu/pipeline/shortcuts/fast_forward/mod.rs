//! Fast-forward: skipping the cycle-by-cycle simulation of exact repetitions of a loop.
//! An observer listening hears each repetition skipped as the one simulated before it
//! ([`notes`]).
//!
//! Under ideal fetch the timing from a cycle on depends only on the timing state (what the
//! issue stages and the execution pipes hold, the register release times, the issue stalls)
//! and on the instructions fetched, never on the values computed. So if, at two passes over
//! a loop head (the target of a backward taken branch, as fetch meets it), the timing state
//! is the same relative to the clock and the fetch sequence number, the `n` instructions
//! fetched between the passes took `Δ` cycles and changed the statistics by `D`; and every
//! following repetition that fetches the same `n` instructions (same addresses and words,
//! same path) again takes exactly `Δ` cycles, adds `D` and ends in the same state.
//!
//! A repetition is then simulated functionally only: the ideal fetch's shadow runs the `n`
//! instructions ahead into the instruction window as fetch would (checking that each is the
//! expected one and follows the same path), and the architectural state completes the `n`
//! oldest instructions in flight from their recorded effects, as stage o would. After `k`
//! repetitions the clock, the statistics, the issue stages and the execution pipes move on by
//! `k × Δ` cycles and `k × n` fetches. A repetition that leaves the path (the loop exits) or
//! meets anything unusual (a checkpoint, a stop, a channel instruction, code that changed)
//! stops the fast-forward; what its shadow already ran stays in the window and fetch takes it
//! from there in the following cycles, so nothing is executed twice.
//!
//! A loop whose path differs from one iteration to the next but repeats over several (an
//! `if` taken every other time) is compared over 2, 3, ... passes, while that span holds at
//! most [`MAX_REPETITION`] instructions.
//!
//! Under the real fetch unit ([`real_fetch`]) the same holds with the fetch unit's
//! state (buffers, line requests, hint, mispredict state) part of the timing state: its
//! behaviour depends on that state, on the timing state and on the code in the local store,
//! never on the values computed, as long as the path stays the predicted one. There is no
//! shadow there: a repetition completes its instructions on trial and is taken back whole
//! when one leaves the predicted path or stores into the code fetch reads.
//!
//! The result is the same as simulating every cycle: the same statistics, architectural
//! state, clock and pipeline contents (tests compare the two over many programs and run
//! lengths). [`Pipeline::set_fast_forward`] turns it off.
//!
//! # Layout
//! - this file: the method, as `impl Pipeline` (finding a repetition, repeating it under
//!   ideal fetch, moving the pipeline on);
//! - `memory.rs`: the definition of [`FastForward`], the memory the pipeline holds (a leaf
//!   below every `impl Pipeline` here, over the leaves that define its fields), and what it
//!   does on its own;
//! - `timing_state.rs`: the timing state compared; `capture.rs` takes it from a pipeline;
//! - `real_fetch.rs`: the part under the real fetch unit; `fetch_reads.rs`: where that unit
//!   reads, which a repetition on trial must not store into;
//! - [`notes`]: what an observer heard, to be told again for each repetition skipped.

mod capture;
mod fetch_reads;
pub(in crate::spu::pipeline) mod memory;
mod notes;
mod real_fetch;
mod timing_state;

pub(in crate::spu::pipeline) use self::memory::FastForward;

use self::capture::{Remembered, Scratch, capture};
use self::memory::Anchor;
use self::notes::{Replayed, replay};
use crate::spu::exec::SpuState;
use crate::spu::pipeline::model::fetch::FetchModel;
use crate::spu::pipeline::model::notification::Completion;
use crate::spu::pipeline::model::sizes::{MAX_REPETITION, O_STAGE};
use crate::spu::pipeline::model::window::Effect;
use crate::spu::pipeline::state::Pipeline;
use crate::spu::probes::SpuObserver;

impl Pipeline {
    /// Turns the fast-forward on (the default) or off. Either way the results are the same;
    /// off, every cycle is simulated one by one.
    pub fn set_fast_forward(&mut self, enabled: bool) {
        self.fast_forward.set_enabled(enabled);
    }

    /// Whether the fast-forward is on.
    pub fn fast_forward_enabled(&self) -> bool {
        self.fast_forward.enabled()
    }

    /// Cycles the fast-forward skipped (counted in every other figure as simulated) since
    /// the pipeline was made.
    pub fn fast_forwarded_cycles(&self) -> u64 {
        self.fast_forward.skipped
    }

    /// Called at the end of a cycle in which fetch passed loop head `head`; skips whole
    /// repetitions (at most `budget` cycles). With `notify`, `observer` hears each skipped
    /// repetition as the notes of the one simulated say ([`notes`]), and
    /// nothing is skipped without such notes. Returns the cycles skipped.
    ///
    /// One copy of the fast-forward for every observer (the firmware image has a size
    /// budget): it tells an observer of the repetitions through `dyn`.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn loop_head_passed<O: SpuObserver>(
        &mut self,
        arch: &mut SpuState,
        head: u32,
        budget: u64,
        observer: &O,
        notify: bool,
    ) -> u64 {
        let Some(found) = self.repetition_found(arch, head, budget, notify) else {
            return 0;
        };
        let listener: Option<&dyn Replayed> = if notify { Some(observer) } else { None };
        let done = self.repeat(arch, &found, listener);
        self.repeated(arch, &found, done)
    }

    /// At a pass over loop head `head`: the repetition since the anchor if there is one to
    /// skip (with `notify`, one whose notes can be replayed), otherwise `None` after moving
    /// the anchor on as the comparison requires.
    #[inline(never)]
    fn repetition_found(
        &mut self,
        arch: &mut SpuState,
        head: u32,
        budget: u64,
        notify: bool,
    ) -> Option<Repetition> {
        let last_seq = self.issue.last_seq();
        let ff = &mut self.fast_forward;
        if ff.head != Some(head) {
            // Keep a head that may still come round (an inner loop's call and return pass
            // other backward branches).
            if ff.head.is_none()
                || last_seq.saturating_sub(ff.anchor.last_seq) > MAX_REPETITION as u64
            {
                ff.forget();
                ff.head = Some(head);
                self.anchor_here(arch);
            }
            return None;
        }
        if ff.wait > 0 {
            ff.wait -= 1;
            if ff.wait == 0 {
                self.anchor_here(arch);
            }
            return None;
        }
        let n = last_seq.saturating_sub(ff.anchor.last_seq);
        if !(1..=MAX_REPETITION as u64).contains(&n) || !capture(self, arch, Scratch) {
            self.mismatch(arch);
            return None;
        }
        if self.fast_forward.scratch != self.fast_forward.state {
            // The loop may repeat over several passes (a path that alternates): keep the
            // anchor and compare again at the next pass while the span fits.
            if 2 * n > MAX_REPETITION as u64 {
                self.mismatch(arch);
            }
            return None;
        }
        let path_read = match self.fetch {
            FetchModel::Ideal(_) => self.read_path(arch, n as usize),
            FetchModel::Real { .. } => self.read_path_real(arch, n as usize),
        };
        if !path_read || (notify && !self.fast_forward.notes.replayable(n as usize)) {
            self.mismatch(arch);
            return None;
        }
        self.fast_forward.mismatches = 0;
        // `read_path` checked this is one repetition's (non-zero) cycles.
        let cycles = self.clock - self.fast_forward.anchor.clock;
        Some(Repetition {
            instructions: n,
            cycles,
            times: budget / cycles,
            last_seq,
        })
    }

    /// After `done` repetitions of `found` ran: the timing state, the clock and the
    /// statistics move on by as many, and the anchor is here. Returns the cycles skipped.
    #[inline(never)]
    fn repeated(&mut self, arch: &SpuState, found: &Repetition, done: u64) -> u64 {
        let (n, cycles) = (found.instructions, found.cycles);
        // A loop head the shadow ran past is not one fetch met.
        self.fetch.take_loop_head();
        if done > 0 {
            let now = self.clock;
            let before = self.fast_forward.anchor.stats;
            let after = self.stats;
            self.issue.shift(done * n, done * cycles, now);
            self.exec.shift(done * n, done * cycles, now);
            self.clock += done * cycles;
            self.stats.add_repeats(&before, &after, done);
            self.fast_forward.skipped += done * cycles;
        }
        // The state is the remembered one again, `done` repetitions on.
        self.fast_forward.anchor = Anchor {
            clock: self.clock,
            last_seq: found.last_seq + done * n,
            retired: arch.instructions_retired(),
            stats: self.stats,
        };
        self.fast_forward.notes.restart(self.clock);
        done * cycles
    }

    /// No repetition from the anchor: wait twice as many passes as last time (at most 63)
    /// before comparing again, so code that never repeats pays little, and anchor here.
    fn mismatch(&mut self, arch: &SpuState) {
        let ff = &mut self.fast_forward;
        ff.mismatches = (ff.mismatches + 1).min(6);
        ff.wait = (1 << ff.mismatches) - 1;
        self.anchor_here(arch);
        // This anchor is passed over while waiting: no notes for it.
        self.fast_forward.notes.disarm();
    }

    /// Remembers the timing state now as the head's anchor (or forgets the head if the state
    /// is not one a fast-forward can start from).
    fn anchor_here(&mut self, arch: &SpuState) {
        if capture(self, arch, Remembered) {
            self.fast_forward.anchor = Anchor {
                clock: self.clock,
                last_seq: self.issue.last_seq(),
                retired: arch.instructions_retired(),
                stats: self.stats,
            };
            self.fast_forward.notes.restart(self.clock);
        } else {
            self.fast_forward.forget();
        }
    }

    /// Whether the counters show one repetition of `n` completions since the anchor, in a
    /// non-zero number of cycles.
    pub(in crate::spu::pipeline) fn one_repetition_since_anchor(
        &self,
        arch: &SpuState,
        n: usize,
    ) -> bool {
        let anchor = &self.fast_forward.anchor;
        let cycles = self.clock.saturating_sub(anchor.clock);
        let stats_step = self.stats.cycles.wrapping_sub(anchor.stats.cycles);
        let completed = self
            .stats
            .instructions
            .wrapping_sub(anchor.stats.instructions);
        cycles != 0
            && stats_step == cycles
            && completed == n as u64
            && arch.instructions_retired().wrapping_sub(anchor.retired) == n as u64
    }

    /// Reads the repetition's `n` instructions (fetched since the anchor) from the window;
    /// `false` if one is gone, has no recorded effect or is no longer in the local store, or
    /// the counters do not show one repetition of `n` completions.
    fn read_path(&mut self, arch: &SpuState, n: usize) -> bool {
        if !self.one_repetition_since_anchor(arch, n) {
            return false;
        }
        let ff = &mut self.fast_forward;
        let FetchModel::Ideal(fetch) = &mut self.fetch else {
            return false;
        };
        let mut code = (u32::MAX, 0);
        for (offset, entry) in ff.path[..n].iter_mut().enumerate() {
            let seq = ff.anchor.last_seq + 1 + offset as u64;
            let Some(record) = self.issue.record(seq) else {
                return false;
            };
            if record.serializing() || self.issue.effect(seq).is_none() {
                return false;
            }
            match fetch.decoded_at(arch, record.pc, record.instruction.word) {
                Some(decoded) => *entry = decoded,
                None => return false,
            }
            code = (code.0.min(record.pc & !15), code.1.max(record.pc & !15));
        }
        ff.code = code;
        true
    }

    /// Runs up to `found.times` repetitions (see the module documentation), telling
    /// `listener` of each; returns how many completed. The timing state is moved on by the
    /// caller.
    #[inline(never)]
    fn repeat(
        &mut self,
        arch: &mut SpuState,
        found: &Repetition,
        listener: Option<&dyn Replayed>,
    ) -> u64 {
        let ideal = matches!(self.fetch, FetchModel::Ideal(_));
        // Under ideal fetch every instruction in flight completes from its recorded effect
        // (the shadow checks the ones it adds).
        let Some(mut oldest) =
            self.oldest_in_flight(arch, |seq| !ideal || self.issue.effect(seq).is_some())
        else {
            return 0;
        };
        let n = found.instructions;
        let span = (n, found.cycles);
        let now = self.clock;
        let record = listener.is_some();
        if !ideal {
            // Every instruction the trials complete is one in flight now or a copy of one of
            // the last `n` fetched: their RT fields name every register a trial may write.
            let last = self.issue.last_seq();
            let first = oldest.min((last + 1).saturating_sub(n));
            let issue = &self.issue;
            self.fast_forward
                .journal
                .keep_registers((first..=last).map(|seq| issue.in_flight(seq).instruction.rt));
        }
        for done in 0..found.times {
            let repeated = if ideal {
                self.repeat_once(arch, span, done, oldest, record)
            } else {
                // A copy without the completions for a run with no observer, where code
                // size allows (see `repeat_once_real`).
                if cfg!(target_os = "none") || record {
                    self.repeat_once_real::<true>(arch, span, done, oldest, record)
                } else {
                    self.repeat_once_real::<false>(arch, span, done, oldest, false)
                }
            };
            if !repeated {
                return done;
            }
            if let Some(observer) = listener {
                let issue = &self.issue;
                replay(
                    self.fast_forward.notes.recorded(),
                    now + done * found.cycles,
                    observer,
                    &self.fast_forward.completions,
                    |k| issue.in_flight(oldest + k as u64),
                );
            }
            oldest += n;
        }
        found.times
    }

    /// Repetition `done` of `n` instructions in `cycles` cycles under ideal fetch, its
    /// oldest instruction `oldest`:
    /// the shadow runs it ahead into the window and the `n` oldest instructions in flight
    /// complete from their recorded effects; with `record`, their completions are kept for
    /// an observer. `false` if the path was left (nothing completed then).
    #[inline(never)]
    fn repeat_once(
        &mut self,
        arch: &mut SpuState,
        (n, cycles): (u64, u64),
        done: u64,
        oldest: u64,
        record: bool,
    ) -> bool {
        let FetchModel::Ideal(fetch) = &mut self.fetch else {
            return false;
        };
        let ff = &mut self.fast_forward;
        let (path, completions) = (&ff.path[..n as usize], &mut ff.completions);
        // Fetch side: the shadow runs the next repetition ahead into the window.
        if !fetch.run_ahead_path(arch, &mut self.issue, path, ff.code) {
            return false;
        }
        // Completion side: the `n` oldest instructions in flight complete from their
        // recorded effects, as stage o would complete them in these cycles.
        let mut nops = 0;
        for seq in oldest..oldest + n {
            let Some((effect, value, address)) = self.issue.effect(seq) else {
                // Not reachable (every effect is recorded, checked above): stop before
                // the timing and the state part ways.
                return false;
            };
            let inflight = self.issue.in_flight(seq);
            let write = effect.state_write(inflight, address);
            arch.apply_replayed_write(write, *value);
            nops += u64::from(effect.has(Effect::NOP));
            if record && let Some(slot) = completions.get_mut((seq - oldest) as usize) {
                *slot = Completion::recorded(inflight, effect, address);
            }
        }
        let next_pc = self.issue.in_flight(oldest + n - 1).predicted_next;
        let completed_at = self.clock + (done + 1) * cycles - ff.state.arch_lag;
        arch.retire_replayed_run(n, nops, next_pc, completed_at);
        fetch.forget_pending();
        true
    }
}

/// A repetition found at a loop head: `instructions` fetched in `cycles` cycles since the
/// anchor, `times` of which fit in the budget; `last_seq` the last fetched.
struct Repetition {
    instructions: u64,
    cycles: u64,
    times: u64,
    last_seq: u64,
}

impl Pipeline {
    /// The oldest instruction not completed (in a row that reaches stage o after now, or in
    /// the issue stages), if every instruction in flight from there on follows from the
    /// architectural PC in order, along the predicted path, and `ready` accepts it.
    pub(in crate::spu::pipeline) fn oldest_in_flight(
        &self,
        arch: &SpuState,
        ready: impl Fn(u64) -> bool,
    ) -> Option<u64> {
        let now = self.clock;
        let unfinished_rows = (0..O_STAGE).map(|back| self.exec.row(now.wrapping_sub(back)));
        let oldest = unfinished_rows
            .chain(self.issue.stages.iter().copied())
            .flatten()
            .filter(|&seq| seq != 0)
            .min()?;
        let mut expected_pc = arch.pc();
        for seq in oldest..=self.issue.last_seq() {
            match self.issue.record(seq) {
                Some(record) if record.pc == expected_pc && ready(seq) => {
                    expected_pc = record.predicted_next;
                }
                _ => return None,
            }
        }
        Some(oldest)
    }
}
