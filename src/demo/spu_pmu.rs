//! Section 4: each SPU's emulated PMU, programmed through the same driver as the real core.
//!
//! The SPU's probe points feed the PMU through the probe framework's PMU event counter
//! (gem5's point-to-event wiring); the two stall events come from the `IssueStall` point
//! through [`StallFeed`]. Eight events do not fit on 6 event counters + the cycle counter, so
//! each SPU runs twice with two event groups (the model is deterministic: the second run
//! repeats CPU_CYCLES and INST_RETIRED, and the demo checks they come out equal).

use super::output::{out, outln};
use pmprobe::pmu::{EmulatedPmu, Event};
use pmprobe::pmu::{MetricValue, ratio};
use pmprobe::pmu::{Pmu, Snapshot};
use pmprobe::probe::listeners::{PmuEventCounter, PmuFeed};
use pmprobe::probe::{Listener, ProbeError};
use pmprobe::spu::probes::{CountPoint, SpuProbes, StallReason};

/// The events of run 1 (cycle counter + 6 event counters).
pub const GROUP_1: [Event; 7] = [
    Event::CPU_CYCLES,
    Event::INST_RETIRED,
    Event::LD_RETIRED,
    Event::ST_RETIRED,
    Event::BR_RETIRED,
    Event::BR_MIS_PRED,
    Event::STALL_FRONTEND,
];

/// The events of run 2: the one that did not fit, plus the two that tie the runs together.
pub const GROUP_2: [Event; 3] = [Event::CPU_CYCLES, Event::INST_RETIRED, Event::STALL_BACKEND];

/// Feeds `IssueStall` into the emulated PMU's stall events.
pub struct StallFeed<'p> {
    pmu: &'p EmulatedPmu,
}

impl<'p> StallFeed<'p> {
    /// A feed into `pmu`.
    pub const fn new(pmu: &'p EmulatedPmu) -> Self {
        Self { pmu }
    }

    /// Whether the PMU counts a stall event (attach only then: an idle point costs nothing).
    pub fn is_wanted(&self) -> bool {
        self.pmu.is_counting(Event::STALL_FRONTEND.number())
            || self.pmu.is_counting(Event::STALL_BACKEND.number())
    }
}

impl Listener<StallReason> for StallFeed<'_> {
    fn notify(&self, reason: &StallReason) {
        self.pmu.count(reason.pmu_event().number(), 1);
    }
}

/// The SPU counting point a PMU feed's point name stands for (`None`: the SPU has no such
/// point, e.g. gem5's `ActiveCycles`, whose event the `Cycles` feed already provides).
pub fn count_point<'a, 'l>(probes: &'a SpuProbes<'l>, name: &str) -> Option<&'a CountPoint<'l>> {
    Some(match name {
        "Cycles" => &probes.cycles,
        "RetiredInsts" => &probes.retired_insts,
        "RetiredInstsPC" => &probes.retired_insts_pc,
        "RetiredLoads" => &probes.retired_loads,
        "RetiredStores" => &probes.retired_stores,
        "RetiredBranches" => &probes.retired_branches,
        "BranchMispredicts" => &probes.branch_mispredicts,
        _ => return None,
    })
}

/// The PMU event counter of one SPU (gem5's seven mappings).
pub type Counter<'s, 'p> = PmuEventCounter<'s, &'p EmulatedPmu, 8>;

/// Attaches every feed whose events the PMU counts to the SPU point of its name (what
/// `PmuEventCounter::sync_attachments` does through a `Manager`, which needs `'static`
/// listeners; these live on the firmware's stack). Returns the number attached.
pub fn attach_feeds<'l, 'p: 'l>(
    probes: &SpuProbes<'l>,
    feeds: &'l [PmuFeed<'l, &'p EmulatedPmu>],
) -> Result<usize, ProbeError> {
    let mut attached = 0;
    for feed in feeds.iter().filter(|feed| feed.is_wanted()) {
        if let Some(point) = count_point(probes, feed.point()) {
            point.add_object(feed)?;
            attached += 1;
        }
    }
    Ok(attached)
}

/// Programs `events` on the PMU through the driver and starts counting.
pub fn program<B: pmprobe::pmu::PmuBackend>(
    pmu: &mut Pmu<B>,
    events: &[Event],
) -> Result<(), pmprobe::pmu::Error> {
    pmu.reset()?;
    for &event in events {
        pmu.program(event)?;
    }
    pmu.start()
}

/// The counts of both runs of one SPU.
#[derive(Clone)]
pub struct SpuCounts {
    /// Run 1 ([`GROUP_1`]).
    pub run1: Snapshot,
    /// Run 2 ([`GROUP_2`]).
    pub run2: Snapshot,
}

impl SpuCounts {
    /// The count of `event`, from the run that counted it (run 1 first).
    pub fn get(&self, event: Event) -> Option<u64> {
        self.run1
            .count_of(event)
            .or_else(|| self.run2.count_of(event))
    }

    /// `get`, 0 when not counted (for arithmetic in checks; printing uses `get`).
    pub fn value(&self, event: Event) -> u64 {
        self.get(event).unwrap_or(0)
    }
}

fn percent(part: u64, whole: u64) -> MetricValue {
    if whole == 0 {
        MetricValue::Undefined
    } else {
        MetricValue::Value(100.0 * part as f64 / whole as f64)
    }
}

/// Which fetch model produced the branch counts (it decides what BR_MIS_PRED can show).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Fetch {
    /// Instruction mode: no pipeline, no prediction.
    None,
    /// The ideal fetch model: the correct path always, so nothing mispredicts.
    Ideal,
    /// The real fetch unit: static not-taken prediction, hints, mispredict states.
    Real,
}

/// Prints the `perf stat`-like table of one SPU.
pub fn print_table(counts: &SpuCounts, fetch: Fetch) {
    outln!("  Performance counter stats (emulated PMU, driver API):");
    let cycles = counts.value(Event::CPU_CYCLES);
    let rows = GROUP_1.iter().chain(GROUP_2.iter().skip(2));
    for (i, &event) in rows.enumerate() {
        let run = if i < GROUP_1.len() { 1 } else { 2 };
        let Some(count) = counts.get(event) else {
            outln!("  {:>14}  {:<16} (not counted)", "-", event);
            continue;
        };
        out!("  {count:>14}  {event:<16} run {run}");
        match event {
            Event::INST_RETIRED => {
                let ipc = ratio(&counts.run1, Event::INST_RETIRED, Event::CPU_CYCLES);
                out!("  # {ipc:>6.2} insn per cycle");
            }
            Event::BR_MIS_PRED => {
                let rate = percent(count, counts.value(Event::BR_RETIRED));
                out!("  # {rate:>6.2} % of branches");
                match fetch {
                    Fetch::None => out!(" (instruction mode: no prediction)"),
                    Fetch::Ideal => out!(" (ideal fetch: never mispredicts)"),
                    Fetch::Real => {}
                }
            }
            Event::STALL_FRONTEND | Event::STALL_BACKEND => {
                let share = percent(count, cycles);
                out!("  # {share:>6.2} % of cycles");
            }
            _ => {}
        }
        outln!();
    }
}
