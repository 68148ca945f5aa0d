//! The fast-forward's memory of one loop head: the definition of [`FastForward`], which the
//! pipeline holds, and what it does on its own (forgetting, noting notifications). What it
//! does with the pipeline is in the `impl Pipeline`s beside it: the method in `mod.rs`, the
//! real fetch unit's part in `real_fetch.rs`.

use super::fetch_reads::FetchReads;
use super::notes::Notes;
use super::timing_state::TimingState;
use crate::spu::exec::Journal;
use crate::spu::pipeline::model::decoded::{Decoded, EMPTY_DECODED};
use crate::spu::pipeline::model::notification::{Completion, Note, NoteSink};
use crate::spu::pipeline::model::sizes::MAX_REPETITION;
use crate::spu::pipeline::model::stats::Statistics;
use crate::spu::probes::SpuObserver;

/// Where a timing state was taken: the counters the next pass is compared against.
#[derive(Clone, Copy)]
pub(super) struct Anchor {
    pub(super) clock: u64,
    pub(super) last_seq: u64,
    pub(super) retired: u64,
    pub(super) stats: Statistics,
}

/// The fast-forward's memory of one loop head (see the module documentation).
#[derive(Clone)]
pub(crate) struct FastForward {
    /// Off (`set_fast_forward(false)`); on is the reset state, all-zero bits.
    pub(super) disabled: bool,
    pub(super) head: Option<u32>,
    pub(super) anchor: Anchor,
    pub(super) state: TimingState,
    pub(super) scratch: TimingState,
    /// The instructions of the repetition, in fetch order.
    pub(super) path: [Decoded; MAX_REPETITION],
    /// The first and the last quadword address holding them.
    pub(super) code: (u32, u32),
    /// Real fetch: where a store would change what fetch reads in a repetition.
    pub(in crate::spu::pipeline) fetch_reads: FetchReads,
    /// Real fetch: what a repetition on trial overwrote.
    pub(in crate::spu::pipeline) journal: Journal<{ 2 * MAX_REPETITION }>,
    /// Passes over the head to let go by before comparing again, and the mismatches in a
    /// row (the wait doubles with each, so code that never repeats pays little).
    pub(super) wait: u32,
    pub(super) mismatches: u32,
    /// Cycles skipped since the pipeline was made.
    pub(super) skipped: u64,
    /// What the observer heard since the anchor, while a run notifies.
    pub(in crate::spu::pipeline) notes: Notes,
    /// The completions of the repetition being repeated, for the observer.
    pub(in crate::spu::pipeline) completions: [Completion; MAX_REPETITION],
}

impl FastForward {
    /// On, with nothing remembered.
    pub const fn new() -> Self {
        FastForward {
            disabled: false,
            head: None,
            anchor: Anchor {
                clock: 0,
                last_seq: 0,
                retired: 0,
                stats: Statistics::new(),
            },
            state: TimingState::new(),
            scratch: TimingState::new(),
            path: [EMPTY_DECODED; MAX_REPETITION],
            code: (0, 0),
            fetch_reads: FetchReads::NONE,
            journal: Journal::new(),
            wait: 0,
            mismatches: 0,
            skipped: 0,
            notes: Notes::new(),
            completions: [Completion::NONE; MAX_REPETITION],
        }
    }

    /// Whether repetitions may be skipped.
    pub fn enabled(&self) -> bool {
        !self.disabled
    }

    /// Forgets the loop head (the pipeline was flushed or the statistics reset).
    pub(in crate::spu::pipeline) fn forget(&mut self) {
        self.head = None;
        self.wait = 0;
        self.mismatches = 0;
        self.notes.disarm();
    }

    /// The fetch sequence number of the last instruction fetched before the anchor.
    pub(in crate::spu::pipeline) fn anchor_last_seq(&self) -> u64 {
        self.anchor.last_seq
    }

    /// Cycles between the clock and the architectural state's last completion at the
    /// anchor (the same at every pass of a repetition).
    pub(in crate::spu::pipeline) fn arch_lag(&self) -> u64 {
        self.state.arch_lag
    }

    /// A run starts that notifies an observer (`true`) or does not: notifications are noted
    /// while it does.
    pub(in crate::spu::pipeline) fn set_recording(&mut self, recording: bool) {
        self.notes.set_recording(recording);
    }

    pub(in crate::spu::pipeline) fn set_enabled(&mut self, enabled: bool) {
        self.disabled = !enabled;
        self.forget();
    }
}

impl NoteSink for FastForward {
    /// Notes a notification to `observer` of cycle `cycle` while a run notifies (see
    /// [`notes`]). Nothing at all for [`NoProbes`](crate::spu::probes::NoProbes)
    /// and the like: a zero-sized observer whose `is_listening` is `false` folds the test
    /// away (a run only records while its observer listens, so skipping is always right).
    #[inline(always)]
    fn note<O: SpuObserver>(&mut self, observer: &O, cycle: u64, note: Note) {
        let silent = size_of::<O>() == 0 && !observer.is_listening();
        if !silent && self.notes.recording() {
            self.notes.note(cycle, note);
        }
    }
}

impl Default for FastForward {
    fn default() -> Self {
        Self::new()
    }
}
