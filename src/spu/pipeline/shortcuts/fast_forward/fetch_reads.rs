//! Where the real fetch unit reads while a loop repeats: what a repetition on trial must not
//! store into (see `real_fetch.rs`).

use crate::spu::pipeline::model::fetch_unit::HALF_BYTES;

/// Half-lines a fetch unit refers to at most: seven buffers, four queued and six LS pipe line
/// requests of two halves each, and two addresses ahead.
const MAX_HALVES: usize = 7 + 2 * (4 + 6) + 2;

/// Where a store in a repeated repetition would change what the real fetch unit fetches or
/// holds: the quadwords of the path, and the half-lines the fetch unit refers to. A line
/// that fetch loads within a repetition either feeds the path, or is still held (or
/// requested) at the end, where the fetch unit's state is the one the comparison found, or
/// was replaced and left no trace.
#[derive(Clone, Copy, Debug)]
pub(in crate::spu::pipeline) struct FetchReads {
    /// The first and the last quadword address of the path.
    pub(super) code: (u32, u32),
    pub(super) halves: [u32; MAX_HALVES],
    pub(super) count: usize,
}

impl FetchReads {
    pub(in crate::spu::pipeline) const NONE: FetchReads = FetchReads {
        code: (0, 0),
        halves: [0; MAX_HALVES],
        count: 0,
    };

    /// Whether a store to the quadword at `address` may change what fetch reads.
    #[inline(always)]
    pub(super) fn hit_by(&self, address: u32) -> bool {
        (self.code.0..=self.code.1).contains(&address)
            || self.halves[..self.count].contains(&(address & !(HALF_BYTES - 1)))
    }
}
