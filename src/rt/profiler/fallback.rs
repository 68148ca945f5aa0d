//! Why the PMU cannot sample (and [`SourceChoice::Auto`](super::SourceChoice::Auto) took the
//! timer): a leaf, which the sources' probe returns and [`start`](super::start) reports.

use core::fmt;

/// What keeps the PMU from sampling (why [`SourceChoice::Auto`](super::SourceChoice::Auto)
/// took the timer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The core has no usable PMU.
    NoPmu,
    /// The PMU does not implement the event (PMCEID0/1).
    EventNotCountable {
        /// The event number.
        event: u16,
    },
    /// The overflow interrupt was not taken within `events` events of the overflow.
    NoOverflowInterrupt {
        /// Events the probe loop ran past the programmed overflow, at least.
        events: u64,
    },
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoPmu => f.write_str("this core has no usable PMU"),
            Self::EventNotCountable { event } => {
                write!(f, "the PMU does not implement event {event:#06x}")
            }
            Self::NoOverflowInterrupt { events } => write!(
                f,
                "the PMU overflow interrupt did not arrive within {events} events of the overflow"
            ),
        }
    }
}

impl core::error::Error for Fallback {}
