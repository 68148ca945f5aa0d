//! Where a sampler keeps its samples: any [`SampleStore`].
//!
//! Two stores come with the crate: [`SampleBuffer`](super::SampleBuffer) keeps whole
//! [`Sample`]s (about 290 bytes each, handy to inspect in tests), and
//! [`EncodedBuffer`](super::EncodedBuffer) keeps them already in the `PMPS` wire format (about
//! 10 to 30 bytes each), which is what a firmware profiler wants in a fixed amount of memory.

use super::sample::Sample;

/// A fixed-capacity place for samples that counts what it could not keep.
pub trait SampleStore {
    /// Keeps `sample`; `false` (and one more [`dropped`](Self::dropped)) when it does not fit.
    fn keep(&mut self, sample: &Sample) -> bool;
    /// Samples kept since construction or [`clear`](Self::clear).
    fn kept(&self) -> u64;
    /// Samples that did not fit, since construction or [`clear`](Self::clear).
    fn dropped(&self) -> u64;
    /// Forgets the samples and the drop count (after they were written out).
    fn clear(&mut self);
}

impl<const N: usize> SampleStore for super::SampleBuffer<N> {
    fn keep(&mut self, sample: &Sample) -> bool {
        self.push(*sample)
    }

    fn kept(&self) -> u64 {
        self.len() as u64
    }

    fn dropped(&self) -> u64 {
        super::SampleBuffer::dropped(self)
    }

    fn clear(&mut self) {
        self.reset();
    }
}
