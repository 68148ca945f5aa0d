//! The model's notifications: [`emit`], the one place a notification is made, which tells the
//! observer and hands the same notification, as a [`Note`], to a [`NoteSink`] (the pipeline's
//! fast-forward, which records what a simulated repetition notified and replays it for each
//! one it skips); and the completion reports as plain data.
//!
//! This is the one seam between the model and the shortcuts: the model knows the fast-forward
//! only as a [`NoteSink`], which the shortcuts implement, and reports a completion through a
//! [`Completion`] (which the fast-forward also builds from an instruction on trial). The types
//! name only the model's own vocabulary, so the model imports nothing of the shortcuts.

use crate::spu::exec::{AccessKind, Executed, LsAccess, Ordinary};
use crate::spu::isa::Instruction;
use crate::spu::pipeline::model::inflight::InFlight;
use crate::spu::pipeline::model::window::Effect;
use crate::spu::probes::{IssueEvent, SpuObserver, StallReason};

/// A notification as the model makes it: the observer call, with its arguments.
#[derive(Clone, Copy)]
pub(in crate::spu::pipeline) enum Notification<'a> {
    /// `cycles(1)`: a cycle began.
    Cycle,
    /// `retired(instruction, executed, cycle)`.
    Retired {
        instruction: &'a Instruction,
        executed: &'a Executed,
    },
    /// `mispredict()`.
    Mispredict,
    /// `issue(..)` of the instruction at `pc` to `pipe` (`dual`: with another).
    Issue { pc: u32, pipe: u8, dual: bool },
    /// `issue_stall(reason)`.
    IssueStall(StallReason),
    /// `stalled_cycles(reason, n)`: `n` cycles stalled at once.
    StalledCycles(StallReason, u64),
}

/// What hears every notification besides the observer: the pipeline's fast-forward.
pub(in crate::spu::pipeline) trait NoteSink {
    /// Notes `note`, told to `observer` in cycle `cycle`.
    fn note<O: SpuObserver>(&mut self, observer: &O, cycle: u64, note: Note);
}

/// Tells `observer` of `notification` in cycle `cycle`, then notes it in `sink`. Inlined:
/// with the notification known at the call, only the observer call and the note are left.
#[inline(always)]
pub(in crate::spu::pipeline) fn emit<O: SpuObserver, S: NoteSink>(
    observer: &O,
    sink: &mut S,
    cycle: u64,
    notification: Notification<'_>,
) {
    let note = match notification {
        Notification::Cycle => {
            observer.cycles(1);
            Note::Cycle
        }
        Notification::Retired {
            instruction,
            executed,
        } => {
            observer.retired(instruction, executed, cycle);
            Note::Retired { offset: 0 }
        }
        Notification::Mispredict => {
            observer.mispredict();
            Note::Mispredict
        }
        Notification::Issue { pc, pipe, dual } => {
            observer.issue(IssueEvent {
                cycle,
                pc,
                pipe,
                dual,
            });
            Note::Issue {
                offset: 0,
                pc,
                pipe,
                dual,
            }
        }
        Notification::IssueStall(reason) => {
            observer.issue_stall(reason);
            Note::IssueStall(reason)
        }
        Notification::StalledCycles(reason, n) => {
            observer.stalled_cycles(reason, n);
            Note::StalledCycles(reason, n)
        }
    };
    sink.note(observer, cycle, note);
}

/// One notification of the observer, as data, so that a repetition can repeat it. An explicit
/// tag, `Cycle` 0: the notes of a new pipeline are zero bits (no niche of a field holds the
/// tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(in crate::spu::pipeline) enum Note {
    /// `cycles(1)`.
    Cycle,
    /// `retired(..)` of the next completion, in the cycle `offset` after the anchor (the
    /// notes set the offset).
    Retired { offset: u32 },
    /// `mispredict()`.
    Mispredict,
    /// `issue(..)` in the cycle `offset` after the anchor (the notes set the offset).
    Issue {
        offset: u32,
        pc: u32,
        pipe: u8,
        dual: bool,
    },
    /// `issue_stall(reason)`.
    IssueStall(StallReason),
    /// `stalled_cycles(reason, n)`.
    StalledCycles(StallReason, u64),
}

/// What a repeated instruction's completion report holds beyond its address and word (an
/// ordinary instruction's: retired, the SPU running, no checkpoint). Plain integers, all
/// zero when empty: a new pipeline is all-zero bits and stays out of the firmware image.
#[derive(Clone, Copy, Debug)]
pub(in crate::spu::pipeline) struct Completion {
    next_pc: u32,
    /// The LS address of a load or store.
    address: u32,
    /// [`Self::BRANCH_TAKEN`], [`Self::NOP`], [`Self::READ`], [`Self::WRITE`].
    flags: u8,
}

impl Completion {
    const BRANCH_TAKEN: u8 = 1;
    const NOP: u8 = 2;
    const READ: u8 = 4;
    const WRITE: u8 = 8;

    /// None yet.
    pub(in crate::spu::pipeline) const NONE: Completion = Completion {
        next_pc: 0,
        address: 0,
        flags: 0,
    };

    /// The completion of an instruction on trial that moved the PC to `next_pc`: what it
    /// was, and the quadword it `stored` to if it did.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn of_trial(
        next_pc: u32,
        ordinary: Ordinary,
        stored: Option<u32>,
    ) -> Self {
        let flag = |has: bool, flag: u8| if has { flag } else { 0 };
        let (address, access) = match (ordinary.loaded, stored) {
            (Some(address), _) => (address, Self::READ),
            (None, Some(address)) => (address, Self::WRITE),
            (None, None) => (0, 0),
        };
        Completion {
            next_pc,
            address,
            flags: access
                | flag(ordinary.branch_taken, Self::BRANCH_TAKEN)
                | flag(ordinary.is_nop, Self::NOP),
        }
    }

    /// The completion of `inflight` from the effect the ideal fetch's shadow recorded for
    /// it (at `address` if it loads or stores).
    #[inline(always)]
    pub(in crate::spu::pipeline) fn recorded(
        inflight: &InFlight,
        effect: Effect,
        address: u32,
    ) -> Self {
        let flag = |has: bool, flag: u8| if has { flag } else { 0 };
        Completion {
            next_pc: inflight.predicted_next,
            address,
            flags: flag(effect.has(Effect::BRANCH_TAKEN), Self::BRANCH_TAKEN)
                | flag(effect.has(Effect::NOP), Self::NOP)
                | flag(effect.has(Effect::LOADS), Self::READ)
                | flag(effect.has(Effect::STORES), Self::WRITE),
        }
    }

    /// The report of `inflight`'s completion: what executing it at stage o reports.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn report(&self, inflight: &InFlight) -> Executed {
        let kind = if self.flags & Self::READ != 0 {
            Some(AccessKind::Read)
        } else if self.flags & Self::WRITE != 0 {
            Some(AccessKind::Write)
        } else {
            None
        };
        Executed::retired_running(
            inflight.pc,
            inflight.instruction.word,
            self.next_pc,
            self.flags & Self::BRANCH_TAKEN != 0,
            kind.map(|kind| LsAccess {
                address: self.address,
                size: 16,
                kind,
            }),
            self.flags & Self::NOP != 0,
        )
    }
}
