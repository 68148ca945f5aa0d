//! The distribution of skid: how many events (or ticks) passed between the programmed trigger
//! and the moment the sampling handler read the counter.
//!
//! A sampling counter is loaded with `2^width - period`, so it wraps through zero exactly at
//! the trigger and raises its overflow interrupt. The interrupt is not taken at once: the core
//! finishes instructions in flight, and an emulator may only notice the overflow at its next
//! PMU access or translation-block boundary. The handler's first counter read is therefore the
//! skid itself. The histogram keeps it in power-of-two bins with the exact minimum, maximum and
//! sum.

/// Bins of the skid histogram: bin 0 holds skid 0, bin k holds `2^(k-1) ..= 2^k - 1`.
pub const SKID_BINS: usize = 65;

/// Skid statistics over many samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkidHistogram {
    bins: [u64; SKID_BINS],
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for SkidHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl SkidHistogram {
    /// No samples yet.
    pub const fn new() -> Self {
        Self {
            bins: [0; SKID_BINS],
            count: 0,
            sum: 0,
            min: 0,
            max: 0,
        }
    }

    /// The bin of a skid value.
    pub const fn bin_of(skid: u64) -> usize {
        (u64::BITS - skid.leading_zeros()) as usize
    }

    /// The smallest skid bin `bin` holds.
    pub const fn bin_start(bin: usize) -> u64 {
        if bin == 0 { 0 } else { 1 << (bin - 1) }
    }

    /// Records one skid value.
    pub fn record(&mut self, skid: u64) {
        if let Some(bin) = self.bins.get_mut(Self::bin_of(skid)) {
            *bin = bin.saturating_add(1);
        }
        self.min = if self.count == 0 {
            skid
        } else {
            self.min.min(skid)
        };
        self.max = self.max.max(skid);
        self.count = self.count.saturating_add(1);
        self.sum = self.sum.saturating_add(u128::from(skid));
    }

    /// Adds the values recorded in `other` (one histogram for several cores).
    pub fn merge(&mut self, other: &Self) {
        if other.count == 0 {
            return;
        }
        for (bin, more) in self.bins.iter_mut().zip(other.bins.iter()) {
            *bin = bin.saturating_add(*more);
        }
        self.min = if self.count == 0 {
            other.min
        } else {
            self.min.min(other.min)
        };
        self.max = self.max.max(other.max);
        self.count = self.count.saturating_add(other.count);
        self.sum = self.sum.saturating_add(other.sum);
    }

    /// Skid values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The smallest skid (0 when empty).
    pub fn min(&self) -> u64 {
        self.min
    }

    /// The largest skid (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The mean skid, rounded down (0 when empty).
    pub fn mean(&self) -> u64 {
        if self.count == 0 {
            return 0;
        }
        u64::try_from(self.sum / u128::from(self.count)).unwrap_or(u64::MAX)
    }

    /// The bin counts (see [`SKID_BINS`]).
    pub fn bins(&self) -> &[u64; SKID_BINS] {
        &self.bins
    }
}
