//! Why a PMU driver operation failed.
#![forbid(unsafe_code)]

use core::fmt;

use super::backend::AccessError;
use super::counter::Counter;
use super::event::Event;
use super::info::PmuVersion;

/// Driver errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// No usable PMUv3 (PMUVer is 0 or 0xF).
    NoPmu(PmuVersion),
    /// PMCEID says the PMU does not implement this common event.
    EventNotImplemented(Event),
    /// The event number does not fit the PMU's event field (PMEVTYPER.evtCount is 10 bits on
    /// PMUv3, 16 from PMUv3p1): programming it would count another event.
    EventTooWide {
        /// The event asked for.
        event: Event,
        /// Bits of evtCount the PMU implements.
        bits: u8,
    },
    /// Every suitable counter is in use.
    NoFreeCounter,
    /// A 64-bit count on 32-bit event counters needs an even counter and the odd one above it
    /// (CHAIN), and no such pair is free.
    NoFreeCounterPair,
    /// The counter belongs to a chained pair (a 64-bit count on two 32-bit counters): the pair
    /// is read, preloaded and released through its even counter, and a
    /// [`CounterGroup`](super::CounterGroup) does not read pairs.
    ChainedPair(Counter),
    /// The counter cannot overflow after this many events: a 32-bit counter overflows after at
    /// most 2^32, and a period of 0 never comes.
    PeriodOutOfRange {
        /// The counter.
        counter: Counter,
        /// The period asked for.
        period: u64,
    },
    /// Event counter index >= PMCR.N.
    CounterOutOfRange(u8),
    /// The counter is not programmed.
    NotProgrammed(Counter),
    /// The counter is already programmed.
    CounterBusy(Counter),
    /// A register access the CPU would trap.
    Access(AccessError),
}

impl From<AccessError> for Error {
    fn from(e: AccessError) -> Self {
        Self::Access(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoPmu(v) => write!(f, "no usable PMUv3 (PMUVer: {v})"),
            Self::EventNotImplemented(e) => write!(f, "event {e} is not implemented by this PMU"),
            Self::EventTooWide { event, bits } => write!(
                f,
                "event {event} does not fit this PMU's {bits}-bit event number field"
            ),
            Self::NoFreeCounter => f.write_str("no free PMU counter"),
            Self::NoFreeCounterPair => f.write_str(
                "no free even/odd pair of PMU event counters for a chained 64-bit count",
            ),
            Self::ChainedPair(c) => write!(
                f,
                "{c} belongs to a chained counter pair: use the pair's even counter, outside a group"
            ),
            Self::PeriodOutOfRange { counter, period } => write!(
                f,
                "{counter} cannot overflow after {period} events (32-bit counters: 1..=2^32)"
            ),
            Self::CounterOutOfRange(n) => {
                write!(f, "event counter {n} does not exist (n >= PMCR.N)")
            }
            Self::NotProgrammed(c) => write!(f, "{c} is not programmed"),
            Self::CounterBusy(c) => write!(f, "{c} is already programmed"),
            Self::Access(e) => write!(f, "PMU register access: {e}"),
        }
    }
}

impl core::error::Error for Error {}
