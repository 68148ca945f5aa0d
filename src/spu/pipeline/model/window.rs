//! The instruction window: every instruction in flight, stored once.
//!
//! An instruction is written into the window when it enters issue stage g and gets its fetch
//! sequence number there; the issue stages and the execution pipes then hold only that number
//! (0 for an empty slot). Moving a number between stages each cycle is what keeps the model
//! fast: moving the decoded records themselves was a third of the time of every cycle.
//!
//! The entry for sequence number `s` is `s % WINDOW`; it is reused [`WINDOW`] fetches later,
//! when no stage and no kept execution row refers to it any more (the argument is in
//! [`sizes`](super::sizes), which checks it at compile time). Views of old rows check the
//! stored sequence number anyway ([`Window::get`]).

use super::inflight::{EMPTY_INFLIGHT, InFlight};
use super::sizes::WINDOW;
use crate::spu::exec::{Quadword, StateWrite};

/// What the ideal fetch's shadow saw an instruction do, for stage o to apply instead of
/// interpreting the instruction a second time (see
/// [`SpuState::retire_replayed`](crate::spu::exec::SpuState::retire_replayed)): bit flags, with the
/// value and the address kept beside them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Effect(u8);

impl Effect {
    /// An effect was recorded.
    const RECORDED: u8 = 1;
    /// The target register receives the value.
    pub const WRITES_TARGET: u8 = 2;
    /// The quadword at the address receives the value.
    pub const STORES: u8 = 4;
    /// A quadword load from the address.
    pub const LOADS: u8 = 8;
    /// A branch was taken.
    pub const BRANCH_TAKEN: u8 = 16;
    /// The instruction counts as a NOP.
    pub const NOP: u8 = 32;

    /// An effect with these flags.
    #[inline(always)]
    pub fn new(flags: u8) -> Self {
        Effect(flags | Self::RECORDED)
    }

    /// Whether `flag` is set.
    #[inline(always)]
    pub fn has(self, flag: u8) -> bool {
        self.0 & flag != 0
    }

    /// The state the effect of `inflight` writes, with the recorded `address`.
    #[inline(always)]
    pub fn state_write(self, inflight: &InFlight, address: u32) -> StateWrite {
        if self.has(Self::WRITES_TARGET) {
            StateWrite::Register(inflight.target)
        } else if self.has(Self::STORES) {
            StateWrite::Store(address)
        } else {
            StateWrite::Nothing
        }
    }
}

/// The records of the instructions in flight, indexed by sequence number.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    entries: [InFlight; WINDOW],
    /// The effect the ideal fetch's shadow recorded for each instruction (0: none), with
    /// its value and address.
    effects: [Effect; WINDOW],
    values: [Quadword; WINDOW],
    addresses: [u32; WINDOW],
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
            effects: [Effect(0); WINDOW],
            values: [Quadword::ZERO; WINDOW],
            addresses: [0; WINDOW],
        }
    }

    #[inline(always)]
    fn index(seq: u64) -> usize {
        (seq % WINDOW as u64) as usize
    }

    /// The entry for `seq`, to write a new record into (with no recorded effect).
    #[inline(always)]
    pub fn at_mut(&mut self, seq: u64) -> &mut InFlight {
        self.effects[Self::index(seq)] = Effect(0);
        &mut self.entries[Self::index(seq)]
    }

    /// Records what the shadow saw instruction `seq` do: `effect`, with `value` and
    /// `address` where its flags use them.
    #[inline(always)]
    pub(crate) fn set_effect(&mut self, seq: u64, effect: Effect, value: Quadword, address: u32) {
        let index = Self::index(seq);
        self.effects[index] = effect;
        self.values[index] = value;
        self.addresses[index] = address;
    }

    /// The effect recorded for `seq` with its value and address, if one was.
    #[inline(always)]
    pub(crate) fn effect(&self, seq: u64) -> Option<(Effect, &Quadword, u32)> {
        let index = Self::index(seq);
        let effect = self.effects[index];
        effect
            .has(Effect::RECORDED)
            .then(|| (effect, &self.values[index], self.addresses[index]))
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
