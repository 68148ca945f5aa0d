//! Identity of one hardware counter: the cycle counter or an event counter.
#![forbid(unsafe_code)]

use core::fmt;

use super::backend::PmuRegister;
use super::regs::CYCLE_COUNTER_BIT;

/// A hardware counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Counter {
    /// PMCCNTR_EL0 (counts CPU_CYCLES).
    Cycle,
    /// PMEVCNTR&lt;n&gt;_EL0.
    Event(u8),
}

impl Counter {
    /// Bit in PMCNTEN/PMOVS/PMINTEN, and slot in a [`Snapshot`](super::Snapshot).
    pub const fn index(self) -> u32 {
        match self {
            Self::Cycle => CYCLE_COUNTER_BIT,
            Self::Event(n) => n as u32,
        }
    }
    pub(super) const fn from_index(i: u32) -> Self {
        if i == CYCLE_COUNTER_BIT {
            Self::Cycle
        } else {
            Self::Event(i as u8)
        }
    }
    pub(super) const fn register(self) -> PmuRegister {
        match self {
            Self::Cycle => PmuRegister::Ccntr,
            Self::Event(n) => PmuRegister::EvCntr(n),
        }
    }
    /// The counter's bit in PMCNTEN/PMOVS/PMINTEN; 0 for an index no register has.
    pub(super) const fn bit(self) -> u64 {
        if self.index() < 32 {
            1u64 << self.index()
        } else {
            0
        }
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cycle => f.write_str("PMCCNTR_EL0"),
            Self::Event(n) => write!(f, "PMEVCNTR{n}_EL0"),
        }
    }
}
