//! One simulated cycle, in reverse pipeline order: stage o completes instructions (their
//! functional effect, the statistics, the run end they cause), stage j issues, then the issue
//! stages advance and fetch fills stage g. See the [module documentation](crate::spu::pipeline) for the
//! model and `docs/spu-timing-model.md` for its sources.

use core::fmt;

use super::cycle_end::CycleEnd;
use super::error::ModelError;
use super::fetch::FetchModel;
use super::inflight::InFlight;
use super::issue::{DualIssueBlocks, IssueOutcome, IssuePipes};
use super::last_issue::LastIssue;
use super::notification::{Completion, NoteSink, Notification, emit};
use super::sizes::O_STAGE;
use super::stats::Statistics;
use super::window::Effect;
use crate::spu::exec::RunEnd;
use crate::spu::exec::{Executed, SpuState, Status};
use crate::spu::isa::Mnemonic;
use crate::spu::pipeline::state::Pipeline;
use crate::spu::probes::{ChannelEvent, SpuObserver, StallReason};

impl Pipeline {
    /// Simulates one cycle. `DMA` false: the caller knows no transfer is in flight (see
    /// [`dma_in_flight`](Self::dma_in_flight)).
    #[inline(always)]
    pub(crate) fn step_cycle<const DMA: bool, O: SpuObserver, W: fmt::Write>(
        &mut self,
        arch: &mut SpuState,
        observer: &O,
        output: &mut W,
    ) -> Result<CycleEnd, ModelError> {
        self.begin_cycle(observer);
        let now = self.clock;
        let end = self.stage_o(arch, now, observer, output)?;
        Ok(self.issue_and_fetch::<DMA, O>(arch, end, now, observer))
    }

    /// Whether DMA data may claim local-store port cycles in this budget. `DMA` is a
    /// compile-time `false` where the run loop knows no transfer is in flight, so that
    /// programs without DMA pay nothing per cycle for the port arbitration.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn dma_in_flight<const DMA: bool>(&self) -> bool {
        DMA && self.dma_active
    }

    /// The start of a cycle: the clock and the cycle count move on.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn begin_cycle<O: SpuObserver>(&mut self, observer: &O) {
        self.clock += 1;
        self.stopped_by = None;
        self.stats.cycles += 1;
        emit(
            observer,
            &mut self.fast_forward,
            self.clock,
            Notification::Cycle,
        );
    }

    /// Step 1 of cycle `now`: stage o completes the instructions that entered `jj` five
    /// cycles ago (or retries a blocked channel instruction). Returns the run end it causes.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn stage_o<O: SpuObserver, W: fmt::Write>(
        &mut self,
        arch: &mut SpuState,
        now: u64,
        observer: &O,
        output: &mut W,
    ) -> Result<Option<RunEnd>, ModelError> {
        let mut end = None;
        let blocked = core::mem::take(&mut self.blocked);
        if blocked != 0 {
            end = self.complete(arch, blocked, None, now, observer, output)?;
        }
        if end.is_none() && now >= O_STAGE {
            let row = now - O_STAGE;
            for pipe in 0..2 {
                let seq = self.exec.slot(row, pipe);
                if seq != 0 && !self.retire_replayed(arch, seq, now, observer) {
                    end = self.complete(arch, seq, Some((row, pipe)), now, observer, output)?;
                    if end.is_some() {
                        break;
                    }
                }
            }
        }
        Ok(end)
    }

    /// Steps 2 and 3 of cycle `now`, after stage o (which brought the run `end`, if any):
    /// stage j issues, then the issue stages advance and fetch fills stage g.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn issue_and_fetch<const DMA: bool, O: SpuObserver>(
        &mut self,
        arch: &mut SpuState,
        end: Option<RunEnd>,
        now: u64,
        observer: &O,
    ) -> CycleEnd {
        // 2. Issue. DMA data has the first claim on the local-store port: a load or store
        // whose access (at stage o) would meet it waits.
        // (The run loop clears the flag when it finds no DMA in flight.)
        let dma = self.dma_in_flight::<DMA>();
        if dma {
            self.issue.ls_port_taken = arch.mfc_mut().uses_local_store(now + O_STAGE);
        }
        self.exec.open_row(now);
        let mut blocks = DualIssueBlocks::default();
        let outcome = if self.real_fetch && self.fetch.blocks_issue() {
            IssueOutcome::Stalled(StallReason::BranchMiss)
        } else {
            self.issue
                .issue::<DMA>(now, self.config.stored(), &mut self.exec, &mut blocks)
        };
        self.count_issue(&outcome, &blocks, now, observer);

        if let Some(reason) = end {
            // Nothing younger than a stopping instruction is on the path (fetch waited).
            self.flush();
            return CycleEnd::End(reason);
        }

        // 3. Fetch.
        self.issue.advance();
        // Only the real fetch unit's line requests contend with loads and stores.
        let ls_taken = self.real_fetch
            && (self.ls_in_stage_n(now) || dma && arch.mfc_mut().uses_local_store(now + 1));
        let contended = self.fetch.step(arch, &mut self.issue, ls_taken);
        self.stats.ls_contention += u64::from(contended);
        CycleEnd::Continue
    }

    /// Whether a load/store that contends with line fetches is in execution stage n at the
    /// end of cycle `now` (it uses the LS in stage o next cycle).
    #[inline(always)]
    fn ls_in_stage_n(&self, now: u64) -> bool {
        if now < O_STAGE - 1 {
            return false;
        }
        let seq = self.exec.slot(now - (O_STAGE - 1), 1);
        if seq == 0 {
            return false;
        }
        let instruction = &self.issue.in_flight(seq).instruction;
        instruction.is_load()
            || (instruction.is_store() && !self.config.stored().ls_line_contend_load_only())
    }

    /// Stage o: the functional effect of instruction `seq` (in execution row/pipe
    /// `position`, `None` for a retried channel instruction). Returns the run end it causes.
    #[inline]
    fn complete<O: SpuObserver, W: fmt::Write>(
        &mut self,
        arch: &mut SpuState,
        seq: u64,
        position: Option<(u64, usize)>,
        now: u64,
        observer: &O,
        output: &mut W,
    ) -> Result<Option<RunEnd>, ModelError> {
        let inflight = self.issue.in_flight(seq);
        let executed: Executed = if inflight.illegal {
            arch.step()
        } else {
            arch.execute_at_cycle(&inflight.instruction, now)
        };
        if !executed.retired {
            let inflight = *inflight;
            return self.not_retired(arch, &inflight, &executed, position, now);
        }
        self.fetch.completed_through(seq);
        // A serializing instruction's successor is fetched after it completes, whatever it
        // is (a channel access may enter the interrupt handler): ideal fetch predicted none.
        let mispredicted = executed.next_pc != inflight.predicted_next
            && (self.real_fetch || !inflight.serializing());
        if mispredicted {
            match (&mut self.fetch, position) {
                (FetchModel::Real { unit, .. }, Some((row, pipe))) => {
                    unit.mispredict(executed.next_pc);
                    self.exec
                        .squash_younger(row, pipe, now, self.config.stored());
                    emit(
                        observer,
                        &mut self.fast_forward,
                        now,
                        Notification::Mispredict,
                    );
                }
                _ => {
                    return Err(ModelError::PathMismatch {
                        pc: inflight.pc,
                        predicted: inflight.predicted_next,
                        actual: executed.next_pc,
                    });
                }
            }
        }
        count_retired(
            &mut self.stats,
            inflight,
            executed.branch_taken,
            executed.is_nop,
            mispredicted,
        );
        let instruction = &inflight.instruction;
        if instruction.is_hint()
            && !instruction.is_hbrp()
            && let FetchModel::Real { unit, .. } = &mut self.fetch
        {
            let (branch, target) = hint_operands(inflight, arch);
            unit.set_hint(branch, target);
        }
        let retired = Notification::Retired {
            instruction,
            executed: &executed,
        };
        emit(observer, &mut self.fast_forward, now, retired);
        if let Some(checkpoint) = executed.profile {
            writeln!(output, "{checkpoint}").map_err(|_| ModelError::Output)?;
            self.follow_up.note_output();
        }
        if let Status::Stopped(reason) = executed.status {
            self.stopped_by = Some(seq);
            return Ok(Some(RunEnd::Stopped(reason)));
        }
        // One test on the common path, where the instruction is neither.
        if inflight.completion_duties != 0 {
            // Stage o completes in program order: the state is the one right after it.
            if let Some(event) = ChannelEvent::of(instruction, &executed, now, arch) {
                observer.channel(&event);
            }
            let (serializing, channel) = (inflight.serializing(), inflight.channel());
            self.serializing_or_channel_completed(arch, serializing, channel, position, now);
        }
        Ok(None)
    }

    /// What follows the completion of a serializing instruction (fetch resumes) or a channel
    /// one (a channel access, or a branch that may enable interrupts). The channels are
    /// serviced before the next cycle if a channel instruction left them needing it (only
    /// these change what they need: what time alone brings, a transfer's completion or the
    /// decrementer, ends the run loop's budget instead); and after a channel wait (`position`
    /// `None`) the refill is the instruction's (a channel stall), with a held real fetch unit
    /// started again.
    fn serializing_or_channel_completed(
        &mut self,
        arch: &SpuState,
        serializing: bool,
        channel: bool,
        position: Option<(u64, usize)>,
        now: u64,
    ) {
        if channel && arch.channels_need_service_at(now) {
            self.follow_up.request_service();
        }
        if serializing {
            self.fetch.serializing_completed();
        }
        if position.is_none() {
            self.issue.invalidate(StallReason::Channel);
            if self.real_fetch {
                self.fetch.restart();
            }
        }
    }

    /// Stage o for an instruction whose effect the ideal fetch's shadow recorded: applies it
    /// and counts the instruction as [`complete`](Self::complete) would. `false` when there
    /// is no recorded effect (or the SPU stopped): `complete` must interpret the instruction.
    #[inline(always)]
    fn retire_replayed<O: SpuObserver>(
        &mut self,
        arch: &mut SpuState,
        seq: u64,
        now: u64,
        observer: &O,
    ) -> bool {
        let Some((effect, address)) = apply_recorded(&self.issue, arch, seq, now) else {
            return false;
        };
        self.fetch.completed_through(seq);
        let inflight = self.issue.in_flight(seq);
        let executed = Completion::recorded(inflight, effect, address).report(inflight);
        // The path fetch followed is the executed one: nothing was mispredicted.
        count_retired(
            &mut self.stats,
            inflight,
            executed.branch_taken,
            executed.is_nop,
            false,
        );
        let retired = Notification::Retired {
            instruction: &inflight.instruction,
            executed: &executed,
        };
        emit(observer, &mut self.fast_forward, now, retired);
        true
    }

    /// Stage o for an instruction that did not complete: a channel wait or a stop. A channel
    /// wait the MFC or an event will end (the MFC has something due) holds the instruction at
    /// stage o, retried every cycle, with nothing younger in flight; one only the host can
    /// end (a mailbox, a signal) ends the run.
    #[cold]
    fn not_retired(
        &mut self,
        arch: &mut SpuState,
        inflight: &InFlight,
        executed: &Executed,
        position: Option<(u64, usize)>,
        now: u64,
    ) -> Result<Option<RunEnd>, ModelError> {
        match executed.status {
            Status::Blocked { channel } => {
                let internal = arch.next_channel_event().is_some();
                if let (FetchModel::Real { .. }, Some((row, pipe))) = (&self.fetch, position) {
                    // Younger instructions were fetched behind it: squash them.
                    self.exec
                        .squash_younger(row, pipe, now, self.config.stored());
                    if !internal {
                        // Fetch the channel instruction again once the host serviced it.
                        self.issue.invalidate(StallReason::Channel);
                        self.fetch.restart();
                    }
                }
                self.blocked = inflight.seq;
                self.fetch.hold();
                if internal {
                    self.issue.invalidate(StallReason::ChannelWait);
                    self.fetch.hold_for_channel();
                    arch.mfc_mut().count_wait(1);
                    self.follow_up.request_wait_on_channel();
                    return Ok(None);
                }
                Ok(Some(RunEnd::Blocked { channel }))
            }
            Status::Stopped(reason) => Ok(Some(RunEnd::Stopped(reason))),
            // A model bug would land here: report it as a path error rather than spin.
            Status::Running => Err(ModelError::PathMismatch {
                pc: inflight.pc,
                predicted: inflight.predicted_next,
                actual: executed.next_pc,
            }),
        }
    }

    #[inline(always)]
    fn count_issue<O: SpuObserver>(
        &mut self,
        outcome: &IssueOutcome,
        blocks: &DualIssueBlocks,
        now: u64,
        observer: &O,
    ) {
        self.last_issue = match outcome {
            IssueOutcome::Stalled(reason) => LastIssue::Stalled(*reason),
            IssueOutcome::Issued { .. } => LastIssue::Issued,
        };
        let stats = &mut self.stats;
        match outcome {
            IssueOutcome::Stalled(reason) => {
                stats.count_stall(*reason);
                let stall = Notification::IssueStall(*reason);
                emit(observer, &mut self.fast_forward, now, stall);
            }
            IssueOutcome::Issued { first, second } => {
                let first = self.issue.in_flight(*first);
                let second = second.map(|seq| self.issue.in_flight(seq));
                let all_nops = first.is_nop() && second.is_none_or(|s| s.is_nop());
                if all_nops {
                    stats.nop_cycles += 1;
                } else if second.is_some() {
                    stats.dual_cycles += 1;
                } else {
                    stats.single_cycles += 1;
                }
                stats.sp_issue_block += u64::from(blocks.sp);
                stats.dp_issue_block += u64::from(blocks.dp);
                stats.cross_issue_cycles += u64::from(blocks.cross);
                stats.src0_dep_cycles += u64::from(blocks.src0_dependency);
                // Spelled out rather than a `once(first).chain(second)` loop, whose iterator
                // cost a dual-issue stream about ten host instructions per instruction.
                let dual = second.is_some();
                let fast_forward = &mut self.fast_forward;
                count_issued(stats, fast_forward, first, dual, now, observer);
                if let Some(second) = second {
                    count_issued(stats, fast_forward, second, dual, now, observer);
                }
            }
        }
    }
}

/// One instruction issued in cycle `now` (`dual`: with another): the registers-used
/// statistic and the issue notification.
#[inline(always)]
fn count_issued<O: SpuObserver, S: NoteSink>(
    stats: &mut Statistics,
    fast_forward: &mut S,
    inflight: &InFlight,
    dual: bool,
    now: u64,
    observer: &O,
) {
    stats.registers_used |=
        u128::from(inflight.registers[0]) | (u128::from(inflight.registers[1]) << 64);
    let (pc, pipe) = (inflight.pc, inflight.class.pipe());
    emit(
        observer,
        fast_forward,
        now,
        Notification::Issue { pc, pipe, dual },
    );
}

/// Applies the effect the ideal fetch's shadow recorded for instruction `seq` to `arch` as
/// its completion at cycle `now` (see [`SpuState::retire_replayed`]). Returns the effect and
/// its address; `None` (and nothing changed) when none was recorded or the SPU is stopped.
#[inline(always)]
fn apply_recorded(
    issue: &IssuePipes,
    arch: &mut SpuState,
    seq: u64,
    now: u64,
) -> Option<(Effect, u32)> {
    let (effect, value, address) = issue.effect(seq)?;
    let inflight = issue.in_flight(seq);
    arch.retire_replayed(
        effect.state_write(inflight, address),
        *value,
        inflight.predicted_next,
        effect.has(Effect::NOP),
        now,
    )
    .then_some((effect, address))
}

/// Counts a completed instruction in the statistics: instructions, non-NOP instructions,
/// branches taken and not taken, hint hits (a taken branch fetch had predicted taken: its
/// predicted next address is not the fall-through) and hints.
#[inline(always)]
fn count_retired(
    stats: &mut Statistics,
    inflight: &InFlight,
    branch_taken: bool,
    is_nop: bool,
    mispredicted: bool,
) {
    stats.instructions += 1;
    stats.non_nop_instructions += u64::from(!is_nop);
    let instruction = &inflight.instruction;
    if instruction.is_branch() {
        if branch_taken {
            stats.branches_taken += 1;
            if !mispredicted && inflight.predicted_next != inflight.pc.wrapping_add(4) {
                stats.hint_hits += 1;
            }
        } else {
            stats.branches_not_taken += 1;
        }
    }
    stats.hints += u64::from(instruction.is_hint());
}

/// The hinted branch address and the target of a hint at stage o (`arch` holds the
/// register values the hint reads).
fn hint_operands(inflight: &InFlight, arch: &SpuState) -> (u32, u32) {
    let instruction = &inflight.instruction;
    let pc = inflight.pc;
    let branch = pc.wrapping_add((i32::from(instruction.hint_offset) << 2) as u32);
    let target = match instruction.mnemonic {
        Mnemonic::Hbra => (instruction.imm << 2) as u32,
        Mnemonic::Hbrr => pc.wrapping_add((instruction.imm << 2) as u32),
        _ => arch.register(instruction.ra).preferred_word(),
    };
    (branch, target)
}
