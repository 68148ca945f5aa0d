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
//! Besides the points, [`SpuObserver::channel`] hears of every channel instruction that
//! completes ([`ChannelEvent`]: the channel, the value, the SPU's state after it), in program
//! order in both modes: what a checker of the program's DMA traffic needs
//! ([`dma_check`](crate::spu::dma_check)).
//!
//! The `u64` counting points feed the probe framework's PMU event counter directly
//! (`RetiredInsts`, `Cycles`, ... are its gem5 default mapping names).
//!
//! Observers compose: `(a, b)` notifies `a` then `b`, with each one's methods inlined. The
//! SPU's own emulated PMU needs no point at all: [`SpuPmuFeed`] is an observer that feeds
//! the PMU's event inputs directly (gem5's mapping plus the stall events), and
//! `(feed, &probes)` runs it next to the probe points' listeners.

mod channel_event;
mod pmu_feed;
mod topdown;

pub use channel_event::ChannelEvent;
pub use pmu_feed::SpuPmuFeed;

use crate::probe::listeners::{AccessKind, MemAccess};
use crate::probe::{Manager, ManagerError, ProbePoint};
use crate::spu::exec::{CompletedBatch, Executed};
use crate::spu::isa::IClass;
use crate::spu::isa::Instruction;
use crate::spu::mfc::{DMA_LINE_BYTES, DmaEvent};

/// Listener capacity of each SPU probe point.
pub const LISTENERS_PER_POINT: usize = 4;

/// Why nothing issued in a cycle (the simulator's stall categories).
///
/// `repr(u8)` with `Initialisation` first: a reset pipeline's stages carry it, and a reset
/// pipeline is all-zero bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum StallReason {
    /// The pipeline is filling after the SPU started.
    Initialisation,
    /// Waiting for the corrected path after a mispredicted branch.
    BranchMiss,
    /// The predicted path buffer could not be filled.
    PrefetchMiss,
    /// A source register is the unreleased target of this class's instruction.
    Dependency(IClass),
    /// An SP instruction would use the shared FP unit in the cycle an FP7/FPD one uses it.
    FpResource,
    /// A hinted branch waits for its target to arrive.
    HintTarget,
    /// The issue stall after a class with a non-zero `stall` (FPD: the DP pipeline).
    DpPipeline,
    /// Fetch waits for a serializing instruction (channel access, `stop`, halt) to complete.
    Channel,
    /// A channel instruction waits for the MFC or an event (tag status, atomic status, a
    /// list stall, a full command queue, the decrementer): the SPU is blocked on a channel.
    ChannelWait,
    /// A load or store waits for the local-store port, which DMA data has this cycle.
    DmaLocalStore,
}

impl StallReason {
    /// The PMUv3 stall event this reason feeds: waiting on operands, execution resources, the
    /// MFC or the local-store port is a back-end stall (STALL_BACKEND, 0x24); waiting for
    /// instructions (mispredict, prefetch miss, hint target, a serializing instruction,
    /// start-up) is a front-end stall (STALL_FRONTEND, 0x23).
    pub const fn pmu_event(self) -> crate::pmu::Event {
        match self {
            // Waiting on the MFC is waiting on memory, the back end's.
            Self::Dependency(_)
            | Self::FpResource
            | Self::DpPipeline
            | Self::ChannelWait
            | Self::DmaLocalStore => crate::pmu::Event::STALL_BACKEND,
            Self::BranchMiss
            | Self::PrefetchMiss
            | Self::HintTarget
            | Self::Channel
            | Self::Initialisation => crate::pmu::Event::STALL_FRONTEND,
        }
    }
}

/// An instruction issued to an execution pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct IssueEvent {
    /// The cycle.
    pub cycle: u64,
    /// Its address.
    pub pc: u32,
    /// The execution pipe it went to (0 even, 1 odd).
    pub pipe: u8,
    /// Issued together with another instruction.
    pub dual: bool,
}

/// What the SPU reports to observers. Every method but [`completed`](Self::completed) has an
/// empty default.
///
/// Instruction mode runs up to [`COMPLETED_BATCH`](crate::spu::exec::COMPLETED_BATCH) instructions at a time and then hands them
/// to [`completed`](Self::completed), whose default tells the observer about them as running
/// them one by one would (`cycles(1)`, then `retired` with the cycle count after the
/// instruction). Observers cannot reach the SPU, so hearing a few instructions late changes
/// nothing they can see; a run never goes past a `prof_cp` line, a stop or a channel wait
/// before its observers have heard of everything before it.
pub trait SpuObserver {
    /// Whether any notification can have an effect now. A model may skip every notification
    /// of a run when this is `false` at its start (it asks again after anything that could
    /// attach a listener during the run, such as writing a `prof_cp` line to the caller's
    /// output). The default, `true`, never skips.
    #[inline(always)]
    fn is_listening(&self) -> bool {
        true
    }
    /// `n` cycles elapsed.
    #[inline(always)]
    fn cycles(&self, _n: u64) {}
    /// An instruction completed; `executed` is its functional effect, `cycle` the current cycle.
    #[inline(always)]
    fn retired(&self, _instruction: &Instruction, _executed: &Executed, _cycle: u64) {}
    /// Instruction mode: the instructions of `batch` completed, one per cycle. The default
    /// reports each as [`cycles`](Self::cycles)`(1)` then [`retired`](Self::retired).
    /// An observer that can take the batch at once overrides it; a composed pair `(a, b)`
    /// gives `a` the whole batch, then `b`.
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        completed_one_by_one(self, batch);
    }
    /// Whether the next [`completed`](Self::completed) will read the batch's records
    /// ([`CompletedBatch::records`], [`CompletedBatch::instruction`]); asked before each batch
    /// runs. With `false`, instruction mode writes none (the batch's length, counts and LS
    /// accesses are always there) and the batch's records are empty: an observer that sums
    /// counts or only wants the accesses says so and pays for neither. The default, `true`,
    /// suits the default `completed`.
    #[inline(always)]
    fn needs_records(&self) -> bool {
        true
    }
    /// A branch resolved against its prediction.
    #[inline(always)]
    fn mispredict(&self) {}
    /// An instruction issued.
    #[inline(always)]
    fn issue(&self, _event: IssueEvent) {}
    /// Nothing issued this cycle.
    #[inline(always)]
    fn issue_stall(&self, _reason: StallReason) {}
    /// `n` cycles elapsed in which nothing issued, for `reason`, and nothing else happened
    /// (no instruction completed): what [`cycles`](Self::cycles)`(1)` then
    /// [`issue_stall`](Self::issue_stall)`(reason)`, `n` times over, report. The pipeline's
    /// stall skip reports such a run of cycles at once; the default reports it cycle by cycle.
    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        for _ in 0..n {
            self.cycles(1);
            self.issue_stall(reason);
        }
    }
    /// A DMA transfer completed (in instruction mode, right after the instruction that
    /// issued it).
    #[inline(always)]
    fn dma(&self, _event: &DmaEvent) {}
    /// A channel instruction completed (after its [`retired`](Self::retired) or its batch),
    /// before the next instruction takes effect, in both modes.
    #[inline(always)]
    fn channel(&self, _event: &ChannelEvent<'_>) {}
}

/// What [`SpuObserver::completed`] does by default: `observer.cycles(1)` then
/// `observer.retired(..)` for each instruction of `batch`, oldest first. For observers that
/// override `completed` and sometimes need the plain way.
#[inline(always)]
pub fn completed_one_by_one<O: SpuObserver + ?Sized>(observer: &O, batch: &CompletedBatch<'_>) {
    for (index, record) in batch.records().iter().enumerate() {
        observer.cycles(1);
        if let Some(instruction) = batch.instruction(record) {
            observer.retired(&instruction, &record.executed(), batch.cycle_after(index));
        }
    }
}

/// A reference observes as what it refers to.
impl<T: SpuObserver + ?Sized> SpuObserver for &T {
    #[inline(always)]
    fn is_listening(&self) -> bool {
        (**self).is_listening()
    }
    #[inline(always)]
    fn cycles(&self, n: u64) {
        (**self).cycles(n);
    }
    #[inline(always)]
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        (**self).retired(instruction, executed, cycle);
    }
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        (**self).completed(batch);
    }
    #[inline(always)]
    fn needs_records(&self) -> bool {
        (**self).needs_records()
    }
    #[inline(always)]
    fn mispredict(&self) {
        (**self).mispredict();
    }
    #[inline(always)]
    fn issue(&self, event: IssueEvent) {
        (**self).issue(event);
    }
    #[inline(always)]
    fn issue_stall(&self, reason: StallReason) {
        (**self).issue_stall(reason);
    }
    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        (**self).stalled_cycles(reason, n);
    }
    #[inline(always)]
    fn dma(&self, event: &DmaEvent) {
        (**self).dma(event);
    }
    #[inline(always)]
    fn channel(&self, event: &ChannelEvent<'_>) {
        (**self).channel(event);
    }
}

/// Two observers composed at build time: every notification goes to the first, then to the
/// second, both inlined into the model (no list, no indirect call).
impl<A: SpuObserver, B: SpuObserver> SpuObserver for (A, B) {
    #[inline(always)]
    fn is_listening(&self) -> bool {
        self.0.is_listening() || self.1.is_listening()
    }
    #[inline(always)]
    fn cycles(&self, n: u64) {
        self.0.cycles(n);
        self.1.cycles(n);
    }
    #[inline(always)]
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        self.0.retired(instruction, executed, cycle);
        self.1.retired(instruction, executed, cycle);
    }
    /// The whole batch to the first, then to the second (each hears its notifications in
    /// order; see [`completed`](SpuObserver::completed)).
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        self.0.completed(batch);
        self.1.completed(batch);
    }
    #[inline(always)]
    fn needs_records(&self) -> bool {
        self.0.needs_records() || self.1.needs_records()
    }
    #[inline(always)]
    fn mispredict(&self) {
        self.0.mispredict();
        self.1.mispredict();
    }
    #[inline(always)]
    fn issue(&self, event: IssueEvent) {
        self.0.issue(event);
        self.1.issue(event);
    }
    #[inline(always)]
    fn issue_stall(&self, reason: StallReason) {
        self.0.issue_stall(reason);
        self.1.issue_stall(reason);
    }
    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        self.0.stalled_cycles(reason, n);
        self.1.stalled_cycles(reason, n);
    }
    #[inline(always)]
    fn dma(&self, event: &DmaEvent) {
        self.0.dma(event);
        self.1.dma(event);
    }
    #[inline(always)]
    fn channel(&self, event: &ChannelEvent<'_>) {
        self.0.channel(event);
        self.1.channel(event);
    }
}

/// Emits nothing; the notifications compile away.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProbes;

impl SpuObserver for NoProbes {
    #[inline(always)]
    fn is_listening(&self) -> bool {
        false
    }
    #[inline(always)]
    fn stalled_cycles(&self, _reason: StallReason, _n: u64) {}
}

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
