//! The name of a multiplexer's group. A leaf of its own: the readings (`pmu/reading.rs`) name
//! groups, and the multiplexer builds on the readings.
#![forbid(unsafe_code)]

/// Names a group added to a [`Multiplexer`](super::Multiplexer): its index, in the order
/// groups were added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct GroupId(u8);

impl GroupId {
    /// The group added `index`-th (from 0).
    pub const fn new(index: u8) -> Self {
        Self(index)
    }

    /// Its index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}
