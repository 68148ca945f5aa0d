//! What a multiplexed event reports, as perf reports it: the raw count, the time the event was
//! enabled and the time it was running on a counter, and the scaled estimate built from them.
#![forbid(unsafe_code)]

use super::event::Event;
use super::multiplex::GroupId;

/// One event's reading: its raw count and its two times, in the unit of the clock the
/// [`Multiplexer`](super::Multiplexer) was given (generic-timer ticks on bare metal, SPU cycles
/// for the SPU model, any monotonic `u64` in tests).
///
/// perf reads the same three numbers from the kernel (`perf_counts_values`: `val`, `ena`,
/// `run`), and [`estimate`](Self::estimate) applies its rules
/// (`perf_counts_values__scale` in `tools/lib/perf/evsel.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventReading {
    /// The event.
    pub event: Event,
    /// The group it was added in.
    pub group: GroupId,
    /// Events counted while the event was on a counter.
    pub raw: u64,
    /// Time the event was enabled (the multiplexer was started).
    pub enabled: u64,
    /// Time the event was on a counter, counting; at most `enabled`.
    pub running: u64,
}

impl EventReading {
    /// The estimate of what the event would have counted over the whole enabled time, perf's
    /// way: `None` when it never ran (`running == 0`: perf prints `<not counted>`), the raw
    /// count when it ran all the time, else `raw × enabled / running`.
    ///
    /// perf computes the product in a `double`; this computes it exactly in 128 bits and
    /// rounds down, which is perf's value wherever the double is exact (below 2^53) and
    /// saturates at `u64::MAX` where perf's would not fit either.
    ///
    /// ```
    /// use pmprobe::pmu::{Event, EventReading, GroupId};
    /// let reading = |raw, running| EventReading {
    ///     event: Event::BR_RETIRED, group: GroupId::new(0), raw, enabled: 300, running,
    /// };
    /// assert_eq!(reading(1000, 100).estimate(), Some(3000)); // ran a third of the time
    /// assert_eq!(reading(1000, 300).estimate(), Some(1000)); // ran all the time: exact
    /// assert_eq!(reading(0, 0).estimate(), None);            // <not counted>
    /// ```
    pub fn estimate(&self) -> Option<u64> {
        if self.running == 0 || self.enabled == 0 {
            return None;
        }
        if self.running >= self.enabled {
            return Some(self.raw);
        }
        let scaled = u128::from(self.raw) * u128::from(self.enabled) / u128::from(self.running);
        Some(u64::try_from(scaled).unwrap_or(u64::MAX))
    }

    /// Whether the event ran less than the whole enabled time (perf then prints the share it
    /// ran, `(xx.xx%)`).
    pub fn is_scaled(&self) -> bool {
        self.running != self.enabled
    }

    /// `100 × running / enabled`, the figure perf prints in parentheses (0 when never
    /// enabled).
    pub fn running_percent(&self) -> f64 {
        if self.enabled == 0 {
            0.0
        } else {
            100.0 * self.running as f64 / self.enabled as f64
        }
    }

    /// What happened between `earlier` and this reading of the same event: every figure's
    /// difference (modular, like counter deltas), as perf stat `-I` computes an interval.
    pub fn since(&self, earlier: &EventReading) -> EventReading {
        EventReading {
            event: self.event,
            group: self.group,
            raw: self.raw.wrapping_sub(earlier.raw),
            enabled: self.enabled.wrapping_sub(earlier.enabled),
            running: self.running.wrapping_sub(earlier.running),
        }
    }
}

/// The readings of every event of a [`Multiplexer`](super::Multiplexer), in the order the
/// events were added: at most `EVENTS`, on the stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readings<const EVENTS: usize> {
    entries: heapless::Vec<EventReading, EVENTS>,
}

impl<const EVENTS: usize> Default for Readings<EVENTS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const EVENTS: usize> Readings<EVENTS> {
    /// No reading.
    pub const fn new() -> Self {
        Self {
            entries: heapless::Vec::new(),
        }
    }

    /// Appends a reading; `false` when `EVENTS` are held already.
    pub fn push(&mut self, reading: EventReading) -> bool {
        self.entries.push(reading).is_ok()
    }

    /// Forgets every reading.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The readings, in the order the events were added.
    pub fn as_slice(&self) -> &[EventReading] {
        &self.entries
    }

    /// The readings, in the order the events were added.
    pub fn iter(&self) -> core::slice::Iter<'_, EventReading> {
        self.entries.iter()
    }

    /// Readings held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no reading is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first reading of `event` (an event may be added more than once, in several
    /// groups).
    pub fn find(&self, event: Event) -> Option<&EventReading> {
        self.entries.iter().find(|reading| reading.event == event)
    }

    /// The reading of `event` in `group`.
    pub fn find_in(&self, event: Event, group: GroupId) -> Option<&EventReading> {
        self.entries
            .iter()
            .find(|reading| reading.event == event && reading.group == group)
    }

    /// The first reading of `event` that ran the whole enabled time (a pinned event, or one
    /// that never had to share): its raw count is exact.
    pub fn exact(&self, event: Event) -> Option<u64> {
        self.entries
            .iter()
            .find(|reading| reading.event == event && !reading.is_scaled() && reading.running > 0)
            .map(|reading| reading.raw)
    }

    /// Every reading's difference from the one at the same position in `earlier` (an
    /// interval, as perf stat `-I` prints it). Positions past `earlier`'s end are taken whole.
    pub fn since(&self, earlier: &Self) -> Self {
        let mut out = Self::new();
        for (index, reading) in self.entries.iter().enumerate() {
            let delta = match earlier.entries.get(index) {
                Some(before) => reading.since(before),
                None => *reading,
            };
            // `out` has the same capacity as `self`.
            let _ = out.entries.push(delta);
        }
        out
    }
}

impl<'r, const EVENTS: usize> IntoIterator for &'r Readings<EVENTS> {
    type Item = &'r EventReading;
    type IntoIter = core::slice::Iter<'r, EventReading>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}
