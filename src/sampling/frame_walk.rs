//! Frame-pointer stack walk over AArch64 AAPCS64 frame records.
//!
//! Code built with frame pointers keeps, in every function that calls another, a 16-byte frame
//! record on the stack: `[x29]` holds the caller's frame pointer and `[x29 + 8]` the return
//! address (the saved x30). Following x29 from record to record yields the return addresses of
//! every active call, innermost first.
//!
//! The walk must never fault, even on a corrupt chain or code without frame pointers: every
//! record address is checked against the stack bounds the caller gives (and for alignment)
//! before it is read, the chain must move strictly toward the stack base (no loops), and the
//! depth is bounded. Memory is read through [`StackMemory`], so the walker itself needs no
//! `unsafe`: the runtime supplies a reader for the live stack, tests a slice.
//!
//! A leaf function that has not stored a frame record yet (or never does) is not in the
//! chain: its caller is then missing from the stack, and the sample's PC is the only trace of
//! it. This is the usual limit of frame-pointer unwinding (perf shares it).

use super::sample::{MAX_STACK_DEPTH, Sample, WalkEnd};

/// The stack a walk may read: `[low, high)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StackBounds {
    /// Lowest address of the stack (its limit; the stack grows down toward it).
    pub low: u64,
    /// One past the highest address (the initial stack pointer).
    pub high: u64,
}

impl StackBounds {
    /// Whether the 16-byte frame record at `fp` lies inside the bounds.
    pub fn holds_record(&self, fp: u64) -> bool {
        fp >= self.low && fp.checked_add(16).is_some_and(|end| end <= self.high)
    }
}

/// Reads 64-bit words of the stack being walked.
pub trait StackMemory {
    /// The word at `address` (8-byte aligned, inside the bounds given to the walk), or `None`
    /// when it cannot be read.
    fn read_u64(&self, address: u64) -> Option<u64>;
}

/// A copy of (part of) a stack: `words[i]` is the word at `base + 8 * i`.
#[derive(Debug, Clone, Copy)]
pub struct SliceMemory<'w> {
    /// Address of `words[0]`.
    pub base: u64,
    /// The words.
    pub words: &'w [u64],
}

impl StackMemory for SliceMemory<'_> {
    fn read_u64(&self, address: u64) -> Option<u64> {
        let offset = address.checked_sub(self.base)?;
        if !offset.is_multiple_of(8) {
            return None;
        }
        let index = usize::try_from(offset / 8).ok()?;
        self.words.get(index).copied()
    }
}

/// Walks the frame records starting at `fp` (the interrupted x29) and appends each return
/// address to `sample`, up to `max_depth` (at most [`MAX_STACK_DEPTH`]) frames. Sets and
/// returns the reason the walk stopped.
pub fn walk_frames(
    sample: &mut Sample,
    fp: u64,
    bounds: StackBounds,
    memory: &impl StackMemory,
    max_depth: usize,
) -> WalkEnd {
    let limit = max_depth.min(MAX_STACK_DEPTH);
    let end = walk(sample, fp, bounds, memory, limit);
    sample.walk_end = end;
    end
}

fn walk(
    sample: &mut Sample,
    mut fp: u64,
    bounds: StackBounds,
    memory: &impl StackMemory,
    limit: usize,
) -> WalkEnd {
    loop {
        if fp == 0 {
            return WalkEnd::Complete;
        }
        if sample.frames().len() >= limit {
            return WalkEnd::DepthLimit;
        }
        if !fp.is_multiple_of(8) {
            return WalkEnd::Misaligned;
        }
        if !bounds.holds_record(fp) {
            return WalkEnd::OutOfBounds;
        }
        let (Some(caller_fp), Some(return_address)) =
            (memory.read_u64(fp), memory.read_u64(fp + 8))
        else {
            return WalkEnd::Unreadable;
        };
        if return_address == 0 {
            return WalkEnd::Complete;
        }
        if !sample.push_frame(return_address) {
            return WalkEnd::DepthLimit;
        }
        if caller_fp != 0 && caller_fp <= fp {
            return WalkEnd::NotAscending;
        }
        fp = caller_fp;
    }
}
