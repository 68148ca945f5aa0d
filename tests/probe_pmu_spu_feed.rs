//! `SpuPmuFeed`, the SPU's events straight into its emulated PMU's event inputs, against the
//! probe framework's gem5 wiring (`PmuEventCounter` on the SPU's probe points, counting
//! eagerly) on the demo kernels in every mode: the same counts, the same statistics, and the
//! overflow interrupt rising on the same cycle with counters preset just below 2^32 and 2^64.

mod spu_pipeline_support;

use std::cell::RefCell;

use pmprobe::pmu::{EmulatedConfig, EmulatedPmu, Event, PmuBackend, PmuRegister};
use pmprobe::probe::Listener;
use pmprobe::probe::listeners::{GEM5_DEFAULT_MAPPINGS, PmuEventCounter};
use pmprobe::spu::pipeline::{Config, FetchKind, RunEnd};
use pmprobe::spu::probes::{CountPoint, SpuObserver, SpuPmuFeed, SpuProbes, StallReason};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};
use spu_pipeline_support::unit_with;

use PmuRegister::*;

const E: u64 = 1;
const LC: u64 = 1 << 6;
const LP: u64 = 1 << 7;
const FZO: u64 = 1 << 9;
const CYCLE_BIT: u64 = 1 << 31;

const KERNELS: [(&str, &str); 3] = [
    ("demo_saxpy.s", include_str!("../spu/programs/demo_saxpy.s")),
    ("demo_chain.s", include_str!("../spu/programs/demo_chain.s")),
    ("demo_dp.s", include_str!("../spu/programs/demo_dp.s")),
];

/// A Neoverse-V1-like PMU with enough event counters for every event the feed drives.
fn wide_pmu() -> EmulatedPmu {
    EmulatedPmu::new(EmulatedConfig {
        counters: 12,
        ..EmulatedConfig::neoverse_v1_like()
    })
}

fn wr(pmu: &EmulatedPmu, register: PmuRegister, value: u64) {
    pmu.write(register, value).unwrap();
}
fn rd(pmu: &EmulatedPmu, register: PmuRegister) -> u64 {
    pmu.read(register).unwrap()
}

/// Counter i counts `SpuPmuFeed::EVENTS[i]`; the cycle counter runs too; PMCR.E | `pmcr`.
fn program_every_event(pmu: &EmulatedPmu, pmcr: u64) {
    for (i, event) in SpuPmuFeed::EVENTS.iter().enumerate() {
        wr(pmu, EvTyper(i as u8), u64::from(event.number()));
    }
    let every = ((1 << SpuPmuFeed::EVENTS.len()) - 1) | CYCLE_BIT;
    wr(pmu, CntenSet, every);
    wr(pmu, IntenSet, every);
    wr(pmu, Pmcr, E | pmcr);
}

/// The stall events on the `IssueStall` point, counted eagerly.
struct EagerStalls<'p>(&'p EmulatedPmu);

impl Listener<StallReason> for EagerStalls<'_> {
    fn notify(&self, reason: &StallReason) {
        self.0.count(reason.pmu_event().number(), 1);
    }
}

fn count_point<'a, 'l>(probes: &'a SpuProbes<'l>, name: &str) -> Option<&'a CountPoint<'l>> {
    Some(match name {
        "Cycles" => &probes.cycles,
        "RetiredInsts" => &probes.retired_insts,
        "RetiredLoads" => &probes.retired_loads,
        "RetiredStores" => &probes.retired_stores,
        "RetiredBranches" => &probes.retired_branches,
        "BranchMispredicts" => &probes.branch_mispredicts,
        _ => return None,
    })
}

fn unit(source: &str, mode: Mode, fetch: FetchKind) -> Box<SpuUnit> {
    let mut unit = unit_with(source, Config::cell(), mode);
    if mode == Mode::Pipeline {
        unit.set_fetch(fetch).unwrap();
    }
    unit
}

/// Runs `source` to its stop twice, once observed by `SpuPmuFeed` into `lazy`, once by the
/// gem5 wiring on the probe points into `eager` (both programmed alike beforehand), each
/// `step` cycles per `run` call; after every call the interrupt lines must agree.
fn run_both(
    source: &str,
    mode: Mode,
    fetch: FetchKind,
    step: u64,
    lazy: &EmulatedPmu,
    eager: &EmulatedPmu,
) -> u64 {
    let feed = SpuPmuFeed::new(lazy).unwrap();
    let mut lazy_unit = unit(source, mode, fetch);
    let sink = RefCell::new(eager);
    let counter: PmuEventCounter<'_, &EmulatedPmu, 8> =
        PmuEventCounter::with_gem5_defaults(&sink).unwrap();
    let stalls = EagerStalls(eager);
    let probes = SpuProbes::new();
    for feed in counter.feeds() {
        if let Some(point) = count_point(&probes, feed.point()) {
            point.add_object(feed).unwrap();
        }
    }
    probes.issue_stall.add_object(&stalls).unwrap();
    let mut eager_unit = unit(source, mode, fetch);

    // The feed composed with (empty) probe points, as the demo runs it.
    let unobserved = SpuProbes::new();
    let observer = (feed, &unobserved);
    let mut cycles = 0;
    loop {
        let a = lazy_unit.run(step, &observer, &mut Discard).unwrap();
        let b = eager_unit.run(step, &probes, &mut Discard).unwrap();
        assert_eq!((a.cycles, a.instructions), (b.cycles, b.instructions));
        cycles += a.cycles;
        assert_eq!(
            lazy.irq_line(),
            eager.irq_line(),
            "interrupt line after cycle {cycles}"
        );
        if matches!(a.end, RunEnd::Stopped(_)) {
            assert_eq!(lazy_unit.stats(), eager_unit.stats());
            return cycles;
        }
        assert!(matches!(a.end, RunEnd::CycleLimit), "{:?}", a.end);
    }
}

/// Where [`every_counter`] puts PMCCNTR: after the event counters.
const PMCCNTR: usize = SpuPmuFeed::EVENTS.len();

fn every_counter(pmu: &EmulatedPmu) -> Vec<u64> {
    (0..SpuPmuFeed::EVENTS.len() as u8)
        .map(|i| rd(pmu, EvCntr(i)))
        .chain([rd(pmu, Ccntr), rd(pmu, OvsSet)])
        .collect()
}

#[test]
fn the_feed_counts_what_the_gem5_wiring_counts_on_the_demo_kernels() {
    let modes = [
        (Mode::Pipeline, FetchKind::Real),
        (Mode::Pipeline, FetchKind::Ideal),
        (Mode::Instruction, FetchKind::Ideal),
    ];
    for (name, source) in KERNELS {
        for (mode, fetch) in modes {
            let lazy = wide_pmu();
            let eager = wide_pmu();
            program_every_event(&lazy, LP);
            program_every_event(&eager, LP);
            let cycles = run_both(source, mode, fetch, 1_000_000, &lazy, &eager);
            let counts = every_counter(&lazy);
            assert_eq!(counts, every_counter(&eager), "{name} {mode:?} {fetch:?}");
            assert_eq!(counts[0], cycles, "{name}: CPU_CYCLES");
            assert_eq!(counts[PMCCNTR], cycles, "{name}: PMCCNTR");
            assert!(counts[2] > 0 && counts[5] > 0, "{name}: loads and branches");
            assert_eq!(
                counts[4],
                counts[2] + counts[3],
                "MEM_ACCESS = loads + stores"
            );
            if mode == Mode::Pipeline {
                assert!(counts[8] + counts[9] > 0, "{name}: stalls counted");
            }
        }
    }
}

#[test]
fn the_feed_and_the_gem5_wiring_map_the_same_points_to_the_same_events() {
    // Behaviour is compared above; here the table itself: every gem5 point the SPU has is
    // mapped to events the feed drives.
    for (point, events) in GEM5_DEFAULT_MAPPINGS {
        if point == "ActiveCycles" {
            continue;
        }
        for event in events {
            assert!(
                SpuPmuFeed::EVENTS.iter().any(|e| e.number() == *event),
                "{point}: {event:#x}"
            );
        }
    }
}

/// The pipeline cycle by cycle; instruction mode one instruction per run and in runs of
/// 333, so that its batches (of up to 32 instructions, fed in one add per event when no
/// counter overflows in them) end at many different places around each overflow.
const OVERFLOW_RUNS: [(Mode, FetchKind, u64); 3] = [
    (Mode::Pipeline, FetchKind::Real, 1),
    (Mode::Instruction, FetchKind::Ideal, 1),
    (Mode::Instruction, FetchKind::Ideal, 333),
];

#[test]
fn the_overflow_interrupt_rises_on_the_same_cycle_below_2_pow_32_and_2_pow_64() {
    let (_, source) = KERNELS[1];
    for ((pmcr, preset), (mode, fetch, step)) in [(0, 0xFFFF_FFFF), (LP | LC, u64::MAX)]
        .into_iter()
        .flat_map(|preset| OVERFLOW_RUNS.map(|run| (preset, run)))
    {
        // Each counter `k` events short of its wrap: every counter overflows during the run.
        let lazy = wide_pmu();
        let eager = wide_pmu();
        for pmu in [&lazy, &eager] {
            program_every_event(pmu, pmcr);
            for i in 0..SpuPmuFeed::EVENTS.len() as u8 {
                wr(pmu, EvCntr(i), preset - 7 * u64::from(i));
            }
            wr(pmu, Ccntr, preset - 1000);
        }
        run_both(source, mode, fetch, step, &lazy, &eager);
        assert_eq!(
            every_counter(&lazy),
            every_counter(&eager),
            "{mode:?} {step}"
        );
        let overflowed = rd(&lazy, OvsSet);
        // Instruction mode has no mispredicts and no stalls (counters 6 to 9).
        let expected = match mode {
            Mode::Pipeline => 0x3FF,
            Mode::Instruction => 0x3F,
        };
        assert_eq!(overflowed, expected | CYCLE_BIT, "pmcr {pmcr:#x} {mode:?}");
    }
}

#[test]
fn freeze_on_overflow_stops_the_same_events_at_the_same_cycle() {
    let (_, source) = KERNELS[0];
    for (mode, fetch, step) in OVERFLOW_RUNS {
        let lazy = wide_pmu();
        let eager = wide_pmu();
        for pmu in [&lazy, &eager] {
            program_every_event(pmu, FZO);
            // INST_RETIRED (counter 1) overflows a few thousand instructions in.
            wr(pmu, EvCntr(1), 0xFFFF_FFFF - 3000);
        }
        run_both(source, mode, fetch, step, &lazy, &eager);
        let counts = every_counter(&lazy);
        assert_eq!(counts, every_counter(&eager), "{mode:?} {step}");
        assert_eq!(counts[1], 0x1_0000_0000, "frozen right after the wrap");
        assert!(
            counts[0] < counts[PMCCNTR],
            "CPU_CYCLES froze, PMCCNTR did not"
        );
    }
}

#[test]
fn a_run_of_stalled_cycles_counts_as_the_cycles_one_by_one() {
    // Counters near their wrap (and FZO, so an overflow inside the run freezes the other
    // event): the batched report must land every overflow between the same two events.
    for cycles_left in [1, 5, 9, 10, 11, 50] {
        let batched = wide_pmu();
        let single = wide_pmu();
        for pmu in [&batched, &single] {
            program_every_event(pmu, FZO);
            wr(pmu, EvCntr(0), 0xFFFF_FFFF - cycles_left); // CPU_CYCLES
            wr(pmu, EvCntr(9), 0xFFFF_FFFF - 7); // STALL_BACKEND
        }
        let reason = StallReason::FpResource;
        SpuPmuFeed::new(&batched)
            .unwrap()
            .stalled_cycles(reason, 10);
        let feed = SpuPmuFeed::new(&single).unwrap();
        for _ in 0..10 {
            feed.cycles(1);
            feed.issue_stall(reason);
        }
        assert_eq!(
            every_counter(&batched),
            every_counter(&single),
            "{cycles_left} cycles to the wrap"
        );
    }
    // Far from any wrap: two adds.
    let pmu = wide_pmu();
    program_every_event(&pmu, 0);
    SpuPmuFeed::new(&pmu)
        .unwrap()
        .stalled_cycles(StallReason::BranchMiss, 1000);
    let counts = every_counter(&pmu);
    assert_eq!((counts[0], counts[8], counts[9]), (1000, 1000, 0));
}

#[test]
fn the_probe_points_batch_a_run_of_stalled_cycles_into_one_cycles_notification() {
    struct Log(RefCell<Vec<String>>);
    impl Listener<u64> for Log {
        fn notify(&self, n: &u64) {
            self.0.borrow_mut().push(format!("cycles {n}"));
        }
    }
    impl Listener<StallReason> for Log {
        fn notify(&self, reason: &StallReason) {
            self.0.borrow_mut().push(format!("{reason:?}"));
        }
    }
    let log = Log(RefCell::new(Vec::new()));
    let probes = SpuProbes::new();
    probes.cycles.add_object(&log).unwrap();
    probes.issue_stall.add_object(&log).unwrap();
    probes.stalled_cycles(StallReason::HintTarget, 3);
    assert_eq!(
        *log.0.borrow(),
        ["cycles 3", "HintTarget", "HintTarget", "HintTarget"]
    );
    // Through a composition, both sides hear it.
    let pmu = wide_pmu();
    program_every_event(&pmu, 0);
    let observer = (SpuPmuFeed::new(&pmu).unwrap(), &probes);
    observer.stalled_cycles(StallReason::Channel, 2);
    assert_eq!(log.0.borrow().len(), 7);
    assert_eq!(rd(&pmu, Ccntr), 2);
    assert_eq!(Event::STALL_FRONTEND, StallReason::Channel.pmu_event());
    assert_eq!(rd(&pmu, EvCntr(8)), 2, "STALL_FRONTEND");
}
