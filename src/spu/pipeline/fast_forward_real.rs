//! The fast-forward under the real fetch unit: reading a repetition's path and running
//! repetitions on trial (see the [`fast_forward`](super::fast_forward) module documentation
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

use super::Pipeline;
use super::decode_cache::{Decoded, Replay};
use super::fetch::FetchModel;
use super::fetch_buffers::HALF_BYTES;
use crate::spu::exec::SpuState;
use crate::spu::isa::Mnemonic;

/// Half-lines a fetch unit refers to at most: seven buffers, four queued and six LS pipe line
/// requests of two halves each, and two addresses ahead.
const MAX_HALVES: usize = 7 + 2 * (4 + 6) + 2;

/// Where a store in a repeated repetition would change what the real fetch unit fetches or
/// holds: the quadwords of the path, and the half-lines the fetch unit refers to. A line
/// that fetch loads within a repetition either feeds the path, or is still held (or
/// requested) at the end, where the fetch unit's state is the one the comparison found, or
/// was replaced and left no trace.
#[derive(Clone, Copy, Debug)]
pub(super) struct FetchReads {
    /// The first and the last quadword address of the path.
    code: (u32, u32),
    halves: [u32; MAX_HALVES],
    count: usize,
}

impl FetchReads {
    pub(super) const NONE: FetchReads = FetchReads {
        code: (0, 0),
        halves: [0; MAX_HALVES],
        count: 0,
    };

    /// Whether a store to the quadword at `address` may change what fetch reads.
    #[inline(always)]
    fn hit_by(&self, address: u32) -> bool {
        (self.code.0..=self.code.1).contains(&address)
            || self.halves[..self.count].contains(&(address & !(HALF_BYTES - 1)))
    }
}

impl Pipeline {
    /// Reads the repetition's `n` instructions (fetched since the anchor) from the window
    /// and where fetch reads while repeating them ([`FetchReads`]); `false` if one is gone,
    /// is not ordinary (see [`repeatable`]), differs from the word in the local store now,
    /// or the counters do not show one repetition of `n` completions.
    pub(super) fn read_path_real(&mut self, arch: &SpuState, n: usize) -> bool {
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
            if record.serializing
                || record.illegal
                || word != record.instruction.word
                || !repeatable(decoded.get(record.pc, word))
            {
                return false;
            }
            low = low.min(record.pc & !15);
            high = high.max(record.pc & !15);
        }
        self.fast_forward.fetch_reads.code = (low, high);
        true
    }

    /// Runs up to `times` repetitions of the `n`-instruction path just fetched, each on
    /// trial (see the module documentation); returns how many completed. The timing state
    /// is moved on by the caller.
    pub(super) fn repeat_real(
        &mut self,
        arch: &mut SpuState,
        n: usize,
        cycles: u64,
        times: u64,
    ) -> u64 {
        let Some(mut oldest) = self.oldest_in_flight(arch, |_| true) else {
            return 0;
        };
        let n = n as u64;
        let now = self.clock;
        let arch_lag = self.fast_forward.arch_lag();
        let reads = self.fast_forward.fetch_reads;
        for done in 0..times {
            // Fetch side: the next `n` instructions, as fetch fetched the last `n` (the
            // completion side may reach into them).
            let last = self.issue.last_seq();
            for seq in last + 1 - n..=last {
                let record = *self.issue.in_flight(seq);
                self.issue.append(&record);
            }
            // Completion side: the `n` oldest instructions in flight, as stage o would
            // complete them in these cycles.
            let journal = &mut self.fast_forward.journal;
            if !arch.begin_trial(journal) {
                return done;
            }
            let mut nops = 0;
            for seq in oldest..oldest + n {
                let inflight = self.issue.in_flight(seq);
                let trial = arch.try_execute(&inflight.instruction, journal);
                let on_path = arch.pc() == inflight.predicted_next;
                match trial {
                    Some(trial) if on_path && !trial.stored.is_some_and(|at| reads.hit_by(at)) => {
                        nops += u64::from(trial.is_nop);
                    }
                    _ => {
                        arch.undo_trial(journal);
                        self.issue.forget_fetched_after(last);
                        return done;
                    }
                }
            }
            oldest += n;
            let completed_at = now + (done + 1) * cycles - arch_lag;
            arch.retire_replayed_run(n, nops, arch.pc(), completed_at);
        }
        times
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
