//! Why a listener could not be attached to or detached from a probe point. A leaf: the points
//! and the manager report it.
#![forbid(unsafe_code)]

use core::fmt;

/// Why a listener could not be attached to or detached from a [`ProbePoint`](super::ProbePoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ProbeError {
    /// The point already holds its maximum number of listeners.
    CapacityExceeded {
        /// The point's fixed listener capacity.
        capacity: usize,
    },
    /// The same listener (same function or same object) is already attached to this point.
    DuplicateListener,
    /// The listener to remove is not attached to this point.
    NotAttached,
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CapacityExceeded { capacity } => {
                write!(f, "probe point is full ({capacity} listeners)")
            }
            Self::DuplicateListener => f.write_str("listener is already attached to this point"),
            Self::NotAttached => f.write_str("listener is not attached to this point"),
        }
    }
}

impl core::error::Error for ProbeError {}
