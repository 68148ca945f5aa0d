//! The lean configuration (feature `spu-lean`) has no fast-forward: every cycle is simulated,
//! which gives the same results (the fast-forward is exact) and saves its memory of a loop.
//! This is its stand-in, with the same interface as `fast_forward/`.

use crate::spu::exec::SpuState;
use crate::spu::pipeline::Pipeline;
use crate::spu::pipeline::model::notification::{Note, NoteSink};
use crate::spu::probes::SpuObserver;

/// No memory of any loop.
#[derive(Clone)]
pub(crate) struct FastForward;

impl FastForward {
    /// Nothing to remember.
    pub const fn new() -> Self {
        FastForward
    }

    /// Never on.
    pub fn enabled(&self) -> bool {
        false
    }

    /// Nothing to forget.
    pub(in crate::spu::pipeline) fn forget(&mut self) {}

    /// Nothing to record.
    pub(in crate::spu::pipeline) fn set_recording(&mut self, _recording: bool) {}
}

impl NoteSink for FastForward {
    /// Nothing to note.
    #[inline(always)]
    fn note<O: SpuObserver>(&mut self, _observer: &O, _cycle: u64, _note: Note) {}
}

impl Pipeline {
    /// Has no effect in the lean configuration, which has no fast-forward (the results are
    /// the same either way).
    pub fn set_fast_forward(&mut self, _enabled: bool) {}

    /// Always `false` in the lean configuration.
    pub fn fast_forward_enabled(&self) -> bool {
        false
    }

    /// Always 0 in the lean configuration.
    pub fn fast_forwarded_cycles(&self) -> u64 {
        0
    }

    /// Never called: the fast-forward is never on.
    pub(in crate::spu::pipeline) fn loop_head_passed<O: SpuObserver>(
        &mut self,
        _arch: &mut SpuState,
        _head: u32,
        _budget: u64,
        _observer: &O,
        _notify: bool,
    ) -> u64 {
        0
    }
}
