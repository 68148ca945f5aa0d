//! Event inputs: the lazy way into an emulated PMU, for producers that feed an event often.
//!
//! A hardware PMU counts for free: the event wires into the counters. A model that counts
//! every occurrence on arrival pays for the architecture's rules (enables, EL filters,
//! overflow, freeze) on every notification. An input instead holds its occurrences back as
//! a pending count and lets the counters catch up only when something could tell the
//! difference:
//! - any register access (read or write), and a change of the Exception level;
//! - a count through the eager path ([`EmulatedPmu::count`] of an event without an input);
//! - an overflow falling due. Each input keeps its *budget*: how many more occurrences can
//!   arrive before the first counter counting its event overflows (the minimum over the
//!   enabled, unfiltered counters of that event, the cycle counter's prescaler included). An
//!   occurrence that reaches the budget applies everything at once, so the overflow flag
//!   and the interrupt line change at the exact occurrence that overflows.
//!
//! Between two of those moments no counter counting an input's event changes state other
//! than by that event, and none overflows, so applying the pending counts in one step gives
//! the counters, flags and line that counting on arrival gives. A feed is therefore a
//! compare and a subtraction ([`EventInput::add`]).
#![forbid(unsafe_code)]

use core::fmt;

use super::fields::{EVTCOUNT, pmcr};
use super::input_slots::{EVENT_INPUTS, Slot};
use super::overflow::steps_to_overflow;
use super::state::EmulatedPmu;
use crate::pmu::event::Event;
use crate::pmu::regs::{CYCLE_COUNTER_BIT, INSTRUCTION_COUNTER_BIT};

/// [`EmulatedPmu::event_input`] found every input in use by another event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventInputsFull {
    /// The event that got no input.
    pub event: u16,
    /// Inputs per PMU ([`EVENT_INPUTS`]).
    pub capacity: usize,
}

impl fmt::Display for EventInputsFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no event input left for event {:#x}: all {} are in use",
            self.event, self.capacity
        )
    }
}

impl core::error::Error for EventInputsFull {}

/// One event's wire into an [`EmulatedPmu`]: occurrences fed here count like
/// [`EmulatedPmu::count`] of the event, but lazily.
///
/// The input holds its occurrences back and the counters catch up when something could tell
/// the difference: a register access (read or write), a change of the Exception level, an
/// eager [`count`](EmulatedPmu::count) of an event without an input, or an overflow falling
/// due. For the last one the input keeps how many more occurrences can arrive before the
/// first counter of its event overflows, so [`add`](Self::add) is a compare and a
/// subtraction, and the overflow flag and the interrupt line change at the exact occurrence
/// that overflows. Every register read sees the same values as with eager counting.
///
/// ```
/// use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
/// let cpu = EmulatedPmu::qemu_cortex_a57();
/// let mut pmu = Pmu::new(&cpu)?;
/// let insts = pmu.program(Event::INST_RETIRED)?;
/// pmu.start()?;
/// let retired = cpu.event_input(Event::INST_RETIRED.number()).expect("a free input");
/// for _ in 0..1000 {
///     retired.add(1);
/// }
/// assert_eq!(pmu.read(insts)?, 1000);
/// # Ok::<(), pmprobe::pmu::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct EventInput<'p> {
    pmu: &'p EmulatedPmu,
    slot: &'p Slot,
}

impl EventInput<'_> {
    /// The event this input feeds.
    pub fn event(&self) -> u16 {
        self.slot.event.get()
    }

    /// `n` occurrences of the event, at the PMU's current Exception level.
    #[inline(always)]
    pub fn add(&self, n: u64) {
        let left = self.slot.remaining.get();
        if n < left {
            self.slot.remaining.set(left - n);
        } else {
            self.pmu.input_due(self.slot, n);
        }
    }

    /// How many occurrences [`add`](Self::add) takes before one of them overflows a counter:
    /// an `add(n)` with `n` below it only adds to the pending count.
    #[inline(always)]
    pub fn headroom(&self) -> u64 {
        self.slot.remaining.get()
    }

    /// Occurrences fed but not yet applied to the counters.
    pub fn pending(&self) -> u64 {
        self.slot.pending()
    }
}

impl EmulatedPmu {
    /// The input of `event`: the one already connected for it, or a free one. Inputs stay
    /// connected for the PMU's lifetime; at most [`EVENT_INPUTS`] events have one.
    pub fn event_input(&self, event: u16) -> Result<EventInput<'_>, EventInputsFull> {
        if let Some(input) = self.input_of(event) {
            return Ok(input);
        }
        let used = self.inputs.used.get();
        let slot = self.inputs.slots.get(used).ok_or(EventInputsFull {
            event,
            capacity: EVENT_INPUTS,
        })?;
        let budget = self.budget_of(event);
        slot.event.set(event);
        slot.budget.set(budget);
        slot.remaining.set(budget);
        self.inputs.used.set(used + 1);
        Ok(EventInput { pmu: self, slot })
    }

    /// The input connected for `event`, if any.
    pub(super) fn input_of(&self, event: u16) -> Option<EventInput<'_>> {
        self.inputs
            .connected()
            .iter()
            .find(|slot| slot.event.get() == event)
            .map(|slot| EventInput { pmu: self, slot })
    }

    /// An input's occurrences reached its budget: everything held back is applied (none of
    /// it overflows), then the `n` new occurrences, which may overflow.
    #[cold]
    #[inline(never)]
    fn input_due(&self, slot: &Slot, n: u64) {
        self.apply_pending();
        self.count_now(slot.event.get(), n);
        self.rearm_inputs();
    }

    /// Applies the counts every input holds back. None of them overflows a counter (each is
    /// below its budget) and each event has one input, so the order does not matter; each
    /// budget shrinks by what was applied, which is what `remaining` already says.
    pub(super) fn apply_pending(&self) {
        for slot in self.inputs.connected() {
            let pending = slot.pending();
            if pending != 0 {
                slot.budget.set(slot.remaining.get());
                self.count_now(slot.event.get(), pending);
            }
        }
    }

    /// Recomputes every input's budget after the counting state changed. Nothing may be
    /// pending (call [`apply_pending`](Self::apply_pending) before the change).
    ///
    /// It gives every input [`budget_of`](Self::budget_of) its event, but looks at each event
    /// counter once for all the inputs rather than once per input: every register write
    /// rearms, and a multiplexer's rotation is some thirty writes.
    pub(super) fn rearm_inputs(&self) {
        let connected = self.inputs.connected();
        for slot in connected {
            slot.budget
                .set(self.budget_beside_event_counters(slot.event.get()));
        }
        if !self.frozen() {
            let long = self.long_event_counters_on();
            for i in 0..self.config.n() {
                let typer = self.evtyper_of(i);
                if !self.enabled(u32::from(i)) || !self.filter_allows(typer) {
                    continue;
                }
                let input = connected
                    .iter()
                    .find(|slot| u64::from(slot.event.get()) == typer & EVTCOUNT);
                if let Some(slot) = input
                    && slot.event.get() != Event::SW_INCR.number()
                    && self.implements(slot.event.get())
                {
                    let steps = steps_to_overflow(self.evcntr_of(i), long);
                    slot.budget.set(slot.budget.get().min(steps));
                }
            }
        }
        for slot in connected {
            slot.remaining.set(slot.budget.get());
        }
    }

    /// Occurrences of `event` that can arrive before the first counter counting it overflows
    /// (`u64::MAX` when none counts it: the input then only wakes up every 2^64 - 1).
    fn budget_of(&self, event: u16) -> u64 {
        let mut budget = self.budget_beside_event_counters(event);
        if event != Event::SW_INCR.number() && !self.frozen() && self.implements(event) {
            let long = self.long_event_counters_on();
            for i in (0..self.config.n()).filter(|&i| self.counts_event(i, event)) {
                budget = budget.min(steps_to_overflow(self.evcntr_of(i), long));
            }
        }
        budget
    }

    /// [`budget_of`](Self::budget_of) as far as the cycle counter and the instruction counter
    /// give it (the event counters aside).
    fn budget_beside_event_counters(&self, event: u16) -> u64 {
        let mut budget = u64::MAX;
        if event == Event::SW_INCR.number() {
            return budget;
        }
        if event == Event::CPU_CYCLES.number()
            && self.enabled(CYCLE_COUNTER_BIT)
            && self.filter_allows(self.ccfiltr.get())
        {
            let pmcr = self.pmcr.get();
            let long = pmcr & pmcr::LC != 0;
            let steps = steps_to_overflow(self.ccntr.get(), long);
            // PMCR.D: PMCCNTR steps once every 64 cycles, the first after 64 - prescale.
            let cycles = if pmcr & pmcr::D != 0 && !long {
                steps.saturating_mul(64).saturating_sub(self.prescale.get())
            } else {
                steps
            };
            budget = budget.min(cycles);
        }
        if event == Event::INST_RETIRED.number()
            && self.config.instruction_counter
            && self.enabled(INSTRUCTION_COUNTER_BIT)
            && self.filter_allows(self.icfiltr.get())
        {
            budget = budget.min(steps_to_overflow(self.icntr.get(), true));
        }
        budget
    }
}
