//! The fast-forward with an observer listening: what the observer heard during one
//! repetition of a loop, kept as notes and replayed for each repetition skipped.
//!
//! The fast-forward's argument (see [`fast_forward`](super)) covers the
//! notifications too: between two passes over a loop head the model notifies its observer in
//! an order and at cycles that follow from the timing state and the path alone. The values
//! computed enter only the completion reports (a load's or a store's address), and those the
//! repeated instructions supply: under ideal fetch from the effects the shadow recorded, under
//! the real fetch unit from their trial. So while a run notifies, every notification since the
//! anchor is noted: its kind, its cycle relative to the anchor, and what a repetition cannot
//! supply itself (an issue's address and pipe, a stall's reason). A repetition skipped is then
//! told to the observer as the notes say, cycles shifted by the repetitions before it, the
//! `k`-th completion note reporting the repetition's `k`-th oldest instruction: the observer
//! hears the same calls, in the same order, with the same arguments as when every cycle is
//! simulated. An observer that reacts to a count (the PMU feed's overflow) reacts at the same
//! notification.
//!
//! Notes that overflowed, or that do not reach back to the anchor (the run stopped notifying
//! in between), or that hold a mispredict, do not let the fast-forward skip anything while an
//! observer listens; the loop is simulated cycle by cycle as without the fast-forward.

use crate::spu::exec::Executed;
use crate::spu::isa::Instruction;
use crate::spu::pipeline::model::inflight::InFlight;
use crate::spu::pipeline::model::notification::{Completion, Note};
use crate::spu::pipeline::model::sizes::MAX_REPETITION;
use crate::spu::probes::{IssueEvent, SpuObserver, StallReason};

/// Notes kept for one repetition at most: a repetition of [`MAX_REPETITION`] instructions
/// notifies each completion and each issue, and a cycle or a stall between them.
const NOTES: usize = 4 * MAX_REPETITION;

/// The notes since the anchor (see the module documentation).
#[derive(Clone)]
pub(in crate::spu::pipeline) struct Notes {
    notes: [Note; NOTES],
    count: usize,
    /// The notes hold every notification since the anchor.
    whole: bool,
    /// The run notifies.
    recording: bool,
    /// The anchor will be compared with: notes taken now may be replayed.
    armed: bool,
    /// The clock at the anchor.
    anchor_clock: u64,
    /// Completion notes among them.
    completions: usize,
    /// A mispredict among them.
    mispredicted: bool,
}

impl Notes {
    /// No notes, not recording.
    pub(in crate::spu::pipeline) const fn new() -> Self {
        Notes {
            notes: [Note::Cycle; NOTES],
            count: 0,
            whole: false,
            recording: false,
            armed: false,
            anchor_clock: 0,
            completions: 0,
            mispredicted: false,
        }
    }

    /// Whether notifications are noted: the run notifies and the anchor will be compared
    /// with.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn recording(&self) -> bool {
        self.recording && self.armed
    }

    /// A run starts that notifies (`true`) or does not: a run that does not notify leaves
    /// the notes short of the anchor.
    pub(in crate::spu::pipeline) fn set_recording(&mut self, recording: bool) {
        if !recording {
            self.whole = false;
        }
        self.recording = recording;
    }

    /// The anchor will not be compared with (the fast-forward waits some passes, or forgot
    /// the loop): nothing is noted until the next anchor.
    pub(in crate::spu::pipeline) fn disarm(&mut self) {
        self.armed = false;
        self.whole = false;
    }

    /// The anchor moved to `clock`: the notes start again, whole if recording.
    pub(in crate::spu::pipeline) fn restart(&mut self, clock: u64) {
        self.armed = true;
        self.count = 0;
        self.completions = 0;
        self.mispredicted = false;
        self.whole = self.recording;
        self.anchor_clock = clock;
    }

    /// Notes `note`, a notification in cycle `cycle` (its offset, if it has one, is set
    /// here from the anchor's clock). Out of line: one copy for every observer.
    #[inline(never)]
    pub(in crate::spu::pipeline) fn note(&mut self, cycle: u64, mut note: Note) {
        let Ok(cycle_offset) = u32::try_from(cycle.wrapping_sub(self.anchor_clock)) else {
            self.whole = false;
            return;
        };
        match &mut note {
            Note::Retired { offset } => {
                *offset = cycle_offset;
                self.completions += 1;
            }
            Note::Issue { offset, .. } => *offset = cycle_offset,
            Note::Mispredict => self.mispredicted = true,
            _ => {}
        }
        match self.notes.get_mut(self.count) {
            Some(slot) => {
                *slot = note;
                self.count += 1;
            }
            None => self.whole = false,
        }
    }

    /// The notes since the anchor, as they are.
    pub(in crate::spu::pipeline) fn recorded(&self) -> &[Note] {
        &self.notes[..self.count]
    }

    /// Whether the notes of the repetition since the anchor can be replayed: whole, with
    /// `completions` completion notes and no mispredict.
    pub(in crate::spu::pipeline) fn replayable(&self, completions: usize) -> bool {
        self.whole && self.completions == completions && !self.mispredicted
    }
}

/// The notifications a replay makes: [`SpuObserver`]'s, less instruction mode's batches
/// and the mispredicts (notes with one are not replayed), so that an observer seen through
/// `dyn` brings no copy of those into the firmware.
pub(in crate::spu::pipeline) trait Replayed {
    fn cycles(&self, n: u64);
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64);
    fn issue(&self, event: IssueEvent);
    fn issue_stall(&self, reason: StallReason);
    fn stalled_cycles(&self, reason: StallReason, n: u64);
}

impl<O: SpuObserver> Replayed for O {
    fn cycles(&self, n: u64) {
        SpuObserver::cycles(self, n);
    }
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        SpuObserver::retired(self, instruction, executed, cycle);
    }
    fn issue(&self, event: IssueEvent) {
        SpuObserver::issue(self, event);
    }
    fn issue_stall(&self, reason: StallReason) {
        SpuObserver::issue_stall(self, reason);
    }
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        SpuObserver::stalled_cycles(self, reason, n);
    }
}

/// Tells `observer` of one repetition whose cycles follow cycle `start` (the anchor's
/// counterpart), as `notes` say; `completions[k]` completed the repetition's `k`-th oldest
/// instruction, `in_flight(k)`.
pub(in crate::spu::pipeline) fn replay<'i>(
    notes: &[Note],
    start: u64,
    observer: &dyn Replayed,
    completions: &[Completion],
    in_flight: impl Fn(usize) -> &'i InFlight,
) {
    let mut completed = 0;
    for note in notes {
        match *note {
            Note::Cycle => observer.cycles(1),
            Note::Retired { offset } => {
                let inflight = in_flight(completed);
                let executed = completions
                    .get(completed)
                    .unwrap_or(&Completion::NONE)
                    .report(inflight);
                completed += 1;
                observer.retired(&inflight.instruction, &executed, start + u64::from(offset));
            }
            // Not in notes that are replayed (see `replayable`).
            Note::Mispredict => {}
            Note::Issue {
                offset,
                pc,
                pipe,
                dual,
            } => observer.issue(IssueEvent {
                cycle: start + u64::from(offset),
                pc,
                pipe,
                dual,
            }),
            Note::IssueStall(reason) => observer.issue_stall(reason),
            Note::StalledCycles(reason, n) => observer.stalled_cycles(reason, n),
        }
    }
}
