//! The firmware side of sampling: what the sampling interrupt handler calls.

use super::frame_walk::{StackBounds, StackMemory, walk_frames};
use super::sample::{MAX_STACK_DEPTH, Sample};
use super::skid::SkidHistogram;
use super::store::SampleStore;
use super::wire::{ProfileHeader, SampleSource};
use crate::probe::{Listener, ProbePoint};

/// What the handler read from the interrupted context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InterruptedContext {
    /// ELR_EL1: the interrupted instruction.
    pub pc: u64,
    /// x29 of the interrupted code: the innermost frame record.
    pub fp: u64,
    /// x30 of the interrupted code (see [`Sample::lr`]; 0 when unknown).
    pub lr: u64,
    /// The sampling counter, read before it is reloaded (see [`Sample::counter`]).
    pub counter: u64,
}

/// Samples with a call stack into a fixed store, and notifies a probe point with each one.
///
/// `B` is the store ([`SampleBuffer`](super::SampleBuffer) of whole samples or
/// [`EncodedBuffer`](super::EncodedBuffer) of wire-format records), `L` the listener capacity
/// of the probe point, `S` its listener object type: a sampler shared with the interrupt
/// handler through [`IrqMutex`](crate::sync::IrqMutex) uses
/// `dyn Listener<Sample> + Sync`, which makes it `Send`.
pub struct Sampler<
    'a,
    B: SampleStore,
    const L: usize = 4,
    S: ?Sized + Listener<Sample> + 'a = dyn Listener<Sample> + 'a,
> {
    source: SampleSource,
    event: u16,
    period: u64,
    /// Frames fewer than [`MAX_STACK_DEPTH`] a walk keeps (0: all). Kept this way round so
    /// that a new sampler is all-zero bits and a `static` one lands in `.bss`.
    depth_below_max: usize,
    core: u8,
    store: B,
    skid: SkidHistogram,
    point: ProbePoint<'a, Sample, L, S>,
}

impl<'a, B: SampleStore, const L: usize, S: ?Sized + Listener<Sample> + 'a> Sampler<'a, B, L, S> {
    /// A sampler for `period` events of PMU event `event`, or `period` ticks of the generic
    /// timer, keeping its samples in `store`; stacks up to [`MAX_STACK_DEPTH`] frames, core 0.
    pub const fn new(source: SampleSource, event: u16, period: u64, store: B) -> Self {
        Self {
            source,
            event,
            period,
            depth_below_max: 0,
            core: 0,
            store,
            skid: SkidHistogram::new(),
            point: ProbePoint::new(),
        }
    }

    /// Changes the trigger (a profiler decides the source when it starts: the PMU event when
    /// its overflow interrupt works, the timer otherwise). Samples already kept stay.
    pub fn set_trigger(&mut self, source: SampleSource, event: u16, period: u64) {
        self.source = source;
        self.event = event;
        self.period = period;
    }

    /// Stamps every later sample with `core` (one sampler per core).
    pub fn set_core(&mut self, core: u8) {
        self.core = core;
    }

    /// The core the samples are stamped with.
    pub fn core(&self) -> u8 {
        self.core
    }

    /// Limits the stack walk to `depth` frames (0: PC only; at most [`MAX_STACK_DEPTH`]).
    pub fn set_max_depth(&mut self, depth: usize) {
        self.depth_below_max = MAX_STACK_DEPTH - depth.min(MAX_STACK_DEPTH);
    }

    /// The period between samples.
    pub fn period(&self) -> u64 {
        self.period
    }

    /// The value to load into a `width`-bit sampling counter so it wraps through zero after
    /// `period` events: `2^width - period` (a period of 0 or larger than the counter is clamped
    /// to 1 or to the full range).
    pub fn reload_value(&self, width: u32) -> u64 {
        let width = width.clamp(1, 64);
        let modulus_minus_one = u64::MAX >> (64 - width);
        let period = self.period.clamp(1, modulus_minus_one);
        (modulus_minus_one - period).wrapping_add(1) & modulus_minus_one
    }

    /// The interrupt handler's call: walks the stack, records the sample (or counts it as
    /// dropped when the buffer is full), updates the skid statistics and notifies the probe
    /// point. Returns whether the buffer kept the sample; listeners see it either way.
    pub fn take_sample(
        &mut self,
        context: InterruptedContext,
        bounds: StackBounds,
        memory: &impl StackMemory,
    ) -> bool {
        let mut sample = Sample::new(context.pc, context.counter)
            .with_lr(context.lr)
            .on_core(self.core);
        let max_depth = MAX_STACK_DEPTH - self.depth_below_max;
        walk_frames(&mut sample, context.fp, bounds, memory, max_depth);
        self.record(sample)
    }

    /// Records a sample built elsewhere (see [`take_sample`](Self::take_sample)) as is.
    pub fn record(&mut self, sample: Sample) -> bool {
        self.skid.record(sample.counter);
        self.point.notify(&sample);
        self.store.keep(&sample)
    }

    /// Notified with every sample.
    pub fn point(&self) -> &ProbePoint<'a, Sample, L, S> {
        &self.point
    }

    /// The samples kept and the drop count.
    pub fn store(&self) -> &B {
        &self.store
    }

    /// Empties the store (after writing it out), resets its drop count and the skid statistics.
    pub fn clear(&mut self) {
        self.store.clear();
        self.skid = SkidHistogram::new();
    }

    /// The skid of every sample taken (kept or dropped).
    pub fn skid(&self) -> &SkidHistogram {
        &self.skid
    }

    /// The wire-format header describing this sampler and its drop count.
    pub fn header(&self) -> ProfileHeader {
        ProfileHeader {
            source: self.source,
            event: self.event,
            period: self.period,
            dropped: self.store.dropped(),
        }
    }
}
