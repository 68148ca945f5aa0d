//! The lean configuration (feature `spu-lean`) has no fast-forward: every cycle is simulated,
//! which gives the same results (the fast-forward is exact) and saves its memory of a loop.
//! This is its stand-in, with the same interface as `fast_forward/`: the memory the pipeline
//! holds in `memory.rs`, what the pipeline asks of it here.

pub(in crate::spu::pipeline) mod memory;

pub(in crate::spu::pipeline) use self::memory::FastForward;

use crate::spu::exec::SpuState;
use crate::spu::pipeline::state::Pipeline;
use crate::spu::probes::SpuObserver;

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
