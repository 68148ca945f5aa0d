//! Sections 2 to 6 and the MFC part, one room after another: the SPU kernels on the static
//! arena, spread over the cores, under probes, counted by emulated PMUs, with each core measured
//! by its real PMU; the per-core table and, when several cores ran SPUs, the one-core reference;
//! then the host table, the stack distance chart and the trace files; the channel pair; the MFC
//! sections.

use pmprobe::spu::arena::Arena;

use crate::demo::channels::channel_pair;
use crate::demo::command_line::options::Options;
use crate::demo::command_line::profile;
use crate::demo::cores::reference;
use crate::demo::cores::spread::{self, OUTCOMES};
use crate::demo::host_core::host_table::{HostRow, print_host_table};
use crate::demo::host_core::topdown;
use crate::demo::mfc;
use crate::demo::recordings::stack_distance::print_stack_distance;
use crate::demo::recordings::trace_files::{write_konata, write_trace};
use crate::demo::shared::checks::Checks;
use crate::demo::shared::core_lock::CoreLock;
use crate::demo::shared::host_meter::{HostMeter, Unsupported};
use crate::demo::shared::output::{heading, outln, print_section};
use crate::demo::spu_runs::interval_mode;
use crate::demo::spu_runs::plan::{PLANS, Role};
use crate::demo::spu_runs::plan_run::{DISTANCES, SMALL_TRACE, TRACE};
use pmprobe::pmu::Error;

/// The SPUs live in static storage (no heap), behind a lock across cores: the boot core holds it
/// for the whole demo and lends each SPU to the core that runs it. A lock that leaves interrupts
/// on, so that `--profile` can sample the SPU runs.
static ARENA: CoreLock<Arena> = CoreLock::new(Arena::new());

/// Lends SPU `spu` of the arena to `f` (the perf stat mode's measured work, which runs instead
/// of the scenario); `f`'s result, or 1 for an SPU the arena does not have.
pub fn with_unit(spu: usize, f: impl FnOnce(&mut pmprobe::spu::unit::SpuUnit) -> i32) -> i32 {
    ARENA.lock(|arena| arena.units_mut().get_mut(spu).map_or(1, f))
}

/// Runs sections 2 to 6, recording every cross-check in `checks`.
pub fn run(options: &Options, checks: &mut Checks) {
    ARENA.lock(|arena| run_on(arena, options, checks));
}

fn run_on(arena: &mut Arena, options: &Options, checks: &mut Checks) {
    print_setup();
    if let Some(interval_ms) = options.interval_ms {
        interval_mode::start_phase(interval_ms);
    }
    // `--profile` samples the runs of the host table: these on one core, else the reference.
    profile::sample_host_table_runs(pmprobe::rt::smp::online() == 1);
    let phase = spread::run_phase(arena.units_mut(), options);
    profile::sample_host_table_runs(false);

    let mut rows: heapless::Vec<HostRow, { PLANS.len() }> = heapless::Vec::new();
    let mut distance_accesses = 0;
    let mut traced_accesses = 0;
    let mut konata = None;
    for (index, plan) in PLANS.iter().enumerate() {
        print_section(index);
        let Some(outcome) = OUTCOMES.get(index) else {
            continue;
        };
        outcome.lock(|outcome| {
            let Some(outcome) = outcome.get() else {
                return;
            };
            checks.absorb(&outcome.checks);
            if let Some(row) = outcome.row {
                let _ = rows.push(row);
            }
            match plan.role {
                Role::StackDistance => distance_accesses = outcome.accesses(),
                Role::Trace => traced_accesses = outcome.accesses(),
                _ => {}
            }
            if plan.konata {
                konata = outcome.konata(plan.spu);
            }
        });
    }
    let unsupported = Unsupported::on_this_core();
    spread::print_table(&phase, unsupported, checks);
    if phase.cores_used > 1 {
        // The host figures measured while other cores ran are not this core's alone (QEMU's
        // shared counter): the host table shows the reference runs' instead.
        let mut meter = match HostMeter::new() {
            Ok(meter) => Some(meter),
            Err(Error::EventNotImplemented(_)) if unsupported.is_some() => None,
            Err(e) => {
                checks.check(format_args!("host_pmu"), false, format_args!("{e}"));
                None
            }
        };
        profile::sample_host_table_runs(true);
        rows = reference::check(arena.units_mut(), options, meter.as_mut(), checks);
        profile::sample_host_table_runs(false);
    }

    print_host_table(&rows, phase.cores_used > 1, unsupported, checks);
    topdown::print(options.profile.is_some());
    DISTANCES.lock(|distances| print_stack_distance(distances, distance_accesses, checks));
    TRACE.lock(|trace| {
        SMALL_TRACE.lock(|small| write_trace(trace, small, traced_accesses, checks));
    });
    write_konata(konata, checks);
    channel_pair::run(arena.units_mut(), checks);
    mfc::run(arena, options.no_icount, checks);
}

fn print_setup() {
    heading(format_args!(
        "SPU kernels: 4 SPUs of the static arena, programs assembled at boot from spu/programs/demo_*.s"
    ));
    for line in [
        "Each SPU has an emulated PMU (PMUv3p7-like preset, N = 6 + cycle counter) fed by SpuPmuFeed",
        "(gem5's point -> event wiring plus IssueStall -> STALL_FRONTEND / STALL_BACKEND, counted lazily),",
        "programmed through pmu::Pmu, the same driver as the real core.",
        "10 of the 11 events the feed drives (not BUS_ACCESS: these kernels do no DMA), in one run: a",
        "pinned group (CPU_CYCLES on PMCCNTR, INST_RETIRED, LD_RETIRED, ST_RETIRED: exact) and three",
        "flexible groups of three that take turns on the other three counters, rotated every 2048 SPU",
        "cycles (perf's multiplexing, clocked by the SPU).",
        "Also attached: a BreakPcEvent on SPU0, the stack distance calculator on SPU1's data accesses,",
        "two memory trace rings on SPU3. Lines: `|` prof_cp output, `:` the SPU's statistics block.",
    ] {
        outln!("  {line}");
    }
    outln!(
        "  The SPUs are spread over {} core(s); the sections below are printed in SPU order once",
        pmprobe::rt::smp::online()
    );
    outln!("  every core is done.");
}
