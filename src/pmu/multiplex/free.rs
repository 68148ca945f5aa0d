//! The counters a schedule may still hand out, and the rule that hands them out.
#![forbid(unsafe_code)]

use crate::pmu::counter::Counter;
use crate::pmu::event::Event;

/// Counters free for scheduling: PMCCNTR_EL0 and a bit mask of the event counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Free {
    /// PMCCNTR_EL0 is free.
    pub(super) cycle: bool,
    /// Bit n: PMEVCNTR&lt;n&gt; is free.
    pub(super) events: u32,
}

impl Free {
    /// Every counter of a PMU with `counters` event counters.
    pub(super) fn idle(counters: u8) -> Self {
        let events = if counters >= 32 {
            u32::MAX
        } else {
            (1u32 << counters) - 1
        };
        Self {
            cycle: true,
            events,
        }
    }

    /// Event counters free.
    pub(super) fn event_counters(self) -> u8 {
        self.events.count_ones() as u8
    }

    /// Event counters a group needs here: all its events, less the one CPU_CYCLES that
    /// PMCCNTR takes while it is free.
    pub(super) fn needs(self, events: &[Event]) -> u8 {
        let cycles = events.contains(&Event::CPU_CYCLES);
        let on_cycle_counter = u8::from(self.cycle && cycles);
        (events.len() as u8).saturating_sub(on_cycle_counter)
    }

    /// Whether every event of the group gets a counter here.
    pub(super) fn fits(self, events: &[Event]) -> bool {
        self.needs(events) <= self.event_counters()
    }

    /// The counter `event` gets, taken from the free ones: PMCCNTR for CPU_CYCLES while it is
    /// free (as Linux's arm_pmuv3 `armv8pmu_get_event_idx` does), else the lowest free event
    /// counter. `None` when nothing suitable is free.
    pub(super) fn take(&mut self, event: Event) -> Option<Counter> {
        if event == Event::CPU_CYCLES && self.cycle {
            self.cycle = false;
            return Some(Counter::Cycle);
        }
        if self.events == 0 {
            return None;
        }
        let index = self.events.trailing_zeros();
        self.events &= !(1 << index);
        Some(Counter::Event(index as u8))
    }

    /// Takes counters for every event of a group; `false` (and nothing taken) when it does not
    /// fit.
    pub(super) fn take_group(&mut self, events: &[Event]) -> bool {
        if !self.fits(events) {
            return false;
        }
        for &event in events {
            let _ = self.take(event);
        }
        true
    }
}
