//! PC events in a trace: the probe framework's [`PcEventQueue`](crate::probe::PcEventQueue)
//! serviced by [`SpuTrace`](super::SpuTrace) with a [`PcEventHits`] as its context, and
//! [`TracePcEvent`], the event that records itself as a `pc_event` when the SPU reaches it.
//!
//! Any other [`PcEvent<PcEventHits>`] (a `BreakPcEvent` with a hook, say) can share the queue
//! and record through the same context.

use crate::probe::{PcEvent, PcEventAction};

/// PC events one instruction can record (more are counted in [`PcEventHits::overflow`]).
pub const HITS_PER_INSTRUCTION: usize = 8;

/// What the trace hands the PC events it runs: where and when, and the events to record.
#[derive(Debug, Default)]
pub struct PcEventHits {
    pc: u64,
    cycle: u64,
    hits: heapless::Vec<u16, HITS_PER_INSTRUCTION>,
    overflow: u64,
}

impl PcEventHits {
    /// An empty context for the instruction at `pc`, completed in `cycle`.
    pub fn at(pc: u64, cycle: u64) -> Self {
        Self {
            pc,
            cycle,
            hits: heapless::Vec::new(),
            overflow: 0,
        }
    }

    /// The instruction's address.
    pub fn pc(&self) -> u64 {
        self.pc
    }

    /// The cycle it completed in.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Records that PC event `event` (its number among the metadata's names) fired here.
    pub fn record(&mut self, event: u16) {
        if self.hits.push(event).is_err() {
            self.overflow += 1;
        }
    }

    /// The events recorded, in the order they ran.
    pub fn hits(&self) -> &[u16] {
        &self.hits
    }

    /// Events that fired beyond [`HITS_PER_INSTRUCTION`] and could not be recorded.
    pub fn overflow(&self) -> u64 {
        self.overflow
    }
}

/// A PC event whose only action is to be recorded in the trace: event `number` of the
/// metadata's PC event names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TracePcEvent<'d> {
    pc: u64,
    number: u16,
    description: &'d str,
}

impl<'d> TracePcEvent<'d> {
    /// The event at `pc`, recorded as number `number` (give the metadata `description` as
    /// that number's name).
    pub const fn new(pc: u64, number: u16, description: &'d str) -> Self {
        Self {
            pc,
            number,
            description,
        }
    }

    /// Its number.
    pub const fn number(&self) -> u16 {
        self.number
    }
}

impl PcEvent<PcEventHits> for TracePcEvent<'_> {
    fn pc(&self) -> u64 {
        self.pc
    }

    fn description(&self) -> &str {
        self.description
    }

    fn process(&self, hits: &mut PcEventHits) -> PcEventAction {
        hits.record(self.number);
        PcEventAction::Keep
    }
}
