//! The probe points each SPU emits (gem5 names where gem5 has them).
//!
//! The pipeline and the instruction-mode loop are generic over a [`SpuObserver`]:
//! - [`NoProbes`] compiles every notification away (nothing is emitted);
//! - [`SpuProbes`] holds one [`ProbePoint`] per event. With no listener attached each
//!   notification is the point's `has_listeners` fast path: one load and one branch.
//!   Arguments that cost something to build (the data access record) are built only after
//!   that check. The pipeline goes further: a run that starts with no listener attached
//!   ([`SpuObserver::is_listening`]) runs as with [`NoProbes`] until it writes a `prof_cp`
//!   line (the only call back into the caller's code, which could attach one).
//!
//! | point | argument | when |
//! |---|---|---|
//! | `Cycles` | `u64` cycles elapsed | every cycle (1), or once for a run of stalled cycles |
//! | `RetiredInsts` | `u64` count (1) | an instruction completes at stage o |
//! | `RetiredInstsPC` | `u64` pc | same |
//! | `RetiredLoads` / `RetiredStores` / `RetiredBranches` | `u64` count (1) | a load / store / branch completes |
//! | `BranchMispredicts` | `u64` count (1) | a branch resolved against its prediction (real fetch only) |
//! | `DataAccess` | [`MemAccess`] (tick, pc, LS address, size 16, read/write) | a load or store completes |
//! | `IssueStall` | [`StallReason`] | a cycle in which nothing issued |
//! | `Issue` | [`IssueEvent`] (pc, pipe, dual) | an instruction issues |
//! | `Dma` | [`DmaEvent`] (SPU, command, tag, LSA, EA, size, issue and completion cycles) | a DMA transfer completes |
//! | `DmaLines` | [`MemAccess`] (completion cycle, pc 0, EA, bytes of the line, read for a get / write for a put) | per 128-byte main-memory line of a completed DMA transfer |
//!
//! The `u64` counting points feed the probe framework's PMU event counter directly
//! (`RetiredInsts`, `Cycles`, ... are its gem5 default mapping names).
//!
//! Observers compose: `(a, b)` notifies `a` then `b`, with each one's methods inlined. The
//! SPU's own emulated PMU needs no point at all: [`SpuPmuFeed`] is an observer that feeds
//! the PMU's event inputs directly (gem5's mapping plus the stall events), and
//! `(feed, &probes)` runs it next to the probe points' listeners.

mod observer;
mod pmu_feed;
mod stall;
mod topdown;

pub use observer::{IssueEvent, NoProbes, SpuObserver, completed_one_by_one};
pub use pmu_feed::SpuPmuFeed;
pub use stall::StallReason;

use crate::probe::listeners::{AccessKind, MemAccess};
use crate::probe::{Manager, ManagerError, ProbePoint};
use crate::spu::exec::{CompletedBatch, Executed};
use crate::spu::isa::Instruction;
use crate::spu::mfc::{DMA_LINE_BYTES, DmaEvent};

/// Listener capacity of each SPU probe point.
pub const LISTENERS_PER_POINT: usize = 4;

/// A counting point (`u64` argument).
pub type CountPoint<'a> = ProbePoint<'a, u64, LISTENERS_PER_POINT>;

/// The probe points of one SPU.
///
/// `'a` is the lifetime of the listener objects; points registered in a [`Manager`] need
/// `'static` listeners (see [`SpuProbes::register`]).
pub struct SpuProbes<'a> {
    /// `Cycles`.
    pub cycles: CountPoint<'a>,
    /// `RetiredInsts`.
    pub retired_insts: CountPoint<'a>,
    /// `RetiredInstsPC` (argument: the pc).
    pub retired_insts_pc: CountPoint<'a>,
    /// `RetiredLoads`.
    pub retired_loads: CountPoint<'a>,
    /// `RetiredStores`.
    pub retired_stores: CountPoint<'a>,
    /// `RetiredBranches`.
    pub retired_branches: CountPoint<'a>,
    /// `BranchMispredicts`.
    pub branch_mispredicts: CountPoint<'a>,
    /// `DataAccess`.
    pub data_access: ProbePoint<'a, MemAccess, LISTENERS_PER_POINT>,
    /// `IssueStall`.
    pub issue_stall: ProbePoint<'a, StallReason, LISTENERS_PER_POINT>,
    /// `Issue`.
    pub issue: ProbePoint<'a, IssueEvent, LISTENERS_PER_POINT>,
    /// `Dma`: every DMA transfer that completed (command, tag, LSA, EA, size, cycles).
    pub dma: ProbePoint<'a, DmaEvent, LISTENERS_PER_POINT>,
    /// `DmaLines`: the main-memory side of each DMA transfer, one access per 128-byte line it
    /// touches (a get reads main memory, a put writes it), at its completion cycle: what the
    /// memory-trace and stack-distance listeners take.
    pub dma_lines: ProbePoint<'a, MemAccess, LISTENERS_PER_POINT>,
}

impl Default for SpuProbes<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> SpuProbes<'a> {
    /// Points with no listeners.
    pub const fn new() -> Self {
        SpuProbes {
            cycles: ProbePoint::new(),
            retired_insts: ProbePoint::new(),
            retired_insts_pc: ProbePoint::new(),
            retired_loads: ProbePoint::new(),
            retired_stores: ProbePoint::new(),
            retired_branches: ProbePoint::new(),
            branch_mispredicts: ProbePoint::new(),
            data_access: ProbePoint::new(),
            issue_stall: ProbePoint::new(),
            issue: ProbePoint::new(),
            dma: ProbePoint::new(),
            dma_lines: ProbePoint::new(),
        }
    }

    /// Detaches every listener from every point.
    pub fn clear(&self) {
        self.cycles.clear();
        self.retired_insts.clear();
        self.retired_insts_pc.clear();
        self.retired_loads.clear();
        self.retired_stores.clear();
        self.retired_branches.clear();
        self.branch_mispredicts.clear();
        self.data_access.clear();
        self.issue_stall.clear();
        self.issue.clear();
        self.dma.clear();
        self.dma_lines.clear();
    }
}

impl<'p> SpuProbes<'static> {
    /// Registers the points under their names (`Cycles`, `RetiredInsts`, `RetiredInstsPC`,
    /// `RetiredLoads`, `RetiredStores`, `RetiredBranches`, `BranchMispredicts`, `DataAccess`,
    /// `IssueStall`, `Issue`, `Dma`, `DmaLines`). One manager per SPU: the names are the same
    /// for every SPU.
    pub fn register<const P: usize>(
        &'p self,
        manager: &mut Manager<'p, P>,
    ) -> Result<(), ManagerError<'static>> {
        manager.register("Cycles", &self.cycles)?;
        manager.register("RetiredInsts", &self.retired_insts)?;
        manager.register("RetiredInstsPC", &self.retired_insts_pc)?;
        manager.register("RetiredLoads", &self.retired_loads)?;
        manager.register("RetiredStores", &self.retired_stores)?;
        manager.register("RetiredBranches", &self.retired_branches)?;
        manager.register("BranchMispredicts", &self.branch_mispredicts)?;
        manager.register("DataAccess", &self.data_access)?;
        manager.register("IssueStall", &self.issue_stall)?;
        manager.register("Issue", &self.issue)?;
        manager.register("Dma", &self.dma)?;
        manager.register("DmaLines", &self.dma_lines)
    }
}

impl SpuProbes<'_> {
    /// Whether a point that hears of instructions one by one (all but `DataAccess` among the
    /// points an instruction-mode batch reports) has a listener.
    #[inline(always)]
    fn per_instruction_points_listen(&self) -> bool {
        [
            &self.cycles,
            &self.retired_insts,
            &self.retired_insts_pc,
            &self.retired_loads,
            &self.retired_stores,
            &self.retired_branches,
        ]
        .iter()
        .any(|point| point.has_listeners())
    }
}

impl SpuObserver for SpuProbes<'_> {
    /// Whether any point has a listener. Listeners attach through `&self` only while no
    /// listener runs (a point with none cannot call out), so a run that starts with none
    /// attached gets none until it calls the caller back.
    fn is_listening(&self) -> bool {
        self.per_instruction_points_listen()
            || self.branch_mispredicts.has_listeners()
            || self.data_access.has_listeners()
            || self.issue_stall.has_listeners()
            || self.issue.has_listeners()
            || self.dma.has_listeners()
            || self.dma_lines.has_listeners()
    }

    #[inline(always)]
    fn cycles(&self, n: u64) {
        self.cycles.notify(&n);
    }

    #[inline(always)]
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        self.retired_insts.notify(&1);
        self.retired_insts_pc.notify(&u64::from(executed.pc));
        if let Some(access) = executed.access {
            match access.kind {
                AccessKind::Read => self.retired_loads.notify(&1),
                AccessKind::Write => self.retired_stores.notify(&1),
                // An SPU load or store is never an instruction fetch.
                AccessKind::InstructionFetch => {}
            }
            if self.data_access.has_listeners() {
                self.data_access.notify(&MemAccess {
                    tick: cycle,
                    pc: u64::from(executed.pc),
                    address: u64::from(access.address),
                    size: access.size,
                    kind: access.kind,
                });
            }
        }
        if self.retired_branches.has_listeners() && instruction.is_branch() {
            self.retired_branches.notify(&1);
        }
    }

    /// One by one while any point but `DataAccess` has a listener. Otherwise only the
    /// `DataAccess` listeners can hear anything, and each gets the batch's accesses in one
    /// [`notify_all`](crate::probe::Listener::notify_all) call; a listener one of them
    /// attaches to another point meanwhile hears from the next batch on.
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        if self.per_instruction_points_listen() {
            completed_one_by_one(self, batch);
        } else {
            self.data_access.notify_all(batch.accesses());
        }
    }

    /// Only for the points [`completed`](SpuObserver::completed) reports one by one.
    #[inline(always)]
    fn needs_records(&self) -> bool {
        self.per_instruction_points_listen()
    }

    #[inline(always)]
    fn mispredict(&self) {
        self.branch_mispredicts.notify(&1);
    }

    #[inline(always)]
    fn issue(&self, event: IssueEvent) {
        self.issue.notify(&event);
    }

    #[inline(always)]
    fn issue_stall(&self, reason: StallReason) {
        self.issue_stall.notify(&reason);
    }

    #[inline(always)]
    fn dma(&self, event: &DmaEvent) {
        self.dma.notify(event);
        if self.dma_lines.has_listeners() {
            let kind = if event.is_get() {
                AccessKind::Read
            } else {
                AccessKind::Write
            };
            let end = event.ea + u64::from(event.size);
            let mut line = event.ea & !(DMA_LINE_BYTES - 1);
            while line < end {
                let start = line.max(event.ea);
                let stop = (line + DMA_LINE_BYTES).min(end);
                self.dma_lines.notify(&MemAccess {
                    tick: event.completed,
                    pc: 0,
                    address: start,
                    size: (stop - start) as u32,
                    kind,
                });
                line += DMA_LINE_BYTES;
            }
        }
    }

    /// `Cycles` listeners get the `n` cycles in one notification, before the `n`
    /// `IssueStall` notifications.
    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        self.cycles.notify(&n);
        if self.issue_stall.has_listeners() {
            for _ in 0..n {
                self.issue_stall.notify(&reason);
            }
        }
    }
}
