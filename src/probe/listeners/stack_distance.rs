//! Stack (reuse) distance calculator.
//!
//! For each access, the address is rounded down to a line; the stack distance is the number of
//! *distinct other* lines touched since that line's previous access (0 when it is accessed
//! twice in a row), and infinite on its first access.
//!
//! # Algorithm (O(log W) per access, memory fixed by W)
//! Every tracked line owns one timestamp, the time of its last access. A Fenwick tree over a
//! window of `2W` timestamps has a 1 at each owned timestamp, so the distance of a line last
//! seen at `t0` is the number of 1s after `t0`: `tracked_lines - prefix_sum(t0)`. An
//! open-addressing hash table with `2W` slots (load factor at most 1/2, linear probing,
//! backward-shift deletion) maps line to timestamp. When the window's timestamps run out, the
//! owned timestamps are renumbered `0..tracked` in order (O(W), at most once every W accesses).
//!
//! # Beyond W distinct lines
//! At most `W` lines are tracked. A new line arriving when `W` are tracked evicts the least
//! recently used one, which is counted in [`StackDistance::evictions`]. The next access to an
//! evicted line reports [`Distance::Infinite`] although its true distance is finite and at
//! least `W`; results are exact while [`StackDistance::evictions`] is 0.
//!
//! # Statistics
//! Like gem5's stack distance probe, separately for reads (reads and instruction fetches) and
//! writes: the number of infinite distances, a linear histogram (bin `d` for distance `d`,
//! `LIN` bins plus an overflow count) and a log2 histogram (bin 0 for distance 0, bin `k >= 1`
//! for distances in `[2^(k-1), 2^k)`), with no swap of bins 0 and 1.
//!
//! The calculator is large (about `40 * W` bytes: a tree and an owner table of `2W` timestamps,
//! `2W` hash slots of line and timestamp); all its arrays start zeroed, so a
//! `static` instance lives in `.bss`.

use core::fmt;

use super::{AccessKind, MemAccess};
use crate::probe::ListenerMut;

/// Number of log2 histogram bins: distance 0, then one bin per power of two of a `u64`.
pub const LOG2_BINS: usize = 65;

/// The stack distance of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Distance {
    /// Distinct other lines touched since the previous access to this line.
    Finite(u64),
    /// First access to this line (or first since it was evicted, see the module docs).
    Infinite,
}

/// Why a [`StackDistance`] could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StackDistanceError {
    /// The line size must be a non-zero power of two.
    LineSizeNotPowerOfTwo(u64),
    /// `W` must be at least 1.
    ZeroCapacity,
    /// `2 * W` timestamps must fit in a `u32`.
    CapacityTooLarge,
}

impl fmt::Display for StackDistanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LineSizeNotPowerOfTwo(size) => {
                write!(f, "line size {size} is not a non-zero power of two")
            }
            Self::ZeroCapacity => f.write_str("stack distance capacity W is 0"),
            Self::CapacityTooLarge => f.write_str("stack distance capacity W exceeds 2^31 - 1"),
        }
    }
}

impl core::error::Error for StackDistanceError {}

/// Distance histograms of one access direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistanceHistograms<const LIN: usize> {
    /// Accesses with infinite distance.
    pub infinite: u64,
    /// `linear[d]`: accesses with distance `d`, for `d < LIN`.
    pub linear: [u64; LIN],
    /// Accesses with a finite distance of `LIN` or more.
    pub linear_overflow: u64,
    /// `log2[0]`: distance 0; `log2[k]`: distances in `[2^(k-1), 2^k)`.
    pub log2: [u64; LOG2_BINS],
}

impl<const LIN: usize> Default for DistanceHistograms<LIN> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const LIN: usize> DistanceHistograms<LIN> {
    /// All counts zero.
    pub const fn new() -> Self {
        Self {
            infinite: 0,
            linear: [0; LIN],
            linear_overflow: 0,
            log2: [0; LOG2_BINS],
        }
    }

    /// The log2 bin of a finite distance.
    pub const fn log2_bin(distance: u64) -> usize {
        (u64::BITS - distance.leading_zeros()) as usize
    }

    /// Adds one access.
    pub fn record(&mut self, distance: Distance) {
        match distance {
            Distance::Infinite => self.infinite = self.infinite.saturating_add(1),
            Distance::Finite(d) => {
                let linear = usize::try_from(d).ok().and_then(|d| self.linear.get_mut(d));
                match linear {
                    Some(bin) => *bin = bin.saturating_add(1),
                    None => self.linear_overflow = self.linear_overflow.saturating_add(1),
                }
                if let Some(bin) = self.log2.get_mut(Self::log2_bin(d)) {
                    *bin = bin.saturating_add(1);
                }
            }
        }
    }

    /// Accesses recorded.
    pub fn total(&self) -> u64 {
        self.log2
            .iter()
            .fold(self.infinite, |sum, n| sum.saturating_add(*n))
    }
}

/// A stack distance calculator tracking up to `W` distinct lines, with `LIN` linear bins.
pub struct StackDistance<const W: usize, const LIN: usize> {
    line_shift: u32,
    /// Next timestamp to hand out, `<= 2W`.
    now: usize,
    /// Lines currently tracked (number of 1s in the tree).
    tracked: usize,
    evictions: u64,
    /// Fenwick tree over `2W` timestamps (pairs, because array lengths cannot be `2 * W`).
    tree: [[u32; 2]; W],
    /// Timestamp -> hash slot + 1 (0: timestamp not owned).
    owner: [[u32; 2]; W],
    /// Hash slot -> line.
    keys: [[u64; 2]; W],
    /// Hash slot -> timestamp + 1 (0: empty slot).
    stamps: [[u32; 2]; W],
    reads: DistanceHistograms<LIN>,
    writes: DistanceHistograms<LIN>,
}

impl<const W: usize, const LIN: usize> StackDistance<W, LIN> {
    /// A calculator for lines of `line_size` bytes (a power of two).
    pub const fn new(line_size: u64) -> Result<Self, StackDistanceError> {
        if W == 0 {
            return Err(StackDistanceError::ZeroCapacity);
        }
        if W > (u32::MAX / 2 - 1) as usize {
            return Err(StackDistanceError::CapacityTooLarge);
        }
        if !line_size.is_power_of_two() {
            return Err(StackDistanceError::LineSizeNotPowerOfTwo(line_size));
        }
        Ok(Self {
            line_shift: line_size.trailing_zeros(),
            now: 0,
            tracked: 0,
            evictions: 0,
            tree: [[0; 2]; W],
            owner: [[0; 2]; W],
            keys: [[0; 2]; W],
            stamps: [[0; 2]; W],
            reads: DistanceHistograms::new(),
            writes: DistanceHistograms::new(),
        })
    }

    /// Forgets every line and clears the statistics, keeping the line size.
    pub fn reset(&mut self) {
        self.now = 0;
        self.tracked = 0;
        self.evictions = 0;
        self.tree.as_flattened_mut().fill(0);
        self.owner.as_flattened_mut().fill(0);
        self.stamps.as_flattened_mut().fill(0);
        self.reads = DistanceHistograms::new();
        self.writes = DistanceHistograms::new();
    }

    /// Forgets every line, clears the statistics and takes lines of `line_size` bytes from now
    /// on. A static calculator can start as `new(1)`, whose state is all-zero bits (so it lands
    /// in `.bss`), and get its real line size here before its first access.
    pub fn reset_with_line_size(&mut self, line_size: u64) -> Result<(), StackDistanceError> {
        if !line_size.is_power_of_two() {
            return Err(StackDistanceError::LineSizeNotPowerOfTwo(line_size));
        }
        self.line_shift = line_size.trailing_zeros();
        self.reset();
        Ok(())
    }

    /// The line size in bytes.
    pub fn line_size(&self) -> u64 {
        1 << self.line_shift
    }

    /// Lines currently tracked (at most `W`).
    pub fn tracked_lines(&self) -> usize {
        self.tracked
    }

    /// Lines forgotten because more than `W` distinct lines were live (see the module docs).
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    /// Histograms of reads and instruction fetches.
    pub fn reads(&self) -> &DistanceHistograms<LIN> {
        &self.reads
    }

    /// Histograms of writes.
    pub fn writes(&self) -> &DistanceHistograms<LIN> {
        &self.writes
    }

    /// Records one access and returns its stack distance.
    pub fn access(&mut self, address: u64, kind: AccessKind) -> Distance {
        let distance = self.distance_of(address >> self.line_shift);
        match kind {
            AccessKind::Write => self.writes.record(distance),
            AccessKind::Read | AccessKind::InstructionFetch => self.reads.record(distance),
        }
        distance
    }

    fn window(&self) -> usize {
        2 * W
    }

    fn distance_of(&mut self, line: u64) -> Distance {
        if self.now >= self.window() {
            self.renumber();
        }
        let (slot, distance) = match self.find(line) {
            Ok(slot) => {
                let last = self.stamp_of(slot);
                let newer = self.tracked.saturating_sub(self.prefix_sum(last));
                self.tree_add(last, false);
                set(&mut self.owner, last, 0);
                self.tracked = self.tracked.saturating_sub(1);
                (slot, Distance::Finite(newer as u64))
            }
            Err(_) => {
                if self.tracked >= W {
                    self.evict_least_recent();
                }
                match self.find(line) {
                    Err(Some(empty)) => (empty, Distance::Infinite),
                    // Unreachable: after eviction at most W - 1 of 2W slots are full.
                    Ok(_) | Err(None) => return Distance::Infinite,
                }
            }
        };
        let now = self.now;
        set64(&mut self.keys, slot, line);
        set(&mut self.stamps, slot, now as u32 + 1);
        set(&mut self.owner, now, slot as u32 + 1);
        self.tree_add(now, true);
        self.tracked += 1;
        self.now = now + 1;
        distance
    }

    fn stamp_of(&self, slot: usize) -> usize {
        (get(&self.stamps, slot) as usize).saturating_sub(1)
    }

    fn home_slot(&self, line: u64) -> usize {
        let hash = line.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((u128::from(hash) * self.window() as u128) >> 64) as usize
    }

    /// `Ok(slot)` holding `line`, or `Err(first empty slot on its probe path)`.
    fn find(&self, line: u64) -> Result<usize, Option<usize>> {
        let size = self.window();
        let mut slot = self.home_slot(line);
        for _ in 0..size {
            if get(&self.stamps, slot) == 0 {
                return Err(Some(slot));
            }
            if get64(&self.keys, slot) == line {
                return Ok(slot);
            }
            slot = if slot + 1 == size { 0 } else { slot + 1 };
        }
        Err(None)
    }

    fn evict_least_recent(&mut self) {
        let oldest = self.first_owned_stamp();
        let slot = (get(&self.owner, oldest) as usize).saturating_sub(1);
        self.tree_add(oldest, false);
        set(&mut self.owner, oldest, 0);
        self.tracked = self.tracked.saturating_sub(1);
        self.evictions = self.evictions.saturating_add(1);
        self.delete_slot(slot);
    }

    /// Backward-shift deletion for linear probing: later entries of the cluster that may live
    /// in the hole move back, so lookups never meet a false "empty".
    fn delete_slot(&mut self, slot: usize) {
        let size = self.window();
        let mut hole = slot;
        let mut next = slot;
        loop {
            next = if next + 1 == size { 0 } else { next + 1 };
            let stamp = get(&self.stamps, next);
            if stamp == 0 || next == slot {
                break;
            }
            let home = self.home_slot(get64(&self.keys, next));
            let stays = if hole <= next {
                hole < home && home <= next
            } else {
                hole < home || home <= next
            };
            if !stays {
                let key = get64(&self.keys, next);
                set64(&mut self.keys, hole, key);
                set(&mut self.stamps, hole, stamp);
                set(&mut self.owner, stamp as usize - 1, hole as u32 + 1);
                hole = next;
            }
        }
        set(&mut self.stamps, hole, 0);
    }

    /// Renumbers the owned timestamps to `0..tracked`, keeping their order.
    fn renumber(&mut self) {
        let mut next = 0;
        for stamp in 0..self.window() {
            let owner = get(&self.owner, stamp);
            if owner != 0 {
                set(&mut self.owner, stamp, 0);
                set(&mut self.owner, next, owner);
                set(&mut self.stamps, owner as usize - 1, next as u32 + 1);
                next += 1;
            }
        }
        // Fenwick node i covers positions [i + 1 - lowbit(i + 1), i]; ones are at 0..next.
        for (index, node) in self.tree.as_flattened_mut().iter_mut().enumerate() {
            let high = index + 1;
            let low = high - (high & high.wrapping_neg());
            *node = (next.clamp(low, high) - low) as u32;
        }
        self.now = next;
    }

    fn tree_add(&mut self, position: usize, increment: bool) {
        let tree = self.tree.as_flattened_mut();
        let mut index = position + 1;
        while let Some(node) = tree.get_mut(index - 1) {
            *node = if increment {
                node.wrapping_add(1)
            } else {
                node.wrapping_sub(1)
            };
            index += index & index.wrapping_neg();
        }
    }

    /// Number of owned timestamps in `0..=position`.
    fn prefix_sum(&self, position: usize) -> usize {
        let tree = self.tree.as_flattened();
        let mut index = position + 1;
        let mut sum = 0usize;
        while index > 0 {
            sum += tree.get(index - 1).copied().unwrap_or(0) as usize;
            index -= index & index.wrapping_neg();
        }
        sum
    }

    /// The smallest owned timestamp (call only when `tracked > 0`).
    fn first_owned_stamp(&self) -> usize {
        let tree = self.tree.as_flattened();
        let mut position = 0;
        let mut step = 1usize << (usize::BITS - 1 - tree.len().leading_zeros());
        while step > 0 {
            if let Some(&node) = tree.get(position + step - 1)
                && node == 0
            {
                position += step;
            }
            step >>= 1;
        }
        position
    }
}

impl<const W: usize, const LIN: usize> ListenerMut<MemAccess> for StackDistance<W, LIN> {
    fn notify_mut(&mut self, access: &MemAccess) {
        self.access(access.address, access.kind);
    }
}

fn get(array: &[[u32; 2]], index: usize) -> u32 {
    array.as_flattened().get(index).copied().unwrap_or(0)
}

fn set(array: &mut [[u32; 2]], index: usize, value: u32) {
    if let Some(cell) = array.as_flattened_mut().get_mut(index) {
        *cell = value;
    }
}

fn get64(array: &[[u64; 2]], index: usize) -> u64 {
    array.as_flattened().get(index).copied().unwrap_or(0)
}

fn set64(array: &mut [[u64; 2]], index: usize, value: u64) {
    if let Some(cell) = array.as_flattened_mut().get_mut(index) {
        *cell = value;
    }
}
