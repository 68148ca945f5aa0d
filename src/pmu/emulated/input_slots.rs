//! What an emulated PMU keeps of its event inputs: one slot per connected event, with the
//! count it holds back and how many more occurrences may arrive before a counter of the event
//! overflows (`inputs.rs` has the inputs and the rules).
#![forbid(unsafe_code)]

use core::cell::Cell;

/// How many events an emulated PMU can have inputs for.
pub const EVENT_INPUTS: usize = 16;

/// One event's input.
#[derive(Debug)]
pub(super) struct Slot {
    /// Occurrences that may still arrive before a counter of the event overflows.
    pub(super) remaining: Cell<u64>,
    /// `remaining` when the pending count was last applied: the pending count is
    /// `budget - remaining`.
    pub(super) budget: Cell<u64>,
    pub(super) event: Cell<u16>,
}

impl Slot {
    pub(super) const fn new() -> Self {
        Self {
            remaining: Cell::new(0),
            budget: Cell::new(0),
            event: Cell::new(0),
        }
    }

    pub(super) fn pending(&self) -> u64 {
        self.budget.get().saturating_sub(self.remaining.get())
    }
}

/// The inputs of one PMU; the first `used` slots are connected.
#[derive(Debug)]
pub(super) struct Inputs {
    pub(super) slots: [Slot; EVENT_INPUTS],
    pub(super) used: Cell<usize>,
}

impl Inputs {
    pub(super) const fn new() -> Self {
        Self {
            slots: [const { Slot::new() }; EVENT_INPUTS],
            used: Cell::new(0),
        }
    }

    pub(super) fn connected(&self) -> &[Slot] {
        self.slots.get(..self.used.get()).unwrap_or(&[])
    }
}
