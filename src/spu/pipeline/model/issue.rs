//! Issue pipes 0 (even word addresses) and 1 (odd), stages g h i j, and the dual-issue rules.
//!
//! A fetch group (the pair at an even and the following odd address) enters stage g and moves
//! down one stage per cycle while stage j is free; it leaves j only when both of its
//! instructions have issued. Issue is in order and nothing shifts between the two issue pipes.
//!
//! At stage j, the older remaining instruction (the even one if it has not issued yet) issues
//! when it has no hazard:
//! - **class issue stall**: an earlier instruction of a class with a non-zero `stall` issued
//!   fewer than `stall + 1` cycles ago (FPD: 6, so independent `dfa`s issue one per 7 cycles).
//!   Following GCC and the SDK ("nothing issues for 6 cycles after a DP"), the stall holds
//!   both pipes;
//! - **operand dependency**: a source is the unreleased target of an instruction in an
//!   execution pipe;
//! - **FP resource conflict**: an FP6 instruction would use the shared FP unit in the cycle
//!   after an FP7 or FPD instruction issued (those use it one cycle after issue).
//!
//! The odd instruction of the pair issues together with the even one (dual issue) only when,
//! in addition: neither is cross-issued (the even one goes to execution pipe 0 and the odd one
//! to pipe 1), the odd one does not read the even one's target, neither is FPD unless
//! `dp-dual`, neither is FP6 unless `sp-dual`.

use super::config::Config;
use super::execute::ExecPipes;
use super::inflight::{Group, InFlight, NO_REGISTER};
use super::sizes::J_STAGE;
use super::window::{Effect, Window};
use crate::spu::exec::Quadword;
use crate::spu::isa::IClass;
use crate::spu::probes::StallReason;

/// What stage j did in a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IssueOutcome {
    /// Nothing issued, for this reason (stage j empty: the fetch model's reason).
    Stalled(StallReason),
    /// One or two instructions issued, given by sequence number ([`IssuePipes::record`]).
    Issued {
        /// The instruction issued, or the older one of a dual issue.
        first: u64,
        /// The second one of a dual issue.
        second: Option<u64>,
    },
}

/// Side observations of one issue decision (for statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DualIssueBlocks {
    /// Dual issue was refused because the odd instruction reads the even one's target.
    pub src0_dependency: bool,
    /// Refused because of an SP instruction with sp-dual off.
    pub sp: bool,
    /// Refused because of a DP instruction with dp-dual off.
    pub dp: bool,
    /// An instruction went to the execution pipe opposite its issue pipe.
    pub cross: bool,
}

/// Issue stages, the instruction window behind them, and structural-hazard state.
#[derive(Clone, Debug)]
pub(crate) struct IssuePipes {
    /// The records of every instruction in flight (issue stages and execution pipes).
    window: Window,
    /// Stages g, h, i, j; each holds a fetch group as sequence numbers (slot 0 even address,
    /// slot 1 odd; 0 is an empty slot).
    pub(in crate::spu::pipeline) stages: [[u64; 2]; 4],
    /// Why each empty stage is empty: the fetch model's reason when the bubble entered g. It
    /// travels down with the bubble, so a stall at j is charged to its cause.
    pub(crate) bubbles: [StallReason; 4],
    /// Last sequence number handed out.
    last_seq: u64,
    /// No instruction issues before this cycle (class issue stall).
    pub(in crate::spu::pipeline) stall_until: u64,
    /// The cycle in which an FP7/FPD instruction uses the shared FP unit (0: none; cycles
    /// are counted from 1).
    pub(in crate::spu::pipeline) fp_busy_at: u64,
    /// DMA data has the local-store port in the cycle an instruction issued now would use it
    /// (at stage o): loads and stores wait. Set by the cycle before issue.
    pub(crate) ls_port_taken: bool,
}

impl IssuePipes {
    /// Empty issue pipes.
    pub(crate) const fn new() -> Self {
        IssuePipes {
            window: Window::new(),
            stages: [[0; 2]; 4],
            bubbles: [StallReason::Initialisation; 4],
            last_seq: 0,
            stall_until: 0,
            fp_busy_at: 0,
            ls_port_taken: false,
        }
    }

    /// Drops every instruction and structural state (sequence numbers keep counting).
    pub(crate) fn flush(&mut self) {
        self.stages = [[0; 2]; 4];
        self.bubbles = [StallReason::Initialisation; 4];
        self.stall_until = 0;
        self.fp_busy_at = 0;
    }

    /// Drops the instructions (mispredict state 5); the bubbles are charged to `reason`.
    pub(crate) fn invalidate(&mut self, reason: StallReason) {
        self.stages = [[0; 2]; 4];
        self.bubbles = [reason; 4];
    }

    /// Whether stage j holds nothing.
    #[inline(always)]
    pub(crate) fn j_is_empty(&self) -> bool {
        self.stages[J_STAGE] == [0, 0]
    }

    /// Whether stage g can take a new group.
    #[inline(always)]
    pub(crate) fn g_is_empty(&self) -> bool {
        self.stages[0] == [0, 0]
    }

    /// Whether every issue stage is empty.
    pub(crate) fn is_drained(&self) -> bool {
        self.stages.iter().all(|stage| *stage == [0, 0])
    }

    /// Puts a fetch group into stage g (which must be empty), giving its instructions their
    /// sequence numbers.
    #[inline(always)]
    pub(crate) fn enter(&mut self, group: Group) {
        for (slot, inflight) in group.iter().enumerate() {
            if let Some(inflight) = inflight {
                self.enter_slot(slot, inflight);
            }
        }
    }

    /// Puts a copy of `inflight` into `slot` (0 even, 1 odd) of stage g as the next
    /// instruction fetched, and returns the window's record of it to complete.
    #[inline(always)]
    pub(crate) fn enter_slot(&mut self, slot: usize, inflight: &InFlight) -> &mut InFlight {
        self.place(slot, self.last_seq + 1);
        self.append(inflight)
    }

    /// Writes a copy of `inflight` into the window as the next instruction fetched, without
    /// putting it into a stage yet ([`place`](Self::place) does), and returns the record.
    #[inline(always)]
    pub(crate) fn append(&mut self, inflight: &InFlight) -> &mut InFlight {
        self.last_seq += 1;
        let seq = self.last_seq;
        let record = self.window.at_mut(seq);
        // One copy of the whole record on a hosted target, which the compiler does inline;
        // field by field on bare metal, where a whole-record assignment is a `memcpy` call.
        // Each form costs the other target 5-15% of a fetch-bound run.
        if !cfg!(target_os = "none") {
            *record = *inflight;
            record.seq = seq;
            return record;
        }
        let InFlight {
            pc,
            instruction,
            predicted_next,
            class,
            target,
            sources,
            registers,
            completion_duties,
            illegal,
            seq: _,
        } = *inflight;
        *record = InFlight {
            pc,
            instruction,
            predicted_next,
            class,
            target,
            sources,
            registers,
            completion_duties,
            illegal,
            seq,
        };
        record
    }

    /// Takes back the instructions appended after `seq` (a fast-forward's repetition that
    /// did not happen); their records are left to be overwritten.
    #[cfg_attr(feature = "spu-lean", allow(dead_code))] // the fast-forward's only
    pub(crate) fn forget_fetched_after(&mut self, seq: u64) {
        self.last_seq = seq;
    }

    /// Puts the appended instruction `seq` into `slot` (0 even, 1 odd) of stage g.
    #[inline(always)]
    pub(crate) fn place(&mut self, slot: usize, seq: u64) {
        self.stages[0][slot & 1] = seq;
    }

    /// The sequence number of the last instruction fetched.
    #[inline(always)]
    pub(crate) fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Records what the ideal fetch's shadow saw instruction `seq` do (see [`Window`]).
    #[inline(always)]
    pub(crate) fn set_effect(&mut self, seq: u64, effect: Effect, value: Quadword, address: u32) {
        self.window.set_effect(seq, effect, value, address);
    }

    /// The effect recorded for `seq` with its value and address, if any.
    #[inline(always)]
    pub(crate) fn effect(&self, seq: u64) -> Option<(Effect, &Quadword, u32)> {
        self.window.effect(seq)
    }

    /// Stage `stage` (0 = g .. 3 = j) as a fetch group.
    pub fn stage(&self, stage: usize) -> Group {
        let seqs = self.stages.get(stage).copied().unwrap_or([0, 0]);
        seqs.map(|seq| self.window.get(seq).copied())
    }

    /// The record of the instruction with sequence number `seq`, if it is still in the
    /// window (it is while in the issue stages and the execution pipes).
    pub fn record(&self, seq: u64) -> Option<&InFlight> {
        self.window.get(seq)
    }

    /// The record of `seq`, known to be in flight (no check).
    #[inline(always)]
    pub(crate) fn in_flight(&self, seq: u64) -> &InFlight {
        self.window.at(seq)
    }

    /// Moves every group down one stage if stage j is free.
    #[inline(always)]
    pub(crate) fn advance(&mut self) {
        if self.j_is_empty() {
            self.stages[3] = self.stages[2];
            self.stages[2] = self.stages[1];
            self.stages[1] = self.stages[0];
            self.stages[0] = [0, 0];
            self.bubbles[3] = self.bubbles[2];
            self.bubbles[2] = self.bubbles[1];
            self.bubbles[1] = self.bubbles[0];
        }
    }

    /// Moves the stages `cycles` cycles and `seqs` fetches on from the end of cycle `now`
    /// (the fast-forward; see [`ExecPipes::shift`]). The window already holds the records.
    #[cfg_attr(feature = "spu-lean", allow(dead_code))] // the fast-forward's only
    pub(in crate::spu::pipeline) fn shift(&mut self, seqs: u64, cycles: u64, now: u64) {
        for seq in self.stages.iter_mut().flatten() {
            if *seq != 0 {
                *seq += seqs;
            }
        }
        if self.stall_until > now {
            self.stall_until += cycles;
        }
        if self.fp_busy_at > now {
            self.fp_busy_at += cycles;
        }
    }

    /// The hazard that keeps `inflight` from issuing in `cycle`, if any. `DMA` false: no
    /// transfer is in flight, so the local-store port is never taken.
    #[inline(always)]
    fn hazard<const DMA: bool>(
        &self,
        inflight: &InFlight,
        cycle: u64,
        pipes: &ExecPipes,
    ) -> Option<StallReason> {
        // The same tests as `hazard_until`, without the release cycle: this runs every cycle.
        if cycle < self.stall_until {
            return Some(StallReason::DpPipeline);
        }
        if DMA
            && self.ls_port_taken
            && (inflight.instruction.is_load() || inflight.instruction.is_store())
        {
            return Some(StallReason::DmaLocalStore);
        }
        for &source in &inflight.sources {
            if let Some(class) = pipes.blocking(source, cycle) {
                return Some(StallReason::Dependency(class));
            }
        }
        if inflight.class == IClass::Fp6 && self.fp_busy_at == cycle {
            return Some(StallReason::FpResource);
        }
        None
    }

    /// The hazard that keeps `inflight` from issuing in `cycle`, if any, and the first cycle
    /// in which that hazard may have cleared or changed, as long as nothing enters the
    /// execution pipes meanwhile (the release cycles and the issue stall stay as they are).
    #[inline(always)]
    fn hazard_until(
        &self,
        inflight: &InFlight,
        cycle: u64,
        pipes: &ExecPipes,
    ) -> Option<(StallReason, u64)> {
        if cycle < self.stall_until {
            return Some((StallReason::DpPipeline, self.stall_until));
        }
        for &source in &inflight.sources {
            if let Some((class, release)) = pipes.blocking_until(source, cycle) {
                return Some((StallReason::Dependency(class), release));
            }
        }
        if inflight.class == IClass::Fp6 && self.fp_busy_at == cycle {
            return Some((StallReason::FpResource, cycle + 1));
        }
        None
    }

    /// Why stage j will not issue in `cycle` and every cycle after it before the returned
    /// one, provided that nothing issues meanwhile (the stall skip's horizon). `None` when
    /// stage j is empty (its bubble's reason depends on fetch) or can issue in `cycle`.
    #[inline(always)]
    pub(crate) fn stall_until(&self, cycle: u64, pipes: &ExecPipes) -> Option<(StallReason, u64)> {
        let [even, odd] = self.stages[J_STAGE];
        let first = if even != 0 { even } else { odd };
        if first == 0 {
            return None;
        }
        self.hazard_until(self.window.at(first), cycle, pipes)
    }

    /// Runs stage j for `cycle`: decides what issues, puts it into the execution pipes and
    /// removes it from stage j. An empty stage j stalls for the reason its bubble carries.
    /// `DMA` false: no transfer is in flight ([`ls_port_taken`](Self::ls_port_taken) is
    /// not read).
    #[inline(always)]
    pub(crate) fn issue<const DMA: bool>(
        &mut self,
        cycle: u64,
        config: &Config,
        pipes: &mut ExecPipes,
        blocks: &mut DualIssueBlocks,
    ) -> IssueOutcome {
        let [even, odd] = self.stages[J_STAGE];
        let (first_seq, first_slot) = if even != 0 {
            (even, 0usize)
        } else if odd != 0 {
            (odd, 1usize)
        } else {
            return IssueOutcome::Stalled(self.bubbles[J_STAGE]);
        };
        let first = self.window.at(first_seq);
        if let Some(reason) = self.hazard::<DMA>(first, cycle, pipes) {
            return IssueOutcome::Stalled(reason);
        }
        let first_pipe = usize::from(first.class.pipe());
        blocks.cross = first_pipe != first_slot;
        let second = first_slot == 0
            && odd != 0
            && self.dual_partner::<DMA>(first, self.window.at(odd), cycle, config, pipes, blocks);
        self.stages[J_STAGE][first_slot] = 0;
        self.start(first_seq, cycle, config, pipes);
        if second {
            self.stages[J_STAGE][1] = 0;
            self.start(odd, cycle, config, pipes);
        }
        IssueOutcome::Issued {
            first: first_seq,
            second: second.then_some(odd),
        }
    }

    /// Whether the odd instruction can issue with the even one `first` this cycle.
    #[inline(always)]
    fn dual_partner<const DMA: bool>(
        &self,
        first: &InFlight,
        candidate: &InFlight,
        cycle: u64,
        config: &Config,
        pipes: &ExecPipes,
        blocks: &mut DualIssueBlocks,
    ) -> bool {
        if first.class.pipe() != 0 || candidate.class.pipe() != 1 {
            return false;
        }
        let [a, b, c] = candidate.sources;
        if first.target != NO_REGISTER
            && (a == first.target || b == first.target || c == first.target)
        {
            blocks.src0_dependency = true;
            return false;
        }
        let is_dp = |c: IClass| c == IClass::Fpd;
        let is_sp = |c: IClass| c == IClass::Fp6;
        if !config.dp_dual() && (is_dp(first.class) || is_dp(candidate.class)) {
            blocks.dp = true;
            return false;
        }
        if !config.sp_dual() && (is_sp(first.class) || is_sp(candidate.class)) {
            blocks.sp = true;
            return false;
        }
        self.hazard::<DMA>(candidate, cycle, pipes).is_none()
    }

    /// Enters instruction `seq` into its execution pipe and records its structural effects.
    #[inline(always)]
    fn start(&mut self, seq: u64, cycle: u64, config: &Config, pipes: &mut ExecPipes) {
        let inflight = self.window.at(seq);
        let timing = config.timing(inflight.class);
        pipes.enter(cycle, inflight, timing.depth);
        if timing.stall > 0 {
            self.stall_until = self.stall_until.max(cycle + u64::from(timing.stall) + 1);
        }
        if matches!(inflight.class, IClass::Fp7 | IClass::Fpd) {
            self.fp_busy_at = cycle + 1;
        }
    }
}
