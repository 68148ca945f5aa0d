//! The SPU's events straight into its emulated PMU: an observer with no listener list.
#![forbid(unsafe_code)]

use super::observer::{SpuObserver, completed_one_by_one};
use super::stall::StallReason;
use crate::pmu::{EmulatedPmu, Event, EventInput, EventInputsFull};
use crate::probe::listeners::AccessKind;
use crate::spu::exec::{COMPLETED_BATCH, CompletedBatch, Executed};
use crate::spu::isa::Instruction;
use crate::spu::mfc::{DmaEvent, lines};

/// Feeds an [`EmulatedPmu`] from an SPU's notifications, as hardware wires events into its
/// counters: each notification is one [`EventInput::add`] per event (a compare and a
/// subtraction, inlined into the model), with no listener list and no call. The PMU applies
/// the counts when a register is read or an overflow falls due, so its registers, overflow
/// flags and interrupt line are those of counting every event on arrival.
///
/// The mapping is gem5's ([`GEM5_DEFAULT_MAPPINGS`](crate::probe::listeners::GEM5_DEFAULT_MAPPINGS))
/// plus the stall events:
///
/// | notification | events |
/// |---|---|
/// | [`cycles`](SpuObserver::cycles) (`Cycles`) | CPU_CYCLES |
/// | [`retired`](SpuObserver::retired) (`RetiredInsts`) | INST_RETIRED |
/// | a retired load (`RetiredLoads`) | LD_RETIRED, MEM_ACCESS |
/// | a retired store (`RetiredStores`) | ST_RETIRED, MEM_ACCESS |
/// | a retired branch (`RetiredBranches`) | BR_RETIRED |
/// | [`mispredict`](SpuObserver::mispredict) (`BranchMispredicts`) | BR_MIS_PRED, BR_MIS_PRED_RETIRED |
/// | [`issue_stall`](SpuObserver::issue_stall) (`IssueStall`) | STALL_FRONTEND or STALL_BACKEND ([`StallReason::pmu_event`]: a channel wait and DMA at the LS port are back-end stalls) |
/// | [`dma`](SpuObserver::dma) (`Dma`) | BUS_ACCESS, one per 128-byte line the transfer moves (a DMA request on the bus) |
///
/// Compose it with the SPU's probe points for everything else: `(feed, &probes)` is an
/// observer that notifies both.
///
/// ```
/// use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
/// use pmprobe::spu::probes::{SpuObserver, SpuPmuFeed, SpuProbes};
/// let cpu = EmulatedPmu::neoverse_v1_like();
/// let mut pmu = Pmu::new(&cpu)?;
/// let cycles = pmu.program(Event::CPU_CYCLES)?;
/// pmu.start()?;
/// let feed = SpuPmuFeed::new(&cpu).expect("free event inputs");
/// let probes = SpuProbes::new();
/// let observer = (feed, &probes);
/// observer.cycles(3); // what the SPU model does every cycle
/// assert_eq!(pmu.read(cycles)?, 3);
/// # Ok::<(), pmprobe::pmu::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SpuPmuFeed<'p> {
    cycles: EventInput<'p>,
    instructions: EventInput<'p>,
    loads: EventInput<'p>,
    stores: EventInput<'p>,
    memory: EventInput<'p>,
    branches: EventInput<'p>,
    mispredicts: EventInput<'p>,
    mispredicts_retired: EventInput<'p>,
    frontend: EventInput<'p>,
    backend: EventInput<'p>,
    bus: EventInput<'p>,
}

impl<'p> SpuPmuFeed<'p> {
    /// The events this feed drives, in the order of the table above.
    pub const EVENTS: [Event; 11] = [
        Event::CPU_CYCLES,
        Event::INST_RETIRED,
        Event::LD_RETIRED,
        Event::ST_RETIRED,
        Event::MEM_ACCESS,
        Event::BR_RETIRED,
        Event::BR_MIS_PRED,
        Event::BR_MIS_PRED_RETIRED,
        Event::STALL_FRONTEND,
        Event::STALL_BACKEND,
        Event::BUS_ACCESS,
    ];

    /// A feed into `pmu`, through its event inputs (11 of them, shared with any other
    /// input of the same events).
    pub fn new(pmu: &'p EmulatedPmu) -> Result<Self, EventInputsFull> {
        let input = |event: Event| pmu.event_input(event.number());
        Ok(Self {
            cycles: input(Event::CPU_CYCLES)?,
            instructions: input(Event::INST_RETIRED)?,
            loads: input(Event::LD_RETIRED)?,
            stores: input(Event::ST_RETIRED)?,
            memory: input(Event::MEM_ACCESS)?,
            branches: input(Event::BR_RETIRED)?,
            mispredicts: input(Event::BR_MIS_PRED)?,
            mispredicts_retired: input(Event::BR_MIS_PRED_RETIRED)?,
            frontend: input(Event::STALL_FRONTEND)?,
            backend: input(Event::STALL_BACKEND)?,
            bus: input(Event::BUS_ACCESS)?,
        })
    }

    #[inline(always)]
    fn stall_input(&self, reason: StallReason) -> &EventInput<'p> {
        if reason.pmu_event() == Event::STALL_BACKEND {
            &self.backend
        } else {
            &self.frontend
        }
    }
}

impl SpuObserver for SpuPmuFeed<'_> {
    #[inline(always)]
    fn cycles(&self, n: u64) {
        self.cycles.add(n);
    }

    /// In the order the SPU's probe points notify them: INST_RETIRED, the load or store
    /// events, BR_RETIRED.
    #[inline(always)]
    fn retired(&self, instruction: &Instruction, executed: &Executed, _cycle: u64) {
        self.instructions.add(1);
        if let Some(access) = executed.access {
            match access.kind {
                AccessKind::Read => {
                    self.loads.add(1);
                    self.memory.add(1);
                }
                AccessKind::Write => {
                    self.stores.add(1);
                    self.memory.add(1);
                }
                // An SPU load or store is never an instruction fetch.
                AccessKind::InstructionFetch => {}
            }
        }
        if instruction.is_branch() {
            self.branches.add(1);
        }
    }

    /// Records only when a counter of these events is near enough to overflowing that the
    /// next batch may need the one-by-one way of [`completed`](SpuObserver::completed).
    #[inline(always)]
    fn needs_records(&self) -> bool {
        let room = COMPLETED_BATCH as u64;
        [
            &self.cycles,
            &self.instructions,
            &self.loads,
            &self.stores,
            &self.memory,
            &self.branches,
        ]
        .iter()
        .any(|input| input.headroom() <= room)
    }

    /// One add per event for the whole batch when no counter of these events overflows in
    /// it; otherwise one by one, so that an overflow falls between the same two events as
    /// when the instructions come one at a time.
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        // A batch holds at most COMPLETED_BATCH records.
        let n = batch.len() as u64;
        let (loads, stores, branches) = (batch.loads(), batch.stores(), batch.branches());
        let fits = n < self.cycles.headroom()
            && n < self.instructions.headroom()
            && loads < self.loads.headroom()
            && stores < self.stores.headroom()
            && loads + stores < self.memory.headroom()
            && branches < self.branches.headroom();
        if fits {
            self.cycles.add(n);
            self.instructions.add(n);
            self.loads.add(loads);
            self.stores.add(stores);
            self.memory.add(loads + stores);
            self.branches.add(branches);
        } else {
            completed_one_by_one(self, batch);
        }
    }

    #[inline(always)]
    fn mispredict(&self) {
        self.mispredicts.add(1);
        self.mispredicts_retired.add(1);
    }

    #[inline(always)]
    fn issue_stall(&self, reason: StallReason) {
        self.stall_input(reason).add(1);
    }

    /// Two adds for the whole run of cycles when no counter of either event overflows in
    /// it; otherwise cycle by cycle, so that an overflow (and with PMCR.FZO the freeze it
    /// starts) falls between the same two events as when the cycles come one at a time.
    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        let stall = self.stall_input(reason);
        if n < self.cycles.headroom() && n < stall.headroom() {
            self.cycles.add(n);
            stall.add(n);
        } else {
            for _ in 0..n {
                self.cycles.add(1);
                stall.add(1);
            }
        }
    }

    #[inline(always)]
    fn dma(&self, event: &DmaEvent) {
        self.bus.add(lines(event.ea, event.size));
    }
}
