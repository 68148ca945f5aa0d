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
