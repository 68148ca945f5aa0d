//! Feeds probe points into PMU events, like gem5's `ArmPMU` wiring.
//!
//! Each mapped point gets one [`PmuFeed`], a listener on a `u64` point (the argument is the
//! number of occurrences, e.g. instructions retired this step). A feed forwards that number to
//! every one of its events that the sink is counting.
//!
//! Attachment follows the sink: [`PmuEventCounter::sync_attachments`] attaches a feed to its
//! point while the sink counts at least one of the feed's events and detaches it otherwise, so
//! a point with no counted event stays at its one-load-one-branch cost. Call it after
//! reprogramming the PMU (event types, enables).

use core::cell::{Cell, RefCell};
use core::fmt;

use crate::probe::{Listener, ListenerRef, Manager, ManagerError};

/// The PMU side of the PMU event counter (implemented by the emulated PMU).
pub trait PmuEventSink {
    /// `n` occurrences of `event` happened.
    fn count_event(&mut self, event: u16, n: u64);
    /// Whether some enabled counter counts `event`.
    fn is_counting(&self, event: u16) -> bool;
}

/// Events per mapped point.
pub const EVENTS_PER_POINT: usize = 4;

/// gem5's wiring (`src/arch/arm/pmu.cc`): point name and the PMU events it feeds.
///
/// `ActiveCycles` is gem5's name and `Cycles` a common one; both feed CPU_CYCLES (0x11), so a
/// producer registers only one of them.
pub const GEM5_DEFAULT_MAPPINGS: [(&str, &[u16]); 7] = [
    ("RetiredInsts", &[0x08]),
    ("ActiveCycles", &[0x11]),
    ("Cycles", &[0x11]),
    ("RetiredLoads", &[0x06, 0x13]),
    ("RetiredStores", &[0x07, 0x13]),
    ("RetiredBranches", &[0x21]),
    ("BranchMispredicts", &[0x10, 0x22]),
];

/// What [`PmuEventCounter::sync_attachments`] changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SyncReport {
    /// Feeds newly attached.
    pub attached: usize,
    /// Feeds newly detached.
    pub detached: usize,
    /// Feeds whose attachment could not be changed (see the error).
    pub failed: usize,
}

/// Why a [`PmuEventCounter`] operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PmuCounterError {
    /// The counter already maps its maximum number of points.
    TooManyPoints {
        /// The fixed number of points `M`.
        capacity: usize,
    },
    /// The point already feeds [`EVENTS_PER_POINT`] events.
    TooManyEvents {
        /// The point.
        point: &'static str,
    },
    /// The point already feeds this event.
    DuplicateMapping {
        /// The point.
        point: &'static str,
        /// The event number.
        event: u16,
    },
    /// Some feeds could not be attached or detached; the others were.
    Sync {
        /// What happened overall.
        report: SyncReport,
        /// The first failure.
        error: ManagerError<'static>,
    },
}

impl fmt::Display for PmuCounterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooManyPoints { capacity } => {
                write!(f, "PMU event counter is full ({capacity} points)")
            }
            Self::TooManyEvents { point } => write!(
                f,
                "point \"{point}\" already feeds {EVENTS_PER_POINT} PMU events"
            ),
            Self::DuplicateMapping { point, event } => {
                write!(f, "point \"{point}\" already feeds PMU event {event:#x}")
            }
            Self::Sync { report, error } => write!(
                f,
                "{} PMU feeds could not be (de)attached, first: {error}",
                report.failed
            ),
        }
    }
}

impl core::error::Error for PmuCounterError {}

/// The listener for one mapped point.
pub struct PmuFeed<'s, S> {
    sink: &'s RefCell<S>,
    point: &'static str,
    events: heapless::Vec<u16, EVENTS_PER_POINT>,
    attached: Cell<bool>,
    reentrant_drops: Cell<u64>,
}

impl<S: PmuEventSink> PmuFeed<'_, S> {
    /// The point's name.
    pub fn point(&self) -> &'static str {
        self.point
    }

    /// The PMU events this point feeds.
    pub fn events(&self) -> &[u16] {
        &self.events
    }

    /// Whether the feed is attached to its point.
    pub fn is_attached(&self) -> bool {
        self.attached.get()
    }

    /// Whether the sink counts any of this feed's events.
    pub fn is_wanted(&self) -> bool {
        match self.sink.try_borrow() {
            Ok(sink) => self.events.iter().any(|&event| sink.is_counting(event)),
            Err(_) => self.attached.get(),
        }
    }

    /// Notifications lost because the sink was already borrowed, i.e. the sink's own
    /// `count_event` led back into a feed.
    pub fn reentrant_drops(&self) -> u64 {
        self.reentrant_drops.get()
    }
}

impl<S: PmuEventSink> Listener<u64> for PmuFeed<'_, S> {
    fn notify(&self, occurrences: &u64) {
        match self.sink.try_borrow_mut() {
            Ok(mut sink) => {
                for &event in &self.events {
                    if sink.is_counting(event) {
                        sink.count_event(event, *occurrences);
                    }
                }
            }
            Err(_) => self
                .reentrant_drops
                .set(self.reentrant_drops.get().saturating_add(1)),
        }
    }
}

/// Maps up to `M` probe points to PMU events of one sink.
pub struct PmuEventCounter<'s, S, const M: usize> {
    sink: &'s RefCell<S>,
    feeds: heapless::Vec<PmuFeed<'s, S>, M>,
}

impl<'s, S: PmuEventSink, const M: usize> PmuEventCounter<'s, S, M> {
    /// A counter with no mapping.
    pub const fn new(sink: &'s RefCell<S>) -> Self {
        Self {
            sink,
            feeds: heapless::Vec::new(),
        }
    }

    /// A counter with gem5's mappings ([`GEM5_DEFAULT_MAPPINGS`]); needs `M >= 7`.
    pub fn with_gem5_defaults(sink: &'s RefCell<S>) -> Result<Self, PmuCounterError> {
        let mut counter = Self::new(sink);
        for (point, events) in GEM5_DEFAULT_MAPPINGS {
            for &event in events {
                counter.map(point, event)?;
            }
        }
        Ok(counter)
    }

    /// Makes `point` feed `event` as well.
    pub fn map(&mut self, point: &'static str, event: u16) -> Result<(), PmuCounterError> {
        if let Some(feed) = self.feeds.iter_mut().find(|feed| feed.point == point) {
            if feed.events.contains(&event) {
                return Err(PmuCounterError::DuplicateMapping { point, event });
            }
            return feed
                .events
                .push(event)
                .map_err(|_| PmuCounterError::TooManyEvents { point });
        }
        let mut events = heapless::Vec::new();
        // Cannot fail: EVENTS_PER_POINT > 0.
        let _ = events.push(event);
        self.feeds
            .push(PmuFeed {
                sink: self.sink,
                point,
                events,
                attached: Cell::new(false),
                reentrant_drops: Cell::new(0),
            })
            .map_err(|_| PmuCounterError::TooManyPoints { capacity: M })
    }

    /// The feeds, one per mapped point.
    pub fn feeds(&self) -> &[PmuFeed<'s, S>] {
        &self.feeds
    }

    /// The feed of `point`.
    pub fn feed(&self, point: &str) -> Option<&PmuFeed<'s, S>> {
        self.feeds.iter().find(|feed| feed.point == point)
    }
}

impl<S: PmuEventSink + 'static, const M: usize> PmuEventCounter<'static, S, M> {
    /// Attaches each feed to the point of its name in `manager` while the sink counts one of
    /// its events, and detaches it otherwise.
    ///
    /// Every feed is handled even if one fails; a wanted point that is not registered is an
    /// error ([`ManagerError::UnknownPoint`]), reported after the others were synchronised.
    /// Needs `'static` because points in a [`Manager`] take `'static` listeners.
    pub fn sync_attachments<const P: usize>(
        &'static self,
        manager: &Manager<'_, P>,
    ) -> Result<SyncReport, PmuCounterError> {
        let mut report = SyncReport::default();
        let mut first_error = None;
        for feed in &self.feeds {
            let wanted = feed.is_wanted();
            if wanted == feed.attached.get() {
                continue;
            }
            let listener: ListenerRef<'static, u64> = ListenerRef::Object(feed);
            let result = if wanted {
                manager.connect(feed.point, listener)
            } else {
                manager.disconnect(feed.point, listener)
            };
            match result {
                Ok(()) => {
                    feed.attached.set(wanted);
                    if wanted {
                        report.attached += 1;
                    } else {
                        report.detached += 1;
                    }
                }
                Err(error) => {
                    report.failed += 1;
                    first_error.get_or_insert(error);
                }
            }
        }
        match first_error {
            None => Ok(report),
            Some(error) => Err(PmuCounterError::Sync { report, error }),
        }
    }
}

/// The emulated PMUv3 is the sink the SPU model's probe points feed: each event goes to
/// [`EmulatedPmu::count`](crate::pmu::EmulatedPmu::count), which applies the architecture's
/// enables, EL filters and overflow rules.
impl PmuEventSink for crate::pmu::EmulatedPmu {
    fn count_event(&mut self, event: u16, n: u64) {
        self.count(event, n);
    }
    fn is_counting(&self, event: u16) -> bool {
        crate::pmu::EmulatedPmu::is_counting(self, event)
    }
}

/// A shared emulated PMU (its state is in `Cell`s), e.g. one that a [`Pmu`](crate::pmu::Pmu)
/// driver programs through the same reference.
impl PmuEventSink for &crate::pmu::EmulatedPmu {
    fn count_event(&mut self, event: u16, n: u64) {
        self.count(event, n);
    }
    fn is_counting(&self, event: u16) -> bool {
        crate::pmu::EmulatedPmu::is_counting(self, event)
    }
}
