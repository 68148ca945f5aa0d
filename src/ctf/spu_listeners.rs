//! [`SpuTrace`] through an SPU's probe points instead of as an observer of its own: listeners
//! on `Cycles`, `DataAccess`, `Dma`, `IssueStall` and `RetiredInstsPC` of a
//! [`SpuProbes`]. The model then runs with the observer type it already has (a firmware whose
//! image has no room for another copy of the pipeline), at the price of a `dyn` call per
//! cycle and per event.
//!
//! The probe points say less than the observer's calls: `IssueStall` carries no cycle, and a
//! run of `n` stalled cycles comes as one `Cycles` notification of `n` followed by `n`
//! `IssueStall` ones. So the listeners keep the cycles the last `Cycles` notification told
//! that no stall has claimed yet: the `k`-th stall after a notification of `n` was cycle
//! `clock - n + k`.

use core::cell::Cell;

use crate::probe::listeners::MemAccess;
use crate::probe::{Listener, ProbeError};
use crate::spu::mfc::DmaEvent;
use crate::spu::probes::{SpuObserver, SpuProbes, StallReason};

use super::spu_trace::SpuTrace;
use super::stream::PacketSink;

/// The listeners of an [`SpuTrace`] (see the module documentation). This object listens to
/// `Cycles`, `DataAccess`, `Dma` and `IssueStall`; [`RetiredPcs`] to `RetiredInstsPC`.
pub struct SpuTraceListeners<'t, 'q, 'b, S> {
    trace: &'t SpuTrace<'q, 'b, S>,
    /// Cycles of the last `Cycles` notification no `IssueStall` has claimed yet.
    unclaimed: Cell<u64>,
}

impl<'t, 'q, 'b, S: PacketSink> SpuTraceListeners<'t, 'q, 'b, S> {
    /// Listeners writing into `trace`.
    pub fn new(trace: &'t SpuTrace<'q, 'b, S>) -> Self {
        Self {
            trace,
            unclaimed: Cell::new(0),
        }
    }

    /// The listener for `RetiredInstsPC`, which runs the trace's PC events.
    pub fn retired_pcs(&self) -> RetiredPcs<'_, 't, 'q, 'b, S> {
        RetiredPcs(self)
    }

    /// Attaches these listeners and `pcs` (this object's [`retired_pcs`](Self::retired_pcs))
    /// to `probes`' points.
    pub fn attach<'a>(
        &'a self,
        pcs: &'a RetiredPcs<'a, 't, 'q, 'b, S>,
        probes: &SpuProbes<'a>,
    ) -> Result<(), ProbeError> {
        probes.cycles.add_object(self)?;
        probes.data_access.add_object(self)?;
        probes.dma.add_object(self)?;
        probes.issue_stall.add_object(self)?;
        probes.retired_insts_pc.add_object(pcs)
    }
}

/// `Cycles`: the trace's clock.
impl<S: PacketSink> Listener<u64> for SpuTraceListeners<'_, '_, '_, S> {
    fn notify(&self, cycles: &u64) {
        self.trace.cycles(*cycles);
        self.unclaimed.set(*cycles);
    }
}

/// `DataAccess`: each access at its own tick.
impl<S: PacketSink> Listener<MemAccess> for SpuTraceListeners<'_, '_, '_, S> {
    fn notify(&self, access: &MemAccess) {
        self.trace.access(access);
    }

    fn notify_all(&self, accesses: &[MemAccess]) {
        self.trace.accesses(accesses);
    }
}

/// `Dma`: each transfer at its completion cycle.
impl<S: PacketSink> Listener<DmaEvent> for SpuTraceListeners<'_, '_, '_, S> {
    fn notify(&self, event: &DmaEvent) {
        self.trace.dma(event);
    }
}

/// `IssueStall`: the oldest cycle of the last `Cycles` notification not claimed yet.
impl<S: PacketSink> Listener<StallReason> for SpuTraceListeners<'_, '_, '_, S> {
    fn notify(&self, reason: &StallReason) {
        let unclaimed = self.unclaimed.get();
        let cycle = self.trace.clock() + 1 - unclaimed.max(1);
        self.unclaimed.set(unclaimed.saturating_sub(1));
        self.trace.stalled(cycle, 1, *reason);
    }
}

/// The listener for `RetiredInstsPC`: runs the trace's PC events at each completed
/// instruction's address, at the trace's clock (the instruction's cycle: `Cycles` hears of a
/// cycle before its completions).
pub struct RetiredPcs<'l, 't, 'q, 'b, S>(&'l SpuTraceListeners<'t, 'q, 'b, S>);

impl<S: PacketSink> Listener<u64> for RetiredPcs<'_, '_, '_, '_, S> {
    fn notify(&self, pc: &u64) {
        let trace = self.0.trace;
        if trace.pc_events_scheduled() {
            trace.service_pc_events(*pc, trace.clock());
        }
    }
}
