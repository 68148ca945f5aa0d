//! A fixed-capacity sample buffer that counts what it could not keep.

use super::sample::Sample;

/// Up to `N` samples, oldest first. When full, new samples are dropped (the start of a
/// profile stays intact) and counted in [`dropped`](Self::dropped): the host tool reports the
/// count, so a profile never silently under-represents a period.
pub struct SampleBuffer<const N: usize> {
    samples: heapless::Vec<Sample, N>,
    dropped: u64,
}

impl<const N: usize> Default for SampleBuffer<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> SampleBuffer<N> {
    /// An empty buffer (all-zero, so a `static` one lives in `.bss`).
    pub const fn new() -> Self {
        Self {
            samples: heapless::Vec::new(),
            dropped: 0,
        }
    }

    /// Keeps `sample`; `false` (and one more dropped) when the buffer is full.
    pub fn push(&mut self, sample: Sample) -> bool {
        if self.samples.push(sample).is_ok() {
            true
        } else {
            self.dropped = self.dropped.saturating_add(1);
            false
        }
    }

    /// The samples kept, oldest first.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// Samples kept.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether no sample is kept.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The fixed capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Samples dropped because the buffer was full, since construction or [`reset`](Self::reset).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Forgets the samples and the drop count (after they were written out).
    pub fn reset(&mut self) {
        self.samples.clear();
        self.dropped = 0;
    }
}
