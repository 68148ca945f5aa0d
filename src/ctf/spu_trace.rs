//! [`SpuTrace`]: an [`SpuObserver`] that writes what an SPU does into CTF streams, one per
//! kind of event, each in time order on its own:
//!
//! - `memory`: every local-store load and store (`mem_read`, `mem_write`), at its cycle;
//! - `dma`: every completed DMA transfer (`dma`, `dma_list_element`), at its completion
//!   cycle, its issue cycle in the payload;
//! - `stalls`: runs of cycles in which nothing issued, one `stall` event per run of one reason,
//!   at the run's first cycle;
//! - `pc_events`: the PC events of its [`PcEventQueue`] that fired (`pc_event`).
//!
//! The kinds get streams of their own because the model reports them on their own schedules
//! (instruction mode hears of loads and stores in batches, a DMA transfer completes when the
//! MFC's timing says), and a CTF stream's clock never goes back. A reader merges the streams by
//! time.
//!
//! Composed with the other observers (`(feed, (&probes, &trace))`), it costs nothing where it
//! is not: the observer is part of the model's type, and a run without it has none of its code.
//! Its clock counts the cycles it is told of (`cycles`, batches, stalled runs) from
//! [`set_clock`](SpuTrace::set_clock)'s value (0 by default: attach it to an SPU that has not
//! run yet).

use core::cell::{Cell, RefCell};

use crate::probe::listeners::MemAccess;
use crate::probe::{PcEvent, PcEventError, PcEventQueue};
use crate::spu::exec::{CompletedBatch, Executed};
use crate::spu::isa::Instruction;
use crate::spu::mfc::DmaEvent;
use crate::spu::probes::{SpuObserver, StallReason};

use super::events::stall_code;
use super::pc_events::PcEventHits;
use super::stream::{PacketSink, StreamStats, StreamWriter};

/// The SPU's clock: the Cell BE's 3.2 GHz (SPU timestamps are cycles).
pub const SPU_CLOCK_HZ: u64 = 3_200_000_000;
/// PC events an [`SpuTrace`] can have scheduled.
pub const PC_EVENTS: usize = 16;

/// One thing per stream of an SPU trace: the writers going in, their sinks and figures coming
/// out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpuStreams<T> {
    /// Loads and stores.
    pub memory: T,
    /// DMA transfers.
    pub dma: T,
    /// Stalled cycles.
    pub stalls: T,
    /// PC events.
    pub pc_events: T,
}

impl<T> SpuStreams<T> {
    /// `f` applied to each, in the order of the fields.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> SpuStreams<U> {
        SpuStreams {
            memory: f(self.memory),
            dma: f(self.dma),
            stalls: f(self.stalls),
            pc_events: f(self.pc_events),
        }
    }

    /// The four, in the order of the fields, with the names the streams' files usually get.
    pub fn named(&self) -> [(&'static str, &T); 4] {
        [
            ("memory", &self.memory),
            ("dma", &self.dma),
            ("stalls", &self.stalls),
            ("pc_events", &self.pc_events),
        ]
    }
}

/// A run of stalled cycles not yet written: `cycles` from `start`, for the reason whose code
/// is `code` (`cycles` 0: none).
#[derive(Clone, Copy, Default)]
struct StallRun {
    start: u64,
    cycles: u64,
    code: u8,
}

/// Writes an SPU's events into CTF streams (see the module documentation).
pub struct SpuTrace<'q, 'b, S> {
    streams: SpuStreams<RefCell<StreamWriter<'b, S>>>,
    pc_events: RefCell<PcEventQueue<'q, PcEventHits, PC_EVENTS>>,
    /// Cycles told so far.
    clock: Cell<u64>,
    stall_run: Cell<StallRun>,
    /// Notifications that reached a stream while it was being written (re-entrance).
    busy: Cell<u64>,
    /// PC events that fired beyond what one instruction records.
    pc_overflow: Cell<u64>,
}

impl<'q, 'b, S: PacketSink> SpuTrace<'q, 'b, S> {
    /// A trace into `streams`, its clock at 0, no PC event scheduled.
    pub fn new(streams: SpuStreams<StreamWriter<'b, S>>) -> Self {
        Self {
            streams: streams.map(RefCell::new),
            pc_events: RefCell::new(PcEventQueue::new()),
            clock: Cell::new(0),
            stall_run: Cell::new(StallRun::default()),
            busy: Cell::new(0),
            pc_overflow: Cell::new(0),
        }
    }

    /// Sets the clock: the SPU's cycle count when the trace is attached to one that already
    /// ran.
    pub fn set_clock(&self, cycle: u64) {
        self.clock.set(cycle);
    }

    /// The cycles told so far (from the clock's start).
    pub fn clock(&self) -> u64 {
        self.clock.get()
    }

    /// Schedules a PC event (a [`TracePcEvent`](super::TracePcEvent), or any event that
    /// records through [`PcEventHits`]). While one is scheduled the trace asks instruction
    /// mode for its per-instruction records.
    pub fn schedule_pc_event(
        &self,
        event: &'q dyn PcEvent<PcEventHits>,
    ) -> Result<(), PcEventError> {
        match self.pc_events.try_borrow_mut() {
            Ok(mut queue) => queue.schedule(event),
            Err(_) => Err(PcEventError::CapacityExceeded {
                capacity: PC_EVENTS,
            }),
        }
    }

    /// The streams' figures so far.
    pub fn stats(&self) -> SpuStreams<StreamStats> {
        let stats = |stream: &RefCell<StreamWriter<'b, S>>| {
            stream.try_borrow().map(|w| w.stats()).unwrap_or_default()
        };
        SpuStreams {
            memory: stats(&self.streams.memory),
            dma: stats(&self.streams.dma),
            stalls: stats(&self.streams.stalls),
            pc_events: stats(&self.streams.pc_events),
        }
    }

    /// Notifications lost because they reached a stream while it was being written (only a
    /// sink that notifies the SPU's observers could cause it), plus PC events beyond what one
    /// instruction records.
    pub fn lost_notifications(&self) -> u64 {
        self.busy.get() + self.pc_overflow.get()
    }

    /// Writes the stall run not yet written and hands every open packet to its sink.
    pub fn flush(&self) {
        self.end_stall_run();
        for (_, stream) in self.streams.named() {
            self.with(stream, |w| w.flush());
        }
    }

    /// Ends the trace: the last stall run and packets are written; the sinks and the streams'
    /// figures.
    pub fn finish(self) -> SpuStreams<(S, StreamStats)> {
        self.end_stall_run();
        self.streams.map(|stream| stream.into_inner().finish())
    }

    #[inline(always)]
    fn with(
        &self,
        stream: &RefCell<StreamWriter<'b, S>>,
        f: impl FnOnce(&mut StreamWriter<'b, S>),
    ) {
        match stream.try_borrow_mut() {
            Ok(mut writer) => f(&mut writer),
            Err(_) => self.busy.set(self.busy.get() + 1),
        }
    }

    #[inline(always)]
    pub(super) fn access(&self, access: &MemAccess) {
        // A refused event is counted by the stream.
        self.with(&self.streams.memory, |w| {
            let _ = w.mem_access(access);
        });
    }

    /// Accesses reported together, under one borrow of the stream.
    pub(super) fn accesses(&self, accesses: &[MemAccess]) {
        self.with(&self.streams.memory, |w| {
            for access in accesses {
                let _ = w.mem_access(access);
            }
        });
    }

    /// Runs the PC events at `pc` and records those that fired.
    pub(super) fn service_pc_events(&self, pc: u64, cycle: u64) {
        let mut hits = PcEventHits::at(pc, cycle);
        match self.pc_events.try_borrow_mut() {
            Ok(mut queue) => {
                queue.service(pc, &mut hits);
            }
            Err(_) => {
                self.busy.set(self.busy.get() + 1);
                return;
            }
        }
        self.pc_overflow
            .set(self.pc_overflow.get() + hits.overflow());
        if !hits.hits().is_empty() {
            self.with(&self.streams.pc_events, |w| {
                for &event in hits.hits() {
                    let _ = w.pc_event(cycle, pc, event);
                }
            });
        }
    }

    pub(super) fn pc_events_scheduled(&self) -> bool {
        self.pc_events
            .try_borrow()
            .is_ok_and(|queue| !queue.is_empty())
    }

    /// `cycles` stalled cycles for `reason` from `start`: added to the open run when they
    /// continue it, else the open run is written and they open the next.
    #[inline(always)]
    pub(super) fn stalled(&self, start: u64, cycles: u64, reason: StallReason) {
        let code = stall_code(reason);
        let mut run = self.stall_run.get();
        if run.code == code && run.start + run.cycles == start && run.cycles > 0 {
            run.cycles += cycles;
            self.stall_run.set(run);
        } else {
            self.end_stall_run();
            self.stall_run.set(StallRun {
                start,
                cycles,
                code,
            });
        }
    }

    fn end_stall_run(&self) {
        let run = self.stall_run.take();
        if run.cycles > 0 {
            self.with(&self.streams.stalls, |w| {
                let _ = w.stall_code(run.start, run.code, run.cycles);
            });
        }
    }
}

impl<S: PacketSink> SpuObserver for SpuTrace<'_, '_, S> {
    #[inline(always)]
    fn cycles(&self, n: u64) {
        self.clock.set(self.clock.get() + n);
    }

    #[inline(always)]
    fn retired(&self, _instruction: &Instruction, executed: &Executed, cycle: u64) {
        if let Some(access) = executed.access {
            self.access(&MemAccess {
                tick: cycle,
                pc: u64::from(executed.pc),
                address: u64::from(access.address),
                size: access.size,
                kind: access.kind,
            });
        }
        if self.pc_events_scheduled() {
            self.service_pc_events(u64::from(executed.pc), cycle);
        }
    }

    /// The batch's accesses at once, then its PC events from its records.
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        self.clock.set(self.clock.get() + batch.len() as u64);
        self.accesses(batch.accesses());
        if self.pc_events_scheduled() {
            for (index, record) in batch.records().iter().enumerate() {
                self.service_pc_events(u64::from(record.pc()), batch.cycle_after(index));
            }
        }
    }

    /// Only to find the PC events, when any is scheduled.
    #[inline(always)]
    fn needs_records(&self) -> bool {
        self.pc_events_scheduled()
    }

    #[inline(always)]
    fn issue_stall(&self, reason: StallReason) {
        self.stalled(self.clock.get(), 1, reason);
    }

    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        let start = self.clock.get() + 1;
        self.clock.set(self.clock.get() + n);
        if n > 0 {
            self.stalled(start, n, reason);
        }
    }

    #[inline(always)]
    fn dma(&self, event: &DmaEvent) {
        self.with(&self.streams.dma, |w| {
            let _ = w.dma(event);
        });
    }
}
