//! The fast-forward under the real fetch unit: reading a repetition's path and running
//! repetitions on trial (see the [`fast_forward`](super) module documentation
//! for the method).
//!
//! With no shadow to run the path ahead, a repetition here is: the `n` oldest instructions in
//! flight complete on the architectural state with a journal, each one checked to continue
//! along the path fetch predicted and not to store where fetch reads, after the next `n`
//! instructions entered the window as fetch fetched the last `n` (fewer than `n` may be in
//! flight). The fetch unit itself is not
//! stepped: at the start of each repetition it is in the state the comparison found at both
//! ends of the repetition observed, and what it does in between depends only on that state,
//! on the timing state, on the (unchanged) code and on the path. A repetition whose trial
//! fails is taken back whole; the cycle-by-cycle model simulates it.

use crate::spu::exec::{SpuState, Trial};
use crate::spu::isa::Mnemonic;
use crate::spu::pipeline::model::decoded::{Decoded, Replay};
use crate::spu::pipeline::model::fetch::FetchModel;
use crate::spu::pipeline::model::notification::Completion;
use crate::spu::pipeline::state::Pipeline;

impl Pipeline {
    /// Reads the repetition's `n` instructions (fetched since the anchor) from the window
    /// and where fetch reads while repeating them
    /// ([`FetchReads`](super::fetch_reads::FetchReads)); `false` if one is gone,
    /// is not ordinary (see [`repeatable`]), differs from the word in the local store now,
    /// or the counters do not show one repetition of `n` completions.
    pub(in crate::spu::pipeline) fn read_path_real(&mut self, arch: &SpuState, n: usize) -> bool {
        if !self.one_repetition_since_anchor(arch, n) {
            return false;
        }
        let FetchModel::Real { unit, decoded, .. } = &mut self.fetch else {
            return false;
        };
        let reads = &mut self.fast_forward.fetch_reads;
        reads.count = 0;
        for half in unit.halves_referenced() {
            if !reads.halves[..reads.count].contains(&half) {
                let Some(slot) = reads.halves.get_mut(reads.count) else {
                    return false;
                };
                *slot = half;
                reads.count += 1;
            }
        }
        let (mut low, mut high) = (u32::MAX, 0);
        let first = self.fast_forward.anchor_last_seq() + 1;
        for seq in first..first + n as u64 {
            let Some(record) = self.issue.record(seq) else {
                return false;
            };
            let word = arch.local_store().load_word(record.pc);
            if record.serializing()
                || record.illegal
                || word != record.instruction.word
                || !repeatable(decoded.get(record.pc, word, || None))
            {
                return false;
            }
            low = low.min(record.pc & !15);
            high = high.max(record.pc & !15);
        }
        self.fast_forward.fetch_reads.code = (low, high);
        true
    }

    /// Repetition `done` of `n` instructions in `cycles` cycles under the real fetch unit,
    /// its oldest instruction `oldest`, on trial (see the module documentation); with `record`
    /// (and `MAY_RECORD`), the completions are kept for an observer. `false` if the trial
    /// failed (and was taken back). Any code for keeping them in the trial loop, even
    /// untaken, cost the runs with no observer 13-15% on x86: hosted targets have a copy
    /// without it (`MAY_RECORD` false) for those; bare metal has one copy for the image's
    /// size budget.
    #[inline(never)]
    pub(in crate::spu::pipeline) fn repeat_once_real<const MAY_RECORD: bool>(
        &mut self,
        arch: &mut SpuState,
        (n, cycles): (u64, u64),
        done: u64,
        oldest: u64,
        record: bool,
    ) -> bool {
        let arch_lag = self.fast_forward.arch_lag();
        // Fetch side: the next `n` instructions, as fetch fetched the last `n` (the
        // completion side may reach into them).
        let last = self.issue.last_seq();
        for seq in last + 1 - n..=last {
            let fetched = *self.issue.in_flight(seq);
            self.issue.append(&fetched);
        }
        // Completion side: the `n` oldest instructions in flight, as stage o would
        // complete them in these cycles.
        let ff = &mut self.fast_forward;
        let (journal, reads) = (&mut ff.journal, &ff.fetch_reads);
        if !arch.begin_trial(journal) {
            return false;
        }
        let mut nops = 0;
        for seq in oldest..oldest + n {
            let inflight = self.issue.in_flight(seq);
            let trial = arch.try_execute(&inflight.instruction, journal);
            let on_path = arch.pc() == inflight.predicted_next;
            match trial {
                Some(trial) if on_path && !trial.stored.is_some_and(|at| reads.hit_by(at)) => {
                    nops += u64::from(trial.ordinary.is_nop);
                    if MAY_RECORD && record {
                        keep(&mut ff.completions, seq - oldest, arch.pc(), &trial);
                    }
                }
                _ => {
                    arch.undo_trial(journal);
                    self.issue.forget_fetched_after(last);
                    return false;
                }
            }
        }
        let completed_at = self.clock + (done + 1) * cycles - arch_lag;
        arch.retire_replayed_run(n, nops, arch.pc(), completed_at);
        true
    }
}

/// Keeps the completion of the `index`-th instruction of a repetition on trial, which moved
/// the PC to `next_pc`, for an observer.
#[cold]
#[inline(never)]
fn keep(completions: &mut [Completion], index: u64, next_pc: u32, trial: &Trial) {
    if let Some(slot) = completions.get_mut(index as usize) {
        *slot = Completion::of_trial(next_pc, trial.ordinary, trial.stored);
    }
}

/// Whether a repetition may contain the instruction: one whose effect is on the registers,
/// the local store and the PC only (see [`Replay`]), and not `hbr`, whose hint target comes
/// from a register (`hbra` and `hbrr` hint the same branch and target every time).
fn repeatable(decoded: &Decoded) -> bool {
    let instruction = &decoded.inflight.instruction;
    matches!(decoded.replay, Replay::Checked | Replay::Target)
        && (instruction.mnemonic != Mnemonic::Hbr || instruction.is_hbrp())
}
