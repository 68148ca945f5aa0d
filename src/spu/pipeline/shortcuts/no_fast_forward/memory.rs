//! The lean configuration's stand-in for the fast-forward's memory: nothing.

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
