//! Interval mode, as `perf stat -I N`: readings taken every N units of a clock while a workload
//! runs, kept in a fixed ring that counts what it drops, and turned into per-interval counts
//! when they are printed.
//!
//! Taking a reading and printing it are apart on purpose: a reading is a few counter reads
//! (cheap, and it may run where printing cannot, in an interrupt handler or between two slices
//! of a workload), printing goes through a console at its own pace. Readings are cumulative
//! (counts and times since the start), so a reading the ring had to drop loses no count: the
//! next interval printed covers its time.
#![forbid(unsafe_code)]

use core::fmt;

use super::reading::Readings;

/// One reading of interval mode: when, and every event's cumulative reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntervalReading<const EVENTS: usize> {
    /// When it was taken, on the interval clock (generic-timer ticks on bare metal).
    pub time: u64,
    /// Every event's raw count, time enabled and time running since the start.
    pub readings: Readings<EVENTS>,
}

/// A fixed ring of `N` interval readings. When it is full a new reading is dropped and
/// counted ([`dropped`](Self::dropped)), so no reading is lost without a trace; the readings
/// kept stay in order, oldest first.
///
/// ```
/// use pmprobe::pmu::{IntervalReading, IntervalRing, Readings};
/// let mut ring = IntervalRing::<2, 4>::new();
/// for time in [10, 20, 30] {
///     ring.push(IntervalReading { time, readings: Readings::new() });
/// }
/// assert_eq!((ring.len(), ring.dropped()), (2, 1)); // the third did not fit
/// assert_eq!(ring.pop().map(|r| r.time), Some(10));
/// ```
#[derive(Debug)]
pub struct IntervalRing<const N: usize, const EVENTS: usize> {
    queue: heapless::Deque<IntervalReading<EVENTS>, N>,
    dropped: u64,
}

impl<const N: usize, const EVENTS: usize> Default for IntervalRing<N, EVENTS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const EVENTS: usize> IntervalRing<N, EVENTS> {
    /// An empty ring.
    pub const fn new() -> Self {
        Self {
            queue: heapless::Deque::new(),
            dropped: 0,
        }
    }

    /// Keeps `reading` at the end; `false` (and one more dropped) when the ring is full.
    pub fn push(&mut self, reading: IntervalReading<EVENTS>) -> bool {
        if self.queue.push_back(reading).is_ok() {
            true
        } else {
            self.dropped = self.dropped.saturating_add(1);
            false
        }
    }

    /// The oldest reading kept, taken out.
    pub fn pop(&mut self) -> Option<IntervalReading<EVENTS>> {
        self.queue.pop_front()
    }

    /// Readings kept.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no reading is kept.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The fixed capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Readings dropped because the ring was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

/// An interval of zero length: it would be due at every poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ZeroInterval;

impl fmt::Display for ZeroInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an interval must be at least one clock unit long")
    }
}

impl core::error::Error for ZeroInterval {}

/// When the next reading of interval mode is due, on a clock the caller reads.
///
/// [`poll`](Self::poll) says whether a period has ended; a caller that polls late gets one
/// reading for the periods it missed (the reading's time tells how long its interval was),
/// and the next one is due at the next multiple of the period after the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalTimer {
    period: u64,
    next: u64,
}

impl IntervalTimer {
    /// Readings every `period` clock units from `start`.
    pub const fn new(start: u64, period: u64) -> Result<Self, ZeroInterval> {
        if period == 0 {
            return Err(ZeroInterval);
        }
        Ok(Self {
            period,
            next: start.saturating_add(period),
        })
    }

    /// Whether a reading is due at `now`; if so, the next one is due at the first multiple of
    /// the period after `now`.
    ///
    /// ```
    /// use pmprobe::pmu::IntervalTimer;
    /// let mut timer = IntervalTimer::new(1000, 100).unwrap();
    /// assert!(!timer.poll(1099));
    /// assert!(timer.poll(1100));
    /// assert!(timer.poll(1350)); // late: one reading for the periods that ended
    /// assert_eq!(timer.next_due(), 1400);
    /// ```
    pub fn poll(&mut self, now: u64) -> bool {
        if now < self.next {
            return false;
        }
        let behind = (now - self.next) / self.period;
        self.next = self
            .next
            .saturating_add(behind.saturating_add(1).saturating_mul(self.period));
        true
    }

    /// The clock value at which the next reading is due.
    pub const fn next_due(&self) -> u64 {
        self.next
    }

    /// The period.
    pub const fn period(&self) -> u64 {
        self.period
    }
}

/// Turns cumulative interval readings into intervals, as perf stat `-I` prints them: each
/// reading's counts and times less the previous reading's.
#[derive(Debug, Clone)]
pub struct IntervalDeltas<const EVENTS: usize> {
    start: u64,
    last: Readings<EVENTS>,
}

impl<const EVENTS: usize> IntervalDeltas<EVENTS> {
    /// Intervals counted from `start` (the first interval is the first reading whole).
    pub const fn new(start: u64) -> Self {
        Self {
            start,
            last: Readings::new(),
        }
    }

    /// The interval that ends with `reading`: the time since the start (for the timestamp)
    /// and every event's reading over the interval alone.
    pub fn next(&mut self, reading: &IntervalReading<EVENTS>) -> (u64, Readings<EVENTS>) {
        let interval = reading.readings.since(&self.last);
        self.last.clone_from(&reading.readings);
        (reading.time.wrapping_sub(self.start), interval)
    }
}

/// `ticks` of a clock running at `frequency` Hz, in nanoseconds (0 for a frequency of 0).
///
/// ```
/// assert_eq!(pmprobe::pmu::ticks_to_nanos(62_500_000, 62_500_000), 1_000_000_000);
/// assert_eq!(pmprobe::pmu::ticks_to_nanos(1, 62_500_000), 16);
/// ```
pub fn ticks_to_nanos(ticks: u64, frequency: u64) -> u64 {
    if frequency == 0 {
        return 0;
    }
    let nanos = u128::from(ticks) * 1_000_000_000 / u128::from(frequency);
    u64::try_from(nanos).unwrap_or(u64::MAX)
}
