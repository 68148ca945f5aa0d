//! Section 4: each SPU's emulated PMU, programmed through the same driver as the real core.
//!
//! The SPU feeds its PMU through [`SpuPmuFeed`] (gem5's point-to-event mapping plus the two
//! stall events, straight into the PMU's event inputs), composed with the probe points that
//! carry the other listeners: see [`observer`]. Eight events do not fit on 6 event counters +
//! the cycle counter, so each SPU runs twice with two event groups (the model is deterministic: the second run
//! repeats CPU_CYCLES and INST_RETIRED, and the demo checks they come out equal).

use super::output::{out, outln};
use pmprobe::pmu::{EmulatedPmu, Event};
use pmprobe::pmu::{EventInputsFull, MetricValue, ratio};
use pmprobe::pmu::{Pmu, Snapshot};
use pmprobe::spu::probes::{SpuPmuFeed, SpuProbes};

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

/// What observes one counted run: the feed into `cpu`, then the probe points (a static
/// composition: the feed's adds are inlined into the model, the points cost one load and one
/// branch each until a listener is attached).
pub type Observer<'p, 'a, 'l> = (SpuPmuFeed<'p>, &'a SpuProbes<'l>);

/// The observer of a run counted by `cpu` with the listeners on `probes`.
pub fn observer<'p, 'a, 'l>(
    cpu: &'p EmulatedPmu,
    probes: &'a SpuProbes<'l>,
) -> Result<Observer<'p, 'a, 'l>, EventInputsFull> {
    Ok((SpuPmuFeed::new(cpu)?, probes))
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
