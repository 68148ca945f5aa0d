//! Why a multiplexer operation failed.
#![forbid(unsafe_code)]

use core::fmt;

use crate::pmu::error::Error;

/// [`Multiplexer`](super::Multiplexer) errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MuxError {
    /// A group needs at least one event.
    EmptyGroup,
    /// The multiplexer holds `capacity` events already (its `EVENTS` parameter).
    TooManyEvents {
        /// Its capacity.
        capacity: usize,
    },
    /// The multiplexer holds `capacity` groups already (its `GROUPS` parameter).
    TooManyGroups {
        /// Its capacity.
        capacity: usize,
    },
    /// The group needs more event counters than the PMU has once the pinned groups have
    /// theirs: it could never be scheduled (perf refuses such a group when it is opened).
    GroupTooLarge {
        /// Event counters the group needs (after the cycle counter, if it is free for it).
        needs: u8,
        /// Event counters left for it.
        available: u8,
    },
    /// The pinned groups together need more counters than are free: they could not all
    /// count all the time, which is what pinned means.
    PinnedDoNotFit {
        /// Event counters the pinned groups need.
        needs: u8,
        /// Event counters free.
        available: u8,
    },
    /// Groups are added before [`start`](super::Multiplexer::start), and it is started once.
    Running,
    /// [`rotate`](super::Multiplexer::rotate) and [`stop`](super::Multiplexer::stop) need a
    /// started multiplexer.
    NotRunning,
    /// The clock went backwards: times must not decrease from call to call.
    ClockWentBack {
        /// The time of the previous call.
        last: u64,
        /// The time given now.
        now: u64,
    },
    /// The driver refused an operation.
    Pmu(Error),
}

impl From<Error> for MuxError {
    fn from(e: Error) -> Self {
        Self::Pmu(e)
    }
}

impl fmt::Display for MuxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyGroup => f.write_str("an event group needs at least one event"),
            Self::TooManyEvents { capacity } => {
                write!(f, "the multiplexer holds its {capacity} events already")
            }
            Self::TooManyGroups { capacity } => {
                write!(f, "the multiplexer holds its {capacity} groups already")
            }
            Self::GroupTooLarge { needs, available } => write!(
                f,
                "the group needs {needs} event counters, {available} are left beside the pinned groups"
            ),
            Self::PinnedDoNotFit { needs, available } => write!(
                f,
                "the pinned groups need {needs} event counters, {available} are free"
            ),
            Self::Running => f.write_str("the multiplexer is running"),
            Self::NotRunning => f.write_str("the multiplexer is not running"),
            Self::ClockWentBack { last, now } => {
                write!(f, "the clock went back from {last} to {now}")
            }
            Self::Pmu(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for MuxError {}
