//! Sections 2 to 6: the SPU kernels on the static arena, under probes, counted by emulated
//! PMUs, with the host core measured by its real PMU; then the stack distance chart and the
//! trace files.

use pmprobe::pmu::Event;
use pmprobe::println;
use pmprobe::probe::listeners::{MemTrace, OverflowPolicy, StackDistance};
use pmprobe::probe::{BreakPcEvent, MutListener, PcEventQueue};
use pmprobe::spu::arena::Arena;
use static_cell::ConstStaticCell;

use super::checks::Checks;
use super::host::HostMeter;
use super::kernels::IMAGE_BYTES;
use super::options::Options;
use super::output::heading;
use super::plan::{DISTANCE_LINE_BYTES, Distances, PLANS, Role, SmallTrace, Trace};
use super::reports::{HostRow, print_host_table, print_stack_distance, write_konata, write_trace};
use super::spu_run::{Extras, run_spu};
use super::watch::{BreakContext, PcWatch, report_first_hit};

/// The big objects live in static storage (no heap): the SPUs of the arena and the trace ring.
/// Each is handed out once, as `&'static mut`, without a critical section, so the SPU phase runs
/// with interrupts on (`--profile` samples it). Both start as all-zero bits where their types
/// allow it, so that they land in `.bss` rather than in the image.
static ARENA: ConstStaticCell<Arena> = ConstStaticCell::new(Arena::new());
static TRACE: ConstStaticCell<Trace> =
    ConstStaticCell::new(MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)));

/// Runs sections 2 to 6, recording every cross-check in `checks`.
pub fn run(options: &Options, checks: &mut Checks) {
    match (ARENA.try_take(), TRACE.try_take()) {
        (Some(arena), Some(trace)) => run_on(arena, trace, options, checks),
        _ => checks.check(
            format_args!("arena_available"),
            false,
            format_args!("the static arena is already in use"),
        ),
    }
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
    let mut konata = None;

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
        if let Some(written) = result.konata {
            konata = Some((plan.spu, written, result.counts.value(Event::INST_RETIRED)));
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
    write_konata(konata, checks);
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
