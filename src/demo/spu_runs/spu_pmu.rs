//! Section 4: each SPU's emulated PMU, programmed through the same driver as the real core and
//! multiplexed as perf multiplexes: in one run, ten of the eleven events the SPU feeds (all but
//! BUS_ACCESS, which counts DMA lines: these kernels do no DMA).
//!
//! The SPU feeds its PMU through [`SpuPmuFeed`] (gem5's point-to-event mapping plus the two
//! stall events, straight into the PMU's event inputs), composed with the probe points that
//! carry the other listeners: see [`observer`]. Ten events (thirteen with the repeats below) do
//! not fit on 6 event counters + the cycle counter, so a [`Multiplexer`] shares the counters:
//! a pinned group that counts all the time (its counts stay exact, and the cross-checks that
//! need exact counts use them) and three flexible groups of three that take turns on the other
//! three counters, rotated every [`ROTATION_CYCLES`] SPU cycles. The clock is the SPU's own
//! cycle count, so the turns fall at the same points on any core and in any company.

use core::fmt::Write as _;

use crate::demo::shared::output::{Indented, outln};
use pmprobe::pmu::{EmulatedPmu, Event, EventInputsFull, GroupId, GroupKind};
use pmprobe::pmu::{EventReading, Multiplexer, MuxError, Pmu, PmuBackend, Readings};
use pmprobe::spu::probes::{SpuPmuFeed, SpuProbes};

/// The group that counts all the time: the cycle counter, instructions, loads and stores.
pub const PINNED: [Event; 4] = [
    Event::CPU_CYCLES,
    Event::INST_RETIRED,
    Event::LD_RETIRED,
    Event::ST_RETIRED,
];

/// The groups that take turns on the three counters left, one at a time. Each is a set whose
/// ratios matter (and can be checked) within one interval: mispredicts of the branches, stall
/// cycles of the cycles, loads and stores of the memory accesses.
pub const FLEXIBLE: [[Event; 3]; 3] = [
    [
        Event::BR_RETIRED,
        Event::BR_MIS_PRED,
        Event::BR_MIS_PRED_RETIRED,
    ],
    [
        Event::CPU_CYCLES,
        Event::STALL_FRONTEND,
        Event::STALL_BACKEND,
    ],
    [Event::MEM_ACCESS, Event::LD_RETIRED, Event::ST_RETIRED],
];

/// The flexible groups' indexes in [`FLEXIBLE`], by name.
pub const BRANCHES: usize = 0;
/// The stall group.
pub const STALLS: usize = 1;
/// The memory group.
pub const MEMORY: usize = 2;

/// SPU cycles between two rotations (instructions in instruction mode).
pub const ROTATION_CYCLES: u64 = 2048;
/// Events of the multiplexer: the pinned group and the three flexible ones.
pub const EVENTS: usize = PINNED.len() + 3 * FLEXIBLE.len();
/// Its groups.
pub const GROUPS: usize = 1 + FLEXIBLE.len();

/// The seven events that fit the counters at once (the channel pair counts them without
/// multiplexing).
pub const GROUP_1: [Event; 7] = [
    Event::CPU_CYCLES,
    Event::INST_RETIRED,
    Event::LD_RETIRED,
    Event::ST_RETIRED,
    Event::BR_RETIRED,
    Event::BR_MIS_PRED,
    Event::STALL_FRONTEND,
];

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
pub fn program<B: PmuBackend>(
    pmu: &mut Pmu<B>,
    events: &[Event],
) -> Result<(), pmprobe::pmu::Error> {
    pmu.reset()?;
    for &event in events {
        pmu.program(event)?;
    }
    pmu.start()
}

/// The SPU's multiplexer.
pub type SpuMux<'p, 'c> = Multiplexer<'p, &'c EmulatedPmu, EVENTS, GROUPS>;

/// Adds the pinned group and the flexible ones; returns the flexible groups' ids.
pub fn add_groups(mux: &mut SpuMux<'_, '_>) -> Result<[GroupId; 3], MuxError> {
    mux.add_group(&PINNED, GroupKind::Pinned)?;
    let mut ids = [GroupId::new(0); 3];
    for (id, events) in ids.iter_mut().zip(FLEXIBLE.iter()) {
        *id = mux.add_group(events, GroupKind::Flexible)?;
    }
    Ok(ids)
}

/// Exact counts of the SPU itself, over the intervals one flexible group was on the counters:
/// what that group's raw counts must equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exact {
    /// Cycles simulated (instructions in instruction mode: one cycle each).
    pub cycles: u64,
    /// Branch instructions (taken + not taken).
    pub branches: u64,
    /// Taken branches.
    pub branches_taken: u64,
    /// Branches a hint predicted.
    pub hint_hits: u64,
    /// Stall cycles the feed counts as STALL_FRONTEND.
    pub frontend: u64,
    /// Stall cycles the feed counts as STALL_BACKEND.
    pub backend: u64,
}

impl Exact {
    /// The SPU's statistics in these terms, with `cycles` from the run (instruction mode has
    /// no pipeline statistics).
    pub fn of(stats: &pmprobe::spu::pipeline::Statistics, cycles: u64) -> Self {
        Self {
            cycles,
            branches: stats.branches(),
            branches_taken: stats.branches_taken,
            hint_hits: stats.hint_hits,
            frontend: stats.branch_miss_stalls
                + stats.prefetch_miss_stalls
                + stats.hint_target_stalls
                + stats.channel_stalls
                + stats.initialisation_cycles,
            backend: stats.dependency_stalls + stats.fp_resource_stalls + stats.dp_pipeline_stalls,
        }
    }

    /// `self - earlier`, field by field (the statistics only grow).
    pub fn since(&self, earlier: &Self) -> Self {
        Self {
            cycles: self.cycles.wrapping_sub(earlier.cycles),
            branches: self.branches.wrapping_sub(earlier.branches),
            branches_taken: self.branches_taken.wrapping_sub(earlier.branches_taken),
            hint_hits: self.hint_hits.wrapping_sub(earlier.hint_hits),
            frontend: self.frontend.wrapping_sub(earlier.frontend),
            backend: self.backend.wrapping_sub(earlier.backend),
        }
    }

    /// Adds `other`, field by field.
    pub fn add(&mut self, other: &Self) {
        self.cycles += other.cycles;
        self.branches += other.branches;
        self.branches_taken += other.branches_taken;
        self.hint_hits += other.hint_hits;
        self.frontend += other.frontend;
        self.backend += other.backend;
    }
}

/// What the multiplexer read at the end of an SPU's run, with the SPU's exact counts over each
/// flexible group's turns.
#[derive(Clone, PartialEq, Eq)]
pub struct SpuCounts {
    /// Every event's reading, in the order of [`PINNED`] then [`FLEXIBLE`].
    pub readings: Readings<EVENTS>,
    /// The flexible groups' ids.
    pub groups: [GroupId; 3],
    /// Per flexible group, the SPU's exact counts over its turns.
    pub windows: [Exact; 3],
    /// The SPU's exact counts over the whole run.
    pub whole: Exact,
    /// Rotations made.
    pub rotations: u64,
}

impl SpuCounts {
    /// The exact count of `event`: its pinned reading.
    pub fn get(&self, event: Event) -> Option<u64> {
        self.readings.exact(event)
    }

    /// `get`, 0 when not counted (for arithmetic in checks; printing uses `get`).
    pub fn value(&self, event: Event) -> u64 {
        self.get(event).unwrap_or(0)
    }

    /// The reading of `event` in flexible group `group` (an index into [`FLEXIBLE`]).
    pub fn flexible(&self, group: usize, event: Event) -> Option<&EventReading> {
        let id = *self.groups.get(group)?;
        self.readings.find_in(event, id)
    }

    /// The raw count of `event` in flexible group `group`.
    pub fn raw(&self, group: usize, event: Event) -> u64 {
        self.flexible(group, event).map_or(0, |reading| reading.raw)
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

/// Prints the SPU's `perf stat` table (perf's layout: scaled counts, `(xx.xx%)` for the events
/// that ran part of the time) and, beside each scaled estimate, the SPU's exact figure and the
/// estimate's error.
pub fn print_table(counts: &SpuCounts, target: &str, fetch: Fetch) {
    outln!(
        "  Performance counter stats for '{target}' (emulated PMU, driver API; {} rotations, every {ROTATION_CYCLES} SPU cycles):",
        counts.rotations
    );
    let mut lines = Indented::new("  ");
    for reading in counts.readings.iter() {
        let _ = pmprobe::pmu::write_stat_line(&mut lines, reading, counts.readings.as_slice());
        let _ = lines.write_char('\n');
    }
    match fetch {
        Fetch::None => outln!("  (instruction mode: no prediction, no stalls)"),
        Fetch::Ideal => outln!("  (ideal fetch: never mispredicts)"),
        Fetch::Real => {}
    }
    outln!(
        "  Scaled estimates against the SPU's own figures (exact: the pinned counts, the statistics):"
    );
    outln!(
        "  {:<32} {:>12} {:>12} {:>9}",
        "event (group)",
        "estimate",
        "exact",
        "error"
    );
    let exact = exact_totals(counts, fetch);
    for (group, events) in FLEXIBLE.iter().enumerate() {
        for &event in events {
            let Some(reading) = counts.flexible(group, event) else {
                continue;
            };
            let Some(truth) = exact
                .iter()
                .find(|(e, _)| *e == event)
                .and_then(|(_, v)| *v)
            else {
                continue;
            };
            let mut name: heapless::String<32> = heapless::String::new();
            let _ = core::fmt::write(&mut name, format_args!("{event} ({})", group_name(group)));
            match reading.estimate() {
                Some(estimate) => outln!(
                    "  {name:<32} {estimate:>12} {truth:>12} {:>9}",
                    Error(estimate, truth)
                ),
                None => outln!("  {name:<32} {:>12} {truth:>12}", pmprobe::pmu::NOT_COUNTED),
            }
        }
    }
}

/// The SPU's exact totals of the flexible events: the pinned counts, the statistics of the
/// whole run (`None` where the SPU keeps no figure: loads and stores in instruction mode have
/// the pinned counts, branches there have none; mispredicts only with the real fetch unit and
/// no hint hit, where they are the taken branches).
fn exact_totals(counts: &SpuCounts, fetch: Fetch) -> [(Event, Option<u64>); 9] {
    let whole = counts.whole;
    let pipeline = fetch != Fetch::None;
    let mispredicts = match fetch {
        Fetch::Real if whole.hint_hits == 0 => Some(whole.branches_taken),
        Fetch::Real => None,
        Fetch::Ideal | Fetch::None => Some(0),
    };
    let loads = counts.get(Event::LD_RETIRED);
    let stores = counts.get(Event::ST_RETIRED);
    [
        (Event::BR_RETIRED, pipeline.then_some(whole.branches)),
        (Event::BR_MIS_PRED, mispredicts),
        (Event::BR_MIS_PRED_RETIRED, mispredicts),
        (Event::CPU_CYCLES, counts.get(Event::CPU_CYCLES)),
        (Event::STALL_FRONTEND, Some(whole.frontend)),
        (Event::STALL_BACKEND, Some(whole.backend)),
        (Event::MEM_ACCESS, loads.zip(stores).map(|(l, s)| l + s)),
        (Event::LD_RETIRED, loads),
        (Event::ST_RETIRED, stores),
    ]
}

fn group_name(group: usize) -> &'static str {
    match group {
        BRANCHES => "branches",
        STALLS => "stalls",
        _ => "memory",
    }
}

/// `(estimate - exact) / exact` in percent with two decimals and a sign; `-` for exact = 0
/// (then `exact` when the estimate is 0 too).
struct Error(u64, u64);

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let Error(estimate, exact) = *self;
        let mut s: heapless::String<24> = heapless::String::new();
        if exact == 0 {
            let _ = s.push_str(if estimate == 0 { "exact" } else { "-" });
        } else {
            let error = 100.0 * (estimate as f64 - exact as f64) / exact as f64;
            let _ = core::fmt::write(&mut s, format_args!("{error:+.2} %"));
        }
        f.pad(&s)
    }
}
