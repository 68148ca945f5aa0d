//! The instruction window: every instruction in flight, stored once.
//!
//! An instruction is written into the window when it enters issue stage g and gets its fetch
//! sequence number there; the issue stages and the execution pipes then hold only that number
//! (0 for an empty slot). Moving a number between stages each cycle is what keeps the model
//! fast: moving the decoded records themselves was a third of the time of every cycle.
//!
//! The entry for sequence number `s` is `s % WINDOW`. It is overwritten `WINDOW` fetches
//! later. At most two instructions enter stage g per cycle and an instruction stays in flight
//! (issue stages, execution pipes, then the rows kept after stage o for the dependency columns,
//! [`execute::RING`](super::execute::RING) cycles) for fewer than `WINDOW / 2` cycles after the
//! fetch that follows it, so no entry in use is overwritten. Views of old rows check the
//! stored sequence number anyway ([`Window::get`]).

use super::fetch::{EMPTY_INFLIGHT, InFlight};
use crate::spu::exec::Quadword;

/// Entries in the window (a power of two, so the modulo is a mask).
pub const WINDOW: usize = 256;

/// The records of the instructions in flight, indexed by sequence number.
#[derive(Clone, Debug)]
pub struct Window {
    entries: [InFlight; WINDOW],
    /// The target value the ideal fetch's shadow computed for an instruction whose only
    /// effect is its target register, if it did (`computed`): stage o writes it instead of
    /// interpreting the instruction a second time.
    values: [Quadword; WINDOW],
    computed: [bool; WINDOW],
}

impl Default for Window {
    fn default() -> Self {
        Self::new()
    }
}

impl Window {
    /// An empty window (no sequence number resolves).
    pub const fn new() -> Self {
        Window {
            entries: [EMPTY_INFLIGHT; WINDOW],
            values: [Quadword::ZERO; WINDOW],
            computed: [false; WINDOW],
        }
    }

    #[inline(always)]
    fn index(seq: u64) -> usize {
        (seq % WINDOW as u64) as usize
    }

    /// The entry for `seq`, to write a new record into (with no computed value).
    #[inline(always)]
    pub fn at_mut(&mut self, seq: u64) -> &mut InFlight {
        self.computed[Self::index(seq)] = false;
        &mut self.entries[Self::index(seq)]
    }

    /// Records the value the shadow computed for `seq`'s target register.
    #[inline(always)]
    pub fn set_computed(&mut self, seq: u64, value: Quadword) {
        self.values[Self::index(seq)] = value;
        self.computed[Self::index(seq)] = true;
    }

    /// The value computed for `seq`'s target, if one was.
    #[inline(always)]
    pub fn computed(&self, seq: u64) -> Option<Quadword> {
        let index = Self::index(seq);
        self.computed[index].then_some(self.values[index])
    }

    /// The entry for `seq`, for a sequence number that is in flight (the hot path: no check
    /// that the entry still holds it; see the module documentation for why it does).
    #[inline(always)]
    pub fn at(&self, seq: u64) -> &InFlight {
        &self.entries[Self::index(seq)]
    }

    /// The record of `seq` if the window still holds it (0 is never a sequence number).
    pub fn get(&self, seq: u64) -> Option<&InFlight> {
        let entry = &self.entries[Self::index(seq)];
        (seq != 0 && entry.seq == seq).then_some(entry)
    }
}
