//! Sections 2 to 6: the SPU kernels on the static arena, under probes, counted by emulated
//! PMUs, with the host core measured by its real PMU; then the stack distance chart and the
//! trace files.

use core::cell::RefCell;

use pmprobe::pmu::driver::{Pmu, Snapshot};
use pmprobe::pmu::{EmulatedPmu, Event};
use pmprobe::println;
use pmprobe::probe::listeners::{MemAccess, MemTrace, OverflowPolicy, StackDistance};
use pmprobe::probe::sync::{IrqMutex, free};
use pmprobe::probe::{BreakPcEvent, Listener, MutListener, PcEventQueue};
use pmprobe::spu::arena::Arena;
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::pipeline::fetch::FetchKind;
use pmprobe::spu::pipeline::stats::Statistics;
use pmprobe::spu::probes::SpuProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

use super::checks::Checks;
use super::files::BufferedHostFile;
use super::host::{HostDelta, HostMeter, PerCycle};
use super::kernels::{self, Assembled, IMAGE_BYTES, Kernel};
use super::options::Options;
use super::output::{Indented, heading};
use super::spu_pmu::{self, Counter, Fetch, GROUP_1, GROUP_2, SpuCounts, StallFeed};
use super::watch::{BreakContext, PcWatch, report_first_hit};

/// Records the big trace ring holds (enough for the traced SPU's whole run).
pub const TRACE_RECORDS: usize = 16 * 1024;
/// Records of the small ring attached next to it, which overflows on purpose.
pub const SMALL_TRACE_RECORDS: usize = 256;
/// Lines the stack distance calculator tracks, and its linear bins.
const DISTANCE_LINES: usize = 256;
const DISTANCE_BINS: usize = 64;
/// Line size of the stack distance calculator: one LS quadword (the SPU's load/store unit).
const DISTANCE_LINE_BYTES: u64 = 16;
/// A kernel that has not stopped after this many cycles is a failure.
const CYCLE_BUDGET: u64 = 2_000_000;

/// The memory trace file (Dinero IV "din") and the Konata pipeline log.
pub const DIN_FILE: &str = "pmprobe-demo-spu3.din";
pub const KONATA_FILE: &str = "pmprobe-demo-spu0.konata";

type Trace = MutListener<MemTrace<TRACE_RECORDS>>;
type SmallTrace = MutListener<MemTrace<SMALL_TRACE_RECORDS>>;
type Distances = MutListener<StackDistance<DISTANCE_LINES, DISTANCE_BINS>>;

/// The big objects live in static storage (no heap): eight SPUs of about 520 KiB each and
/// the trace ring. A critical section hands them out (the demo takes no interrupts).
struct Statics {
    arena: RefCell<Arena>,
    trace: Trace,
}

static STATICS: IrqMutex<Statics> = IrqMutex::new(Statics {
    arena: RefCell::new(Arena::new()),
    trace: MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)),
});

/// What a kernel's SPU carries besides its PMU.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A `BreakPcEvent` at this label.
    Breakpoint(&'static str),
    /// The stack distance calculator on its data accesses.
    StackDistance,
    /// Nothing else.
    Plain,
    /// The memory trace recorders (the big ring and the small one).
    Trace,
}

struct Plan {
    spu: usize,
    kernel: Kernel,
    mode: Mode,
    role: Role,
}

const PLANS: [Plan; 4] = [
    Plan {
        spu: 0,
        kernel: kernels::SAXPY,
        mode: Mode::Pipeline,
        role: Role::Breakpoint("saxpy_branch"),
    },
    Plan {
        spu: 1,
        kernel: kernels::CHAIN,
        mode: Mode::Pipeline,
        role: Role::StackDistance,
    },
    Plan {
        spu: 2,
        kernel: kernels::DOUBLE,
        mode: Mode::Pipeline,
        role: Role::Plain,
    },
    Plan {
        spu: 3,
        kernel: kernels::SAXPY,
        mode: Mode::Instruction,
        role: Role::Trace,
    },
];

/// One SPU's figures for the host table.
struct HostRow {
    spu: usize,
    mode: Mode,
    spu_cycles: u64,
    host: Option<HostDelta>,
    host_bare: Option<HostDelta>,
}

/// Listeners attached to one SPU's first run, besides its PMU.
#[derive(Default)]
struct Extras<'l> {
    data_access: heapless::Vec<&'l dyn Listener<MemAccess>, 2>,
    retired_pc: Option<&'l dyn Listener<u64>>,
    cycles: Option<&'l dyn Listener<u64>>,
    /// `--miscount`: disturb the PMU's INST_RETIRED once.
    miscount: bool,
}

/// Runs sections 2 to 6, recording every cross-check in `checks`.
pub fn run(options: &Options, checks: &mut Checks) {
    free(|cs| {
        let statics = STATICS.borrow(cs);
        match statics.arena.try_borrow_mut() {
            Ok(mut arena) => run_on(&mut arena, &statics.trace, options, checks),
            Err(_) => checks.check(
                format_args!("arena_available"),
                false,
                format_args!("the static arena is already in use"),
            ),
        }
    });
}

fn run_on(arena: &mut Arena, trace: &Trace, options: &Options, checks: &mut Checks) {
    let mut host = match HostMeter::new() {
        Ok(meter) => Some(meter),
        Err(e) => {
            checks.check(format_args!("host_pmu"), false, format_args!("{e}"));
            None
        }
    };
    // Built at compile time: a line size that is not a power of two fails the build.
    let distances: Distances = MutListener::new(
        const {
            match StackDistance::new(DISTANCE_LINE_BYTES) {
                Ok(calculator) => calculator,
                Err(_) => panic!("the stack distance line size must be a power of two"),
            }
        },
    );
    let small_trace: SmallTrace = MutListener::new(MemTrace::new(OverflowPolicy::DropNewest));
    let mut rows: heapless::Vec<HostRow, 4> = heapless::Vec::new();
    let mut traced_accesses = 0;
    let mut distance_accesses = 0;

    print_setup();
    for plan in &PLANS {
        let mut image = [0u8; IMAGE_BYTES];
        let program = match plan.kernel.assemble(&mut image) {
            Ok(program) => program,
            Err(e) => {
                checks.check(
                    format_args!("spu{}_assemble", plan.spu),
                    false,
                    format_args!("{}: {e}", plan.kernel.file),
                );
                continue;
            }
        };
        let Ok(unit) = arena.get_mut(plan.spu) else {
            continue;
        };
        // The breakpoint (only attached for Role::Breakpoint).
        let label = match plan.role {
            Role::Breakpoint(label) => label,
            _ => "_start",
        };
        let break_pc = program.symbol(label).unwrap_or(0);
        let breakpoint = BreakPcEvent::new(
            u64::from(break_pc),
            "demo breakpoint",
            report_first_hit,
            false,
        );
        let mut queue = PcEventQueue::new();
        let scheduled = queue.schedule(&breakpoint).is_ok();
        let watch = PcWatch::new(
            queue,
            BreakContext {
                spu: plan.spu as u8,
                label,
                cycle: 0,
                instructions: 0,
                first: None,
            },
        );
        let clock = watch.clock();
        let mut extras = Extras::default();
        match plan.role {
            Role::Breakpoint(_) => {
                extras.retired_pc = Some(&watch);
                extras.cycles = Some(&clock);
            }
            Role::StackDistance => {
                let _ = extras.data_access.push(&distances);
            }
            Role::Trace => {
                let _ = extras.data_access.push(trace);
                let _ = extras.data_access.push(&small_trace);
            }
            Role::Plain => {}
        }

        let image = image.get(..program.len).unwrap_or(&[]);
        extras.miscount = options.miscount && plan.spu == 0;
        let Some(result) = run_spu(unit, plan, &program, image, &extras, host.as_mut(), checks)
        else {
            continue;
        };
        let accesses =
            result.counts.value(Event::LD_RETIRED) + result.counts.value(Event::ST_RETIRED);
        match plan.role {
            Role::Breakpoint(label) => {
                let hits = breakpoint.hits();
                let first = watch.first_hit();
                checks.check(
                    format_args!("spu{}_breakpoint", plan.spu),
                    scheduled && first.is_some() && hits == saxpy_inner_iterations(),
                    format_args!(
                        "BreakPcEvent at {label} = {break_pc:#07x} fired {hits} times, once per inner loop iteration ({})",
                        saxpy_inner_iterations()
                    ),
                );
            }
            Role::StackDistance => distance_accesses = accesses,
            Role::Trace => traced_accesses = accesses,
            Role::Plain => {}
        }
        let _ = rows.push(HostRow {
            spu: plan.spu,
            mode: plan.mode,
            spu_cycles: result.counts.value(Event::CPU_CYCLES),
            host: result.host,
            host_bare: result.host_bare,
        });
    }

    print_host_table(&rows, checks);
    print_stack_distance(&distances, distance_accesses, checks);
    write_trace(trace, &small_trace, traced_accesses, checks);
    write_konata();
}

fn print_setup() {
    heading(format_args!(
        "SPU kernels: 4 SPUs of the static arena, programs assembled at boot from spu/programs/demo_*.s"
    ));
    for line in [
        "Each SPU has an emulated PMU (PMUv3p7-like preset, N = 6 + cycle counter) fed by the probe",
        "framework's PMU event counter (gem5's point -> event wiring) and a stall feed (IssueStall ->",
        "STALL_FRONTEND / STALL_BACKEND), programmed through pmu::Pmu, the same driver as the real core.",
        "8 events do not fit on 6 event counters + the cycle counter: each kernel runs twice (the model",
        "is deterministic); run 2 counts STALL_BACKEND and CPU_CYCLES / INST_RETIRED again.",
        "Also attached: a BreakPcEvent on SPU0, the stack distance calculator on SPU1's data accesses,",
        "two memory trace rings on SPU3. Lines: `|` prof_cp output, `:` the SPU's statistics block.",
    ] {
        println!("  {line}");
    }
}

/// Inner-loop iterations of demo_saxpy.s: 128 quadwords x 32 passes.
const fn saxpy_inner_iterations() -> u64 {
    128 * 32
}

/// What one SPU's two runs produced.
struct SpuResult {
    counts: SpuCounts,
    /// Host counts of run 1 (probes and listeners attached).
    host: Option<HostDelta>,
    /// Host counts of a third run with nothing attached to the probe points.
    host_bare: Option<HostDelta>,
}

/// Cycles and instructions of a run to the end.
#[derive(Default)]
struct Totals {
    cycles: u64,
    instructions: u64,
}

fn run_spu(
    unit: &mut SpuUnit,
    plan: &Plan,
    program: &Assembled,
    image: &[u8],
    extras: &Extras<'_>,
    mut host: Option<&mut HostMeter>,
    checks: &mut Checks,
) -> Option<SpuResult> {
    let spu = plan.spu;
    let mut snapshots = [Snapshot::new(), Snapshot::new()];
    let mut totals = [Totals::default(), Totals::default()];
    let mut stats = Statistics::new();
    let mut host_delta = None;
    let mut real_fetch = false;

    for (run, events) in [&GROUP_1[..], &GROUP_2[..]].into_iter().enumerate() {
        if unit.load_program(image, program.entry).is_err() {
            checks.check(
                format_args!("spu{spu}_load"),
                false,
                format_args!("image too large"),
            );
            return None;
        }
        unit.set_mode(plan.mode);
        // The real fetch unit (hints, mispredicts) where the model has it, else the ideal one.
        real_fetch = plan.mode == Mode::Pipeline && unit.set_fetch(FetchKind::Real).is_ok();
        unit.reset_stats();

        let cpu = EmulatedPmu::neoverse_v1_like();
        let sink = RefCell::new(&cpu);
        let Ok(counter) = Counter::with_gem5_defaults(&sink) else {
            checks.check(
                format_args!("spu{spu}_pmu_wiring"),
                false,
                format_args!("PMU event counter"),
            );
            return None;
        };
        let mut pmu = match Pmu::new(&cpu) {
            Ok(pmu) => pmu,
            Err(e) => {
                checks.check(format_args!("spu{spu}_pmu"), false, format_args!("{e}"));
                return None;
            }
        };
        if let Err(e) = spu_pmu::program(&mut pmu, events) {
            checks.check(
                format_args!("spu{spu}_pmu_program"),
                false,
                format_args!("{e}"),
            );
            return None;
        }
        let stall = StallFeed::new(&cpu);
        let probes = SpuProbes::new();
        let mut wiring = spu_pmu::attach_feeds(&probes, counter.feeds()).map(|_| ());
        if stall.is_wanted() {
            wiring = wiring.and(probes.issue_stall.add_object(&stall));
        }
        if run == 0 {
            for listener in &extras.data_access {
                wiring = wiring.and(probes.data_access.add_object(*listener));
            }
            if let Some(listener) = extras.retired_pc {
                wiring = wiring.and(probes.retired_insts_pc.add_object(listener));
            }
            if let Some(listener) = extras.cycles {
                wiring = wiring.and(probes.cycles.add_object(listener));
            }
        }
        if let Err(e) = wiring {
            checks.check(format_args!("spu{spu}_probes"), false, format_args!("{e}"));
            return None;
        }

        let outcome = if run == 0 {
            heading(format_args!(
                "SPU{spu}: {} in {} mode ({} fetch) -- {}",
                plan.kernel.file,
                mode_name(plan.mode),
                if plan.mode == Mode::Instruction {
                    "no"
                } else if real_fetch {
                    "real"
                } else {
                    "ideal"
                },
                plan.kernel.what
            ));
            let mut prof = Indented::new("  | ");
            match host.as_deref_mut() {
                Some(meter) => match meter.measure(|| run_to_stop(unit, &probes, &mut prof)) {
                    Ok((outcome, delta)) => {
                        host_delta = Some(delta);
                        outcome
                    }
                    Err(e) => {
                        checks.check(format_args!("host_pmu_read"), false, format_args!("{e}"));
                        return None;
                    }
                },
                None => run_to_stop(unit, &probes, &mut prof),
            }
        } else {
            run_to_stop(unit, &probes, &mut Discard)
        };
        if extras.miscount && run == 0 {
            println!("  --miscount: one INST_RETIRED added to SPU{spu}'s emulated PMU by hand");
            cpu.count(Event::INST_RETIRED.number(), 1);
        }
        let _ = pmu.stop();
        match pmu.snapshot() {
            Ok(snapshot) => snapshots[run] = snapshot,
            Err(e) => {
                checks.check(
                    format_args!("spu{spu}_pmu_read"),
                    false,
                    format_args!("{e}"),
                );
                return None;
            }
        }
        match outcome {
            Ok((reason, run_totals)) => {
                let stopped = matches!(reason, StopReason::Stop { signal: 0x2000, .. });
                if !stopped || run == 0 {
                    checks.check(
                        format_args!("spu{spu}_run{}_stops", run + 1),
                        stopped,
                        format_args!("{reason} after {} cycles", run_totals.cycles),
                    );
                }
                totals[run] = run_totals;
            }
            Err(e) => {
                checks.check(
                    format_args!("spu{spu}_run{}", run + 1),
                    false,
                    format_args!("{e}"),
                );
                return None;
            }
        }
        if run == 0 {
            stats = *unit.stats();
            match (plan.kernel.verify)(unit.arch(), program) {
                Ok(what) => checks.check(
                    format_args!("spu{spu}_result"),
                    true,
                    format_args!("{what}"),
                ),
                Err(what) => checks.check(
                    format_args!("spu{spu}_result"),
                    false,
                    format_args!("{what}"),
                ),
            }
        }
    }

    let [run1, run2] = snapshots;
    let counts = SpuCounts { run1, run2 };
    let fetch = match (plan.mode, real_fetch) {
        (Mode::Instruction, _) => Fetch::None,
        (Mode::Pipeline, false) => Fetch::Ideal,
        (Mode::Pipeline, true) => Fetch::Real,
    };
    spu_pmu::print_table(&counts, fetch);
    if plan.mode == Mode::Pipeline {
        pmprobe::println!("  Statistics (spu {spu} stats print, run 1):");
        let _ = unit.print_stats(&mut Indented::new("  : "));
    }
    cross_check(spu, fetch, &counts, &totals, &stats, checks);
    let host_bare = host.and_then(|meter| measure_bare(unit, plan, program, image, meter, checks));
    Some(SpuResult {
        counts,
        host: host_delta,
        host_bare,
    })
}

/// Runs the kernel once more with no listener on any probe point (each point then costs one
/// load and one branch) and returns the host counts.
fn measure_bare(
    unit: &mut SpuUnit,
    plan: &Plan,
    program: &Assembled,
    image: &[u8],
    meter: &mut HostMeter,
    checks: &mut Checks,
) -> Option<HostDelta> {
    unit.load_program(image, program.entry).ok()?;
    unit.set_mode(plan.mode);
    let probes = SpuProbes::new();
    match meter.measure(|| run_to_stop(unit, &probes, &mut Discard)) {
        Ok((Ok(_), delta)) => Some(delta),
        Ok((Err(e), _)) => {
            checks.check(
                format_args!("spu{}_run3", plan.spu),
                false,
                format_args!("{e}"),
            );
            None
        }
        Err(e) => {
            checks.check(format_args!("host_pmu_read"), false, format_args!("{e}"));
            None
        }
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Instruction => "instruction",
        Mode::Pipeline => "pipeline",
    }
}

/// The SPU's own statistics against its PMU's view.
fn cross_check(
    spu: usize,
    fetch: Fetch,
    counts: &SpuCounts,
    totals: &[Totals; 2],
    stats: &Statistics,
    checks: &mut Checks,
) {
    let cycles = counts.value(Event::CPU_CYCLES);
    let instructions = counts.value(Event::INST_RETIRED);
    let [first, second] = totals;
    checks.equal(
        format_args!("spu{spu}_cycles_pmu_vs_run"),
        "PMU CPU_CYCLES vs cycles simulated",
        cycles,
        first.cycles,
    );
    checks.equal(
        format_args!("spu{spu}_insts_pmu_vs_run"),
        "PMU INST_RETIRED vs instructions completed",
        instructions,
        first.instructions,
    );
    let run2_cycles = counts.run2.count_of(Event::CPU_CYCLES).unwrap_or(0);
    let run2_insts = counts.run2.count_of(Event::INST_RETIRED).unwrap_or(0);
    checks.check(
        format_args!("spu{spu}_runs_agree"),
        run2_cycles == cycles && run2_insts == instructions && second.cycles == first.cycles,
        format_args!("run 2 counted {run2_cycles} cycles, {run2_insts} instructions (run 1: {cycles}, {instructions})"),
    );
    let frontend = counts.value(Event::STALL_FRONTEND);
    let backend = counts.value(Event::STALL_BACKEND);
    let mispredicts = counts.value(Event::BR_MIS_PRED);
    match fetch {
        Fetch::Real if stats.hint_hits == 0 => checks.equal(
            format_args!("spu{spu}_mispredicts_vs_stats"),
            "real fetch, no hint hit: PMU BR_MIS_PRED vs Branch taken (predicted not taken)",
            mispredicts,
            stats.branches_taken,
        ),
        Fetch::Real => checks.check(
            format_args!("spu{spu}_mispredicts_vs_stats"),
            mispredicts <= stats.branches(),
            format_args!(
                "PMU BR_MIS_PRED {mispredicts} <= Branch instructions {}",
                stats.branches()
            ),
        ),
        Fetch::Ideal | Fetch::None => checks.equal(
            format_args!("spu{spu}_no_mispredicts"),
            "PMU BR_MIS_PRED without a predictor",
            mispredicts,
            0,
        ),
    }
    match fetch {
        Fetch::Ideal | Fetch::Real => {
            checks.equal(
                format_args!("spu{spu}_cycles_pmu_vs_stats"),
                "PMU CPU_CYCLES vs Total Cycle count",
                cycles,
                stats.cycles,
            );
            checks.equal(
                format_args!("spu{spu}_insts_pmu_vs_stats"),
                "PMU INST_RETIRED vs Total Instruction count",
                instructions,
                stats.instructions,
            );
            checks.equal(
                format_args!("spu{spu}_branches_pmu_vs_stats"),
                "PMU BR_RETIRED vs Branch instructions",
                counts.value(Event::BR_RETIRED),
                stats.branches(),
            );
            let stats_frontend = stats.branch_miss_stalls
                + stats.prefetch_miss_stalls
                + stats.hint_target_stalls
                + stats.channel_stalls
                + stats.initialisation_cycles;
            let stats_backend =
                stats.dependency_stalls + stats.fp_resource_stalls + stats.dp_pipeline_stalls;
            checks.equal(
                format_args!("spu{spu}_frontend_pmu_vs_stats"),
                "PMU STALL_FRONTEND vs branch miss + prefetch miss + hint + channel + init",
                frontend,
                stats_frontend,
            );
            checks.equal(
                format_args!("spu{spu}_backend_pmu_vs_stats"),
                "PMU STALL_BACKEND vs dependency + fp resource + dp pipeline",
                backend,
                stats_backend,
            );
            let identities = stats.check_identities();
            checks.check(
                format_args!("spu{spu}_stats_identities"),
                identities.is_ok(),
                format_args!("cycle categories sum to the total, per-class dependency stalls to the dependency count"),
            );
        }
        Fetch::None => {
            checks.equal(
                format_args!("spu{spu}_ipc_one"),
                "instruction mode: cycles vs instructions",
                cycles,
                instructions,
            );
            checks.equal(
                format_args!("spu{spu}_no_stalls"),
                "instruction mode: STALL_FRONTEND + STALL_BACKEND",
                frontend + backend,
                0,
            );
        }
    }
}

/// Runs until the SPU stops; prof_cp lines go to `prof`.
fn run_to_stop<W: core::fmt::Write>(
    unit: &mut SpuUnit,
    probes: &SpuProbes<'_>,
    prof: &mut W,
) -> Result<(StopReason, Totals), RunFailure> {
    let outcome = unit
        .run(CYCLE_BUDGET, probes, prof)
        .map_err(RunFailure::Model)?;
    let totals = Totals {
        cycles: outcome.cycles,
        instructions: outcome.instructions,
    };
    match outcome.end {
        RunEnd::Stopped(reason) => Ok((reason, totals)),
        RunEnd::Blocked { channel } => Err(RunFailure::Blocked(channel)),
        RunEnd::CycleLimit => Err(RunFailure::Budget),
    }
}

/// Why a kernel did not run to its `stop`.
enum RunFailure {
    Model(pmprobe::spu::pipeline::ModelError),
    Blocked(u8),
    Budget,
}

impl core::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Model(e) => write!(f, "{e}"),
            Self::Blocked(channel) => write!(f, "blocked on channel {channel}"),
            Self::Budget => write!(f, "did not stop within {CYCLE_BUDGET} cycles"),
        }
    }
}

fn print_host_table(rows: &[HostRow], checks: &mut Checks) {
    heading(format_args!(
        "Host core: its real PMU (INST_RETIRED, CPU_CYCLES) around the SPU runs"
    ));
    println!("  attached: run 1 with the PMU feeds and listeners above; bare: a third run with no");
    println!("  listener on any probe point. Under -icount shift=0 one instruction = one cycle.");
    println!(
        "  {:<5} {:<12} {:>10} {:>14} {:>14} {:>16} {:>14}",
        "SPU",
        "mode",
        "SPU cycles",
        "host insts",
        "host cycles",
        "insts/SPU cycle",
        "bare insts/cyc"
    );
    // [pipeline, instruction] x (SPU cycles, host instructions, host cycles, bare instructions)
    let mut sums = [(0u64, 0u64, 0u64, 0u64); 2];
    for row in rows {
        let (Some(host), Some(bare)) = (row.host, row.host_bare) else {
            println!(
                "  SPU{:<2} {:<12} {:>10} (host PMU not available)",
                row.spu,
                mode_name(row.mode),
                row.spu_cycles
            );
            continue;
        };
        println!(
            "  SPU{:<2} {:<12} {:>10} {:>14} {:>14} {:>16} {:>14}",
            row.spu,
            mode_name(row.mode),
            row.spu_cycles,
            host.instructions,
            host.cycles,
            PerCycle(host.instructions, row.spu_cycles),
            PerCycle(bare.instructions, row.spu_cycles)
        );
        let sum = &mut sums[usize::from(row.mode == Mode::Instruction)];
        sum.0 += row.spu_cycles;
        sum.1 += host.instructions;
        sum.2 += host.cycles;
        sum.3 += bare.instructions;
    }
    for (name, (spu_cycles, insts, cycles, bare)) in
        [("pipeline", sums[0]), ("instruction", sums[1])]
    {
        println!(
            "  {name} mode: {} host instructions ({} host cycles) per simulated SPU cycle attached, {} bare",
            PerCycle(insts, spu_cycles),
            PerCycle(cycles, spu_cycles),
            PerCycle(bare, spu_cycles)
        );
    }
    for row in rows {
        if let (Some(host), Some(bare)) = (row.host, row.host_bare) {
            checks.check(
                format_args!("host_measured_spu{}", row.spu),
                bare.instructions > row.spu_cycles && host.instructions > bare.instructions,
                format_args!("the host retired more than one instruction per SPU cycle, more with listeners than without"),
            );
        }
    }
}

fn print_stack_distance(distances: &Distances, accesses: u64, checks: &mut Checks) {
    heading(format_args!(
        "Stack distance of SPU1's LS data accesses ({DISTANCE_LINE_BYTES}-byte lines, log2 bins)"
    ));
    let recorded = distances.with(|calculator| {
        super::chart::print(calculator);
        (
            calculator.reads().total() + calculator.writes().total(),
            calculator.evictions(),
        )
    });
    let (recorded, evictions) = recorded.unwrap_or((0, u64::MAX));
    checks.equal(
        format_args!("stack_distance_accesses"),
        "accesses seen vs PMU LD_RETIRED + ST_RETIRED",
        recorded,
        accesses,
    );
    checks.equal(
        format_args!("stack_distance_exact"),
        "lines evicted from the calculator (0: every distance exact)",
        evictions,
        0,
    );
}

fn write_trace(trace: &Trace, small: &SmallTrace, accesses: u64, checks: &mut Checks) {
    heading(format_args!(
        "Memory trace of SPU3 (Dinero IV din) through semihosting"
    ));
    let held = trace
        .with(|t| (t.len() as u64, t.dropped()))
        .unwrap_or((0, u64::MAX));
    checks.equal(
        format_args!("trace_complete"),
        "records held vs PMU LD_RETIRED + ST_RETIRED",
        held.0,
        accesses,
    );
    checks.equal(
        format_args!("trace_no_drops"),
        "records dropped by the big ring",
        held.1,
        0,
    );
    let small_counts = small
        .with(|t| (t.len() as u64, t.dropped()))
        .unwrap_or((0, 0));
    println!(
        "  small ring ({SMALL_TRACE_RECORDS} records, drop newest): kept {}, dropped {} records",
        small_counts.0, small_counts.1
    );
    checks.check(
        format_args!("small_trace_overflow_counted"),
        small_counts.0 == SMALL_TRACE_RECORDS as u64 && small_counts.0 + small_counts.1 == accesses,
        format_args!(
            "kept + dropped = {} = accesses {accesses}",
            small_counts.0 + small_counts.1
        ),
    );
    let written = BufferedHostFile::create(DIN_FILE).and_then(|mut file| {
        let _ = trace.with(|t| t.write_din(&mut file));
        file.finish()
    });
    match written {
        Ok(bytes) => {
            println!("  wrote {DIN_FILE} ({} records, {bytes} bytes)", held.0);
            checks.check(
                format_args!("din_written"),
                bytes > 0,
                format_args!("{DIN_FILE}"),
            );
        }
        Err(e) => checks.check(
            format_args!("din_written"),
            false,
            format_args!("{DIN_FILE}: {e}"),
        ),
    }
}

fn write_konata() {
    heading(format_args!("Konata pipeline log"));
    println!(
        "  not written: this build's pipeline model has no trace-frame/Konata export yet (issue 7); {KONATA_FILE} appears once it has"
    );
}
