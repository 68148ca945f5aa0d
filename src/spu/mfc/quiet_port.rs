//! A memo of the cycles in which no transfer uses the local-store port.
//!
//! While DMA is in flight the pipeline asks, twice a cycle, whether a transfer's data uses
//! the local-store port; the answer comes from every scheduled command in the 16-entry queue.
//! A queue full of waiting puts makes that scan most of a cycle's cost, and the answer
//! changes only when a transfer's data is due or the queue changes. The memo keeps the stretch
//! from the last question to the next cycle any scheduled transfer uses the port: questions
//! inside it are answered without the scan. Anything that changes the queue, the atomic unit
//! or the timing empties it.

/// Cycles `from..until` in which no scheduled transfer uses the local-store port, as last
/// worked out. A cache, not state: two MFCs that differ only here are equal. Its empty value
/// (`0..0`) is all-zero bits, as a reset SPU's must be.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct QuietPort {
    from: u64,
    until: u64,
}

impl QuietPort {
    /// Nothing known.
    pub const fn empty() -> Self {
        QuietPort { from: 0, until: 0 }
    }

    /// Whether `cycle` is known to be quiet.
    #[inline]
    pub fn covers(&self, cycle: u64) -> bool {
        self.from <= cycle && cycle < self.until
    }

    /// Cycles `from..until` are quiet.
    #[inline]
    pub fn remember(&mut self, from: u64, until: u64) {
        *self = QuietPort { from, until };
    }

    /// The queue, the atomic unit or the timing changed: nothing is known.
    #[inline]
    pub fn forget(&mut self) {
        *self = Self::empty();
    }
}

impl PartialEq for QuietPort {
    fn eq(&self, _: &Self) -> bool {
        // A memo says nothing the queue does not say.
        true
    }
}

impl Eq for QuietPort {}
