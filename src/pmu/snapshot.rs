//! Counter values read at one moment.
#![forbid(unsafe_code)]

use super::counter::Counter;
use super::event::Event;
use super::regs::{CYCLE_COUNTER_BIT, MAX_EVENT_COUNTERS};

/// Number of counter slots in a [`Snapshot`]: 31 event counters and the cycle counter.
pub(super) const SLOTS: usize = 32;

/// Counter values read at one moment, indexed by [`Counter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    pub(super) present: u32,
    pub(super) events: [Event; SLOTS],
    pub(super) counts: [u64; SLOTS],
}

impl Default for Snapshot {
    fn default() -> Self {
        Self::new()
    }
}

impl Snapshot {
    /// An empty snapshot.
    pub const fn new() -> Self {
        Self {
            present: 0,
            events: [Event::SW_INCR; SLOTS],
            counts: [0; SLOTS],
        }
    }
    /// Records `count` of `event` for `counter` (replacing an earlier entry).
    pub fn insert(&mut self, counter: Counter, event: Event, count: u64) {
        let i = counter.index() as usize;
        if let (Some(e), Some(c)) = (self.events.get_mut(i), self.counts.get_mut(i)) {
            *e = event;
            *c = count;
            self.present |= 1 << i;
        }
    }
    /// The count of `counter`, if present.
    pub fn get(&self, counter: Counter) -> Option<u64> {
        if u64::from(self.present) & counter.bit() == 0 {
            return None;
        }
        self.counts.get(counter.index() as usize).copied()
    }
    /// The count of the first counter (cycle counter first, then event counters) that counted
    /// `event`, if any.
    pub fn count_of(&self, event: Event) -> Option<u64> {
        self.iter().find(|(_, e, _)| *e == event).map(|(_, _, c)| c)
    }
    /// Number of counters present.
    pub const fn len(&self) -> u32 {
        self.present.count_ones()
    }
    /// Whether no counter is present.
    pub const fn is_empty(&self) -> bool {
        self.present == 0
    }
    /// `(counter, event, count)` for every counter present: the cycle counter first, then
    /// event counters in index order.
    pub fn iter(&self) -> impl Iterator<Item = (Counter, Event, u64)> + '_ {
        core::iter::once(CYCLE_COUNTER_BIT)
            .chain(0..u32::from(MAX_EVENT_COUNTERS))
            .filter(move |i| self.present & (1 << i) != 0)
            .filter_map(move |i| {
                let e = self.events.get(i as usize)?;
                let c = self.counts.get(i as usize)?;
                Some((Counter::from_index(i), *e, *c))
            })
    }
    /// `self - earlier` per counter present in both (and counting the same event): modular, so
    /// a 64-bit count that wrapped between the two snapshots still gives the right difference.
    pub fn delta(&self, earlier: &Snapshot) -> Snapshot {
        let mut out = Snapshot::new();
        for (counter, event, later) in self.iter() {
            let same_event = earlier.events.get(counter.index() as usize) == Some(&event);
            if u64::from(earlier.present) & counter.bit() != 0
                && same_event
                && let Some(before) = earlier.get(counter)
            {
                out.insert(counter, event, later.wrapping_sub(before));
            }
        }
        out
    }
}
