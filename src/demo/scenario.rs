//! Sections 2 to 6: the SPU kernels on the static arena, under probes, counted by emulated
//! PMUs, with the host core measured by its real PMU; then the stack distance chart and the
//! trace files.

use core::cell::RefCell;

use pmprobe::pmu::Event;
use pmprobe::println;
use pmprobe::probe::listeners::{MemTrace, OverflowPolicy, StackDistance};
use pmprobe::probe::sync::{IrqMutex, free};
use pmprobe::probe::{BreakPcEvent, MutListener, PcEventQueue};
use pmprobe::spu::arena::Arena;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::unit::Mode;

use super::checks::Checks;
use super::host::HostMeter;
use super::kernels::{self, IMAGE_BYTES, Kernel};
use super::options::Options;
use super::output::heading;
use super::reports::{HostRow, print_host_table, print_stack_distance, write_konata, write_trace};
use super::spu_run::{Extras, run_spu};
use super::watch::{BreakContext, PcWatch, report_first_hit};

/// Records the big trace ring holds (enough for the traced SPU's whole run).
pub const TRACE_RECORDS: usize = 16 * 1024;
/// Records of the small ring attached next to it, which overflows on purpose.
pub const SMALL_TRACE_RECORDS: usize = 256;
/// Lines the stack distance calculator tracks, and its linear bins.
const DISTANCE_LINES: usize = 256;
const DISTANCE_BINS: usize = 64;
/// Line size of the stack distance calculator: one LS quadword (the SPU's load/store unit).
pub(super) const DISTANCE_LINE_BYTES: u64 = 16;

pub(super) type Trace = MutListener<MemTrace<TRACE_RECORDS>>;
pub(super) type SmallTrace = MutListener<MemTrace<SMALL_TRACE_RECORDS>>;
pub(super) type Distances = MutListener<StackDistance<DISTANCE_LINES, DISTANCE_BINS>>;

/// The big objects live in static storage (no heap): eight SPUs of about 600 KiB each and
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
pub(super) enum Role {
    /// A `BreakPcEvent` at this label.
    Breakpoint(&'static str),
    /// The stack distance calculator on its data accesses.
    StackDistance,
    /// Nothing else.
    Plain,
    /// The memory trace recorders (the big ring and the small one).
    Trace,
}

pub(super) struct Plan {
    /// The fetch model in pipeline mode.
    pub(super) fetch: FetchKind,
    /// Write the Kanata log of run 2.
    pub(super) konata: bool,
    pub(super) spu: usize,
    pub(super) kernel: Kernel,
    pub(super) mode: Mode,
    pub(super) role: Role,
}

const PLANS: [Plan; 4] = [
    Plan {
        spu: 0,
        kernel: kernels::SAXPY,
        mode: Mode::Pipeline,
        // The real fetch unit: the hbrr-hinted loop shows hint hits and its exits mispredict.
        fetch: FetchKind::Real,
        konata: false,
        role: Role::Breakpoint("saxpy_branch"),
    },
    Plan {
        spu: 1,
        kernel: kernels::CHAIN,
        mode: Mode::Pipeline,
        fetch: FetchKind::Real,
        konata: false,
        role: Role::StackDistance,
    },
    Plan {
        spu: 2,
        kernel: kernels::DOUBLE,
        mode: Mode::Pipeline,
        fetch: FetchKind::Real,
        konata: true,
        role: Role::Plain,
    },
    Plan {
        spu: 3,
        kernel: kernels::SAXPY,
        mode: Mode::Instruction,
        fetch: FetchKind::Ideal,
        konata: false,
        role: Role::Trace,
    },
];

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
