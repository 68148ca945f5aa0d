//! The cycle-level SPU model ("pipeline mode"), after the IBM Full-System Simulator article;
//! `docs/spu-timing-model.md` describes the model and its sources.
//!
//! A [`Pipeline`] is everything of one SPU but its architectural state
//! ([`SpuState`]); [`Pipeline::run`] simulates cycles of a state,
//! and [`SpuUnit`](crate::spu::unit::SpuUnit) pairs the two. The model is clock-synchronous and
//! updated in reverse pipeline order each cycle (`model/cycle.rs`):
//! 1. **stage o**: the instructions that entered execution stage `jj` five cycles ago take
//!    their functional effect (through
//!    [`SpuState::execute_at_cycle`](crate::spu::exec::SpuState::execute_at_cycle), or, under
//!    ideal fetch, by applying the effect the run-ahead shadow recorded), even pipe first (it
//!    holds the older of a dual-issued pair), and the instruction count grows;
//! 2. **issue** (`model/issue.rs`): stage j issues zero, one or two instructions into `jj`
//!    following the dual-issue rules; when nothing issues, bubbles enter the execution pipes
//!    (`model/execute.rs`: the rows per cycle and the register scoreboard);
//! 3. **fetch** (`model/fetch.rs`): the issue stages move down if stage j is free and the
//!    fetch model fills stage g: ideal fetch (`model/ideal_fetch.rs`) or the real fetch unit
//!    (`model/fetch_unit/`: the unit, its buffers and its branch hints), see [`FetchKind`].
//!
//! Each instruction's decoded record ([`InFlight`], decoded once per address and word by
//! `model/decode_cache.rs`) is stored once, in the instruction window (`model/window.rs`), when
//! it enters stage g; the stages pass its sequence number along. `model/sizes.rs` holds the
//! stage names and the sizes of these rings.
//!
//! Timing comes from the [`Config`] (depth and issue stall per class, dual-issue features);
//! the [`Statistics`] classify every cycle. Views: [`write_frame`] writes the simulator's
//! per-cycle trace frame, [`KonataWriter`] a pipeline-viewer log, [`listing`] a static
//! spu_timing-style listing.
//!
//! The fast-forward (`shortcuts/fast_forward/`, with `real_fetch.rs` for the real fetch
//! unit) skips the cycle-by-cycle simulation of loop iterations that exactly repeat
//! an earlier one (same timing state, fetch state and instructions on the same path): their
//! instructions still execute, and every figure comes out as if each cycle had been simulated.
//! With an observer listening, each skipped iteration is told to it as the notes taken of the
//! one simulated say (`shortcuts/fast_forward/notes.rs`): the same notifications, in the same
//! order. The stall skip (`shortcuts/stall_skip.rs`) runs a stretch of identical stalled
//! cycles at once.
//!
//! # Layout and dependency direction
//! - this file: the [`Pipeline`]'s public interface and the run loop that interleaves
//!   simulated cycles with the shortcuts; everything public of the folders below is
//!   re-exported here, which is the only path callers use;
//! - `state.rs`: the [`Pipeline`]'s definition (the model's parts and the shortcuts' memory,
//!   side by side), a leaf below every `impl Pipeline` of the folders, so that none of them
//!   imports this file;
//! - `model/`: the simulation itself (configuration, fetch, issue, execute, window,
//!   statistics, one cycle). It imports neither the shortcuts nor the views;
//! - `shortcuts/`: the exact shortcuts (fast-forward, stall skip), which read and move the
//!   model's state and must give the results of simulating every cycle;
//! - `views/`: what reads a pipeline to show it (trace frame, Konata log, static listing).
//!
//! Views and shortcuts import the model; neither the model nor the shortcuts import a view,
//! and nothing below imports this file (what the folders share sits in leaves).
//! The model reaches a shortcut at one seam only: every notification is made once, by
//! `model::notification::emit`, which tells the observer and hands the same notification, as
//! a `Note`, to the pipeline's fast-forward (a `NoteSink` the shortcuts implement), so that a
//! skipped repetition can be told to an observer.

mod model;
mod shortcuts;
mod state;
mod views;

pub use self::model::config::{ClassTiming, Config, ConfigError, MAX_DEPTH, MAX_STALL, MIN_DEPTH};
pub use self::model::error::ModelError;
pub use self::model::fetch::FetchKind;
pub use self::model::inflight::{InFlight, NO_REGISTER};
pub use self::model::sizes::RING;
pub use self::model::stats::{IdentityError, Statistics};
pub use self::state::Pipeline;
pub use self::views::konata::KonataWriter;
pub use self::views::timing::{RULER, TimingSummary, listing};
pub use self::views::trace::write_frame;
pub use crate::spu::exec::{RunEnd, RunOutcome};

use core::fmt;

use self::model::cycle_end::CycleEnd;
use self::model::execute::ExecPipes;
use self::model::fetch::FetchModel;
use self::model::fetch_unit::{FetchUnit, LS_PIPE_STAGES};
use self::model::issue::IssuePipes;
use self::model::last_issue::LastIssue;
use crate::spu::exec::{SpuState, Status};
use crate::spu::probes::{NoProbes, SpuObserver, StallReason};

/// Bytes of the parts of a pipeline, for [`Footprint`](crate::spu::unit::Footprint).
pub(crate) mod part_bytes {
    use super::model::{decode_cache, execute, ideal_fetch, window};
    use super::shortcuts::fast_forward;

    /// The instruction window.
    pub(crate) const WINDOW: usize = size_of::<window::Window>();
    /// The execution pipes and the register scoreboard.
    pub(crate) const EXEC_PIPES: usize = size_of::<execute::ExecPipes>();
    /// The fetch model's decode cache.
    pub(crate) const FETCH_DECODE_CACHE: usize = size_of::<decode_cache::DecodeCache>();
    /// The ideal fetch's run-ahead shadow of the architectural state.
    pub(crate) const SHADOW: usize = ideal_fetch::SHADOW_BYTES;
    /// The fast-forward's memory of a loop.
    pub(crate) const FAST_FORWARD: usize = size_of::<fast_forward::FastForward>();
}

/// One execution stage as a trace shows it (see [`Pipeline::exec_stage`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExecStageView {
    /// The instructions in execution pipe 0 and 1 (`None`: a bubble).
    pub slots: [Option<InFlight>; 2],
    /// The P0 and P1 dependency columns.
    pub dependencies: [i16; 2],
}

impl Pipeline {
    /// The configuration.
    pub fn config(&self) -> &Config {
        self.config.get()
    }

    /// Replaces the configuration; the pipeline is flushed (in-flight instructions that have
    /// not reached stage o are dropped and will be fetched again).
    pub fn set_config(&mut self, config: Config) {
        self.config.set(config);
        self.flush();
    }

    /// Selects the fetch model (the pipeline is flushed).
    pub fn set_fetch(&mut self, kind: FetchKind) -> Result<(), ModelError> {
        if kind != self.fetch.kind() {
            self.fetch = match kind {
                FetchKind::Ideal => FetchModel::new_ideal(),
                FetchKind::Real => FetchModel::new_real(),
            };
            self.real_fetch = kind == FetchKind::Real;
        }
        self.flush();
        Ok(())
    }

    /// The real fetch unit's state, if that is the fetch model.
    pub(crate) fn fetch_unit(&self) -> Option<&FetchUnit> {
        self.fetch.unit()
    }

    /// The real fetch unit's mispredict state (0: not under mispredict, up to 5 on the way
    /// back to the corrected path), as the trace frame's `mispredict` line shows it; `None`
    /// under ideal fetch.
    pub fn fetch_mispredict_state(&self) -> Option<u8> {
        self.fetch_unit().map(FetchUnit::mispredict_state)
    }

    /// The 128-byte line addresses the real fetch unit's prefetch request queue holds,
    /// oldest first, as the trace frame's `pre-fetch` line shows them (newest first); none
    /// under ideal fetch.
    pub fn fetch_queued_lines(&self) -> impl DoubleEndedIterator<Item = u32> + '_ {
        self.fetch_unit()
            .into_iter()
            .flat_map(|unit| unit.queue().map(|request| request.line))
    }

    /// The 128-byte line address each stage of the real fetch unit's LS pipe holds a request
    /// for, first stage first (`None`: the stage is empty), as the trace frame's
    /// `pre-fetch ls` line shows them; `None` under ideal fetch.
    pub fn fetch_ls_pipe_lines(&self) -> Option<[Option<u32>; LS_PIPE_STAGES]> {
        self.fetch_unit().map(|unit| {
            unit.ls_pipe()
                .map(|stage| stage.map(|request| request.line))
        })
    }

    /// The fetch model in use.
    pub fn fetch_kind(&self) -> FetchKind {
        self.fetch.kind()
    }

    /// The statistics.
    pub fn stats(&self) -> &Statistics {
        &self.stats
    }

    /// `stats reset`.
    pub fn reset_stats(&mut self) {
        self.stats.reset();
        self.fast_forward.forget();
    }

    /// The cycle clock (the cycle number of the last simulated cycle).
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// Why nothing issued in the last simulated cycle (`None` if something issued).
    pub fn last_stall(&self) -> Option<StallReason> {
        match self.last_issue {
            LastIssue::Issued => None,
            LastIssue::Stalled(reason) => Some(reason),
        }
    }

    /// The fetch sequence number ([`InFlight::seq`]) of the instruction that completed at
    /// stage o in the last simulated cycle and stopped the SPU (`stop`, halt), if one did.
    /// The run ends in that cycle and the pipeline is flushed, so a pipeline viewer cannot
    /// see it leave stage o.
    pub fn stopped_by(&self) -> Option<u64> {
        self.stopped_by
    }

    /// The channel instruction waiting at stage o for the MFC or an event, if one is.
    pub(crate) fn held_on_channel(&self) -> Option<InFlight> {
        (self.blocked != 0)
            .then(|| self.issue.record(self.blocked).copied())
            .flatten()
    }

    /// The issue stages (g, h, i, j).
    pub(crate) fn issue_pipes(&self) -> &IssuePipes {
        &self.issue
    }

    /// Issue stage `stage` (0 = g, 1 = h, 2 = i, 3 = j) at the end of the current cycle: the
    /// fetch group it holds, the instruction at the even word address and the one at the odd
    /// (`None`: the path does not go through that address, the stage holds a bubble, or
    /// `stage` is beyond j).
    pub fn issue_stage(&self, stage: usize) -> [Option<InFlight>; 2] {
        self.issue.stage(stage)
    }

    /// The instructions in execution pipe 0 and 1 at execution stage `stage` (0 = `jj`, 5 =
    /// `o`, further = the rows kept after `o`) at the end of the current cycle (`None` in a
    /// slot: a bubble); `None` when `stage` is [`RING`] (the rows kept) or more, or exceeds
    /// the [clock](Self::clock).
    pub fn exec_stage_slots(&self, stage: u64) -> Option<[Option<InFlight>; 2]> {
        self.exec_stage(stage).map(|view| view.slots)
    }

    /// The article's P0/P1 dependency columns of execution stage `stage` (numbered as in
    /// [`exec_stage_slots`](Self::exec_stage_slots)) as the trace frame shows them: the
    /// target register of the instruction in pipe 0 and 1, -1 for none or a bubble, 128 once
    /// its result is released. `None` when `stage` is [`RING`] or more, or exceeds the
    /// [clock](Self::clock).
    pub fn dependency_columns(&self, stage: u64) -> Option<[i16; 2]> {
        self.exec_stage(stage).map(|view| view.dependencies)
    }

    /// Execution stage `stage` (0 = `jj`, 5 = `o`, further = the rows kept after `o`) as the
    /// trace shows it at the end of the current cycle: the instructions in pipe 0 and 1 and
    /// the article's P0/P1 dependency columns (target register, -1 for none or a bubble, 128
    /// once released). `None` beyond the rows kept ([`RING`]).
    pub(crate) fn exec_stage(&self, stage: u64) -> Option<ExecStageView> {
        if stage >= RING as u64 || stage > self.clock {
            return None;
        }
        let entered = self.clock - stage;
        let mut view = ExecStageView {
            slots: self.entered_jj(entered),
            dependencies: [-1, -1],
        };
        for (column, slot) in view.dependencies.iter_mut().zip(view.slots.iter()) {
            let depth = slot.map_or(1, |inflight| self.config().depth(inflight.class));
            *column = ExecPipes::dependency_column(slot.as_ref(), depth, entered, self.clock);
        }
        Some(view)
    }

    /// Drops every instruction in flight. The architectural state is exact (every instruction
    /// before its PC completed, none after), so fetch restarts from its PC.
    pub fn flush(&mut self) {
        self.fast_forward.forget();
        self.issue.flush();
        self.exec.flush();
        self.blocked = 0;
        self.follow_up = self.follow_up.output_only();
        self.fetch.restart();
    }

    /// Prints the statistics block (`spu N stats print`) with the performance counters of
    /// `arch`.
    pub fn print_stats(&self, arch: &SpuState, out: &mut impl fmt::Write) -> fmt::Result {
        let profile = arch.profile_counters();
        self.stats.print(&profile, self.clock, out)
    }

    /// Simulates up to `max_cycles` cycles of `arch`, writing `prof_cp` lines to `output`.
    ///
    /// Between runs the caller may service channels (mailboxes) of `arch`; any other change
    /// to the architectural state must be followed by [`flush`](Self::flush) (the fetch
    /// model runs ahead of it). [`SpuUnit`](crate::spu::unit::SpuUnit) does this itself.
    pub fn run<O: SpuObserver, W: fmt::Write>(
        &mut self,
        arch: &mut SpuState,
        max_cycles: u64,
        observer: &O,
        output: &mut W,
    ) -> Result<RunOutcome, ModelError> {
        self.config.materialize();
        // DMA takes the time the MFC's timing gives, counted on this pipeline's clock.
        arch.mfc_mut().set_timed(true);
        // Keep the clock ahead of the architectural cycle counter (instruction mode may have
        // run since), so prof_cp intervals stay monotonic.
        if arch.cycle_count() > self.clock {
            self.clock = arch.cycle_count();
            self.fast_forward.forget();
        }
        if let Status::Stopped(reason) = arch.status()
            && self.blocked == 0
            && self.issue_is_drained()
        {
            return Ok(RunOutcome {
                end: RunEnd::Stopped(reason),
                cycles: 0,
                instructions: 0,
                pc: arch.pc(),
            });
        }
        let start_instructions = self.stats.instructions;
        let mut cycles = 0;
        let mut end = None;
        while cycles < max_cycles && end.is_none() {
            if arch.channels_need_service_at(self.clock) {
                end = self.service_channels(arch, observer);
                if end.is_some() {
                    break;
                }
            }
            let mut budget = max_cycles - cycles;
            // Stop at the next channel event: the service completes DMA at its cycle.
            if let Some(at) = arch.next_channel_event() {
                budget = budget.min(at.saturating_sub(self.clock).max(1));
            }
            self.dma_active = arch.mfc().transfers_in_flight();
            if !self.dma_active {
                // The cycle sets it only while DMA is in flight.
                self.issue.ls_port_taken = false;
            }
            // On the host, a budget without DMA runs a cycle loop compiled without the DMA
            // tests (programs that never use the MFC pay nothing for them); a bare-metal
            // image keeps one loop, which tests the flag, for its size.
            let (ran, reason) = if self.dma_active || cfg!(target_os = "none") {
                self.run_budget::<true, _, _>(arch, budget, observer, output)?
            } else {
                self.run_budget::<false, _, _>(arch, budget, observer, output)?
            };
            cycles += ran;
            end = reason;
        }
        Ok(RunOutcome {
            end: end.unwrap_or(RunEnd::CycleLimit),
            cycles,
            instructions: self.stats.instructions - start_instructions,
            pc: arch.pc(),
        })
    }

    /// Services the channels at the current cycle: DMA completes and starts, events rise,
    /// and a due interrupt flushes the pipeline to the handler at LS address 0 (as a
    /// mispredicted branch would). DMA data also lands in ideal fetch's run-ahead copy. The
    /// run end a DMA error brings, if one does.
    fn service_channels<O: SpuObserver>(
        &mut self,
        arch: &mut SpuState,
        observer: &O,
    ) -> Option<RunEnd> {
        let now = self.clock;
        let mirror = self.fetch.shadow_local_store_mut();
        let service = arch.service_channels_at(now, mirror, &mut |event| observer.dma(event));
        if service.fault.is_some() || service.interrupted {
            self.flush();
        }
        match arch.status() {
            Status::Stopped(reason) if service.fault.is_some() => Some(RunEnd::Stopped(reason)),
            _ => None,
        }
    }

    /// One budget of [`run`](Self::run): the cycles simulated and the run end, if one came.
    /// With no listener attached, the notifications are compiled out until something could
    /// attach one: a prof_cp line written to the caller's output. `DMA` false: no transfer is
    /// in flight (see [`dma_in_flight`](Self::dma_in_flight)).
    fn run_budget<const DMA: bool, O: SpuObserver, W: fmt::Write>(
        &mut self,
        arch: &mut SpuState,
        budget: u64,
        observer: &O,
        output: &mut W,
    ) -> Result<(u64, Option<RunEnd>), ModelError> {
        if observer.is_listening() {
            self.run_cycles::<DMA, _, _>(arch, budget, observer, output, false)
        } else {
            self.run_cycles::<DMA, _, _>(arch, budget, &NoProbes, output, true)
        }
    }

    /// Up to `budget` cycles (fewer if the run ends, or, with `until_output`, after a cycle
    /// that wrote a prof_cp line): the cycles simulated and the run end, if one came.
    /// `until_output` also means nothing listens: the [fast-forward](shortcuts::fast_forward) skips repetitions
    /// without a word; otherwise `observer` hears of each one it skips as of the one simulated
    /// before (`shortcuts/fast_forward/notes.rs`).
    /// `DMA` false: no transfer is in flight (see [`dma_in_flight`](Self::dma_in_flight)).
    #[inline(always)]
    fn run_cycles<const DMA: bool, O: SpuObserver, W: fmt::Write>(
        &mut self,
        arch: &mut SpuState,
        budget: u64,
        observer: &O,
        output: &mut W,
        until_output: bool,
    ) -> Result<(u64, Option<RunEnd>), ModelError> {
        let mut cycles = 0;
        // DMA in flight changes the local store and its port from outside the pipeline: the
        // shortcuts, which repeat or skip what the pipeline alone does, wait until it is done.
        let fast_forward = self.fast_forward.enabled() && !self.dma_active;
        let notify = !until_output;
        self.fast_forward.set_recording(fast_forward && notify);
        let skip_stalls = !self.stall_skip_off && !self.dma_active;
        self.fetch.take_loop_head();
        while cycles < budget {
            cycles += 1;
            let dual_before = self.stats.dual_cycles;
            if let CycleEnd::End(reason) = self.step_cycle::<DMA, O, W>(arch, observer, output)? {
                return Ok((cycles, Some(reason)));
            }
            // One test, and no write, on the common path, where nothing comes.
            if !self.follow_up.is_nothing() {
                let follow_up = core::mem::take(&mut self.follow_up);
                if follow_up.service() {
                    break;
                }
                if follow_up.wait_on_channel() {
                    // Held on a channel until the next channel event, which ends the
                    // budget. (A prof_cp line this cycle wrote ends it after the next.)
                    self.follow_up = follow_up.output_only();
                    cycles += self.wait_on_channel(arch, budget - cycles, observer);
                    continue;
                }
                // With nothing listening, the caller may want to attach a listener now.
                if until_output {
                    break;
                }
            }
            let dual_issued = self.stats.dual_cycles != dual_before;
            if fast_forward && let Some(head) = self.fetch.take_loop_head() {
                cycles += self.loop_head_passed(arch, head, budget - cycles, observer, notify);
            }
            // After a dual issue the next group rarely stalls (a dual-issue stream would pay
            // for the look at every cycle); a stretch that does start then is simulated.
            if skip_stalls && !dual_issued {
                let (ran, end) =
                    self.skip_stalled_cycles(arch, budget - cycles, observer, output)?;
                cycles += ran;
                if end.is_some() {
                    return Ok((cycles, end));
                }
                // A channel instruction completed in the skipped stretch (a command written
                // to MFC_Cmd) needs the service before the next cycle, as after a simulated
                // one: otherwise a read of its status would find nothing scheduled. (A wait
                // it asked for is found again when stage o retries the instruction.)
                if !self.follow_up.is_nothing() {
                    let follow_up = core::mem::take(&mut self.follow_up);
                    if follow_up.service() || until_output && follow_up.output() {
                        break;
                    }
                }
            }
        }
        Ok((cycles, None))
    }

    fn issue_is_drained(&self) -> bool {
        self.issue.is_drained()
    }

    /// The instructions that entered execution stage `jj` in `cycle` (pipe 0 and 1; `None`
    /// for a bubble), while the model keeps that row ([`RING`] cycles).
    pub fn entered_jj(&self, cycle: u64) -> [Option<InFlight>; 2] {
        if cycle > self.clock || self.clock - cycle >= RING as u64 {
            return [None, None];
        }
        self.exec
            .row(cycle)
            .map(|seq| self.issue.record(seq).copied())
    }
}
