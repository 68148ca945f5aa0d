//! One plan of [`PLANS`](super::plan::PLANS) on its SPU: assemble the kernel, attach what the
//! plan asks for, run it ([`run_spu`]), and check what the attachments saw. Runs on whichever
//! core takes the plan; what the reports read afterwards (the stack distance calculator, the
//! trace rings) lives in statics behind `CoreLock`es, so the boot core reaches it later.

use crate::demo::shared::core_lock::CoreLock;
use pmprobe::pmu::Event;
use pmprobe::probe::listeners::{MemTrace, OverflowPolicy, StackDistance};
use pmprobe::probe::{BreakPcEvent, MutListener, PcEventQueue};
use pmprobe::rt::semihosting::HostError;
use pmprobe::spu::unit::SpuUnit;

use super::plan::{
    DISTANCE_BINS, DISTANCE_LINE_BYTES, DISTANCE_LINES, Distances, Plan, Role, SmallTrace, Trace,
};
use super::spu_run::{Extras, SpuResult, run_spu};
use super::watch::{BreakContext, PcWatch, report_first_hit};
use crate::demo::command_line::options::Options;
use crate::demo::host_core::host_table::HostRow;
use crate::demo::shared::checks::Checks;
use crate::demo::shared::host_meter::HostMeter;
use crate::demo::shared::kernels::IMAGE_BYTES;

/// A stack distance calculator with 1-byte lines: all-zero bits. A line size that is not a
/// power of two could not fail here, so the demo's own is set at run time.
const UNSIZED_DISTANCES: StackDistance<DISTANCE_LINES, DISTANCE_BINS> = match StackDistance::new(1)
{
    Ok(calculator) => calculator,
    Err(_) => panic!("the stack distance capacity is out of range"),
};

/// SPU3's memory trace ring (512 KiB: all-zero, so in `.bss`) and the small one beside it.
pub static TRACE: CoreLock<Trace> =
    CoreLock::new(MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)));
pub static SMALL_TRACE: CoreLock<SmallTrace> =
    CoreLock::new(MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)));
/// SPU1's stack distance calculator. It starts with 1-byte lines, whose state is all-zero bits
/// (so it lands in `.bss`); each run sets [`DISTANCE_LINE_BYTES`] before its first access.
pub static DISTANCES: CoreLock<Distances> = CoreLock::new(MutListener::new(UNSIZED_DISTANCES));

/// The same listeners for the one-core reference runs, so that those run with exactly what the
/// plan attaches without adding to the figures the reports print.
static REFERENCE_TRACE: CoreLock<Trace> =
    CoreLock::new(MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)));
static REFERENCE_SMALL_TRACE: CoreLock<SmallTrace> =
    CoreLock::new(MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)));
static REFERENCE_DISTANCES: CoreLock<Distances> =
    CoreLock::new(MutListener::new(UNSIZED_DISTANCES));

/// What one plan's run produced.
pub struct PlanOutcome {
    /// The checks made while it ran (their lines are in the plan's captured section).
    pub checks: Checks,
    /// The run's figures, when it ran to the end.
    pub result: Option<SpuResult>,
    /// Its row of the host table.
    pub row: Option<HostRow>,
}

impl PlanOutcome {
    /// Loads and stores its PMU counted.
    pub fn accesses(&self) -> u64 {
        self.result.as_ref().map_or(0, |result| {
            result.counts.value(Event::LD_RETIRED) + result.counts.value(Event::ST_RETIRED)
        })
    }

    /// The Konata log it wrote: (SPU, bytes or the error, instructions of the logged run).
    pub fn konata(&self, spu: usize) -> Option<(usize, Result<usize, HostError>, u64)> {
        let result = self.result.as_ref()?;
        let written = result.konata?;
        Some((spu, written, result.counts.value(Event::INST_RETIRED)))
    }
}

/// Which run of a plan this is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Attach {
    /// The demo's run: the plan as written, its listeners the ones the reports read.
    Plan,
    /// A one-core reference run: the same listeners (fresh ones the reports do not read), no
    /// Konata log, no `--miscount`, no interval mode.
    Reference,
}

/// Runs `plan` on `unit`, measuring the host core with `host` when there is one.
pub fn run_plan(
    plan: &Plan,
    unit: &mut SpuUnit,
    options: &Options,
    host: Option<&mut HostMeter>,
    attach: Attach,
) -> PlanOutcome {
    let mut checks = Checks::new();
    let (trace, small_trace, distances) = match attach {
        Attach::Plan => (&TRACE, &SMALL_TRACE, &DISTANCES),
        Attach::Reference => (
            &REFERENCE_TRACE,
            &REFERENCE_SMALL_TRACE,
            &REFERENCE_DISTANCES,
        ),
    };
    let reference_plan = Plan {
        konata: false,
        ..*plan
    };
    let quiet = Options {
        miscount: false,
        interval_ms: None,
        ..options.clone()
    };
    let (plan_run, options) = match attach {
        Attach::Plan => (plan, options),
        Attach::Reference => (&reference_plan, &quiet),
    };
    let result = match plan.role {
        Role::StackDistance => distances.lock(|distances| {
            let sized =
                distances.with(|calculator| calculator.reset_with_line_size(DISTANCE_LINE_BYTES));
            // Not inside the calculator's own callback here, so `with` always runs.
            if let Some(Err(error)) = sized {
                checks.check(
                    format_args!("spu{}_stack_distance_line_size", plan.spu),
                    false,
                    format_args!("{error}"),
                );
                return None;
            }
            attached(plan_run, unit, options, host, &mut checks, &[distances])
        }),
        Role::Trace => trace.lock(|trace| {
            small_trace.lock(|small| {
                trace.with(|ring| ring.clear());
                small.with(|ring| ring.clear());
                attached(plan_run, unit, options, host, &mut checks, &[trace, small])
            })
        }),
        Role::Breakpoint(_) | Role::Plain => {
            attached(plan_run, unit, options, host, &mut checks, &[])
        }
    };
    let row = result.as_ref().map(|result| HostRow {
        spu: plan.spu,
        mode: plan.mode,
        spu_cycles: result.counts.value(Event::CPU_CYCLES),
        host: result.host,
        host_bare: result.host_bare,
    });
    PlanOutcome {
        checks,
        result,
        row,
    }
}

/// The data-access listeners of a plan (stack distance, the trace rings).
type DataListener<'l> = &'l dyn pmprobe::probe::Listener<pmprobe::probe::listeners::MemAccess>;

fn attached(
    plan: &Plan,
    unit: &mut SpuUnit,
    options: &Options,
    host: Option<&mut HostMeter>,
    checks: &mut Checks,
    data_access: &[DataListener<'_>],
) -> Option<SpuResult> {
    let mut image = [0u8; IMAGE_BYTES];
    let program = match plan.kernel.assemble(&mut image) {
        Ok(program) => program,
        Err(e) => {
            checks.check(
                format_args!("spu{}_assemble", plan.spu),
                false,
                format_args!("{}: {e}", plan.kernel.file),
            );
            return None;
        }
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
    if let Role::Breakpoint(_) = plan.role {
        extras.retired_pc = Some(&watch);
        extras.cycles = Some(&clock);
    }
    for &listener in data_access {
        let _ = extras.data_access.push(listener);
    }
    let image = image.get(..program.len).unwrap_or(&[]);
    extras.miscount = options.miscount && plan.spu == 0;
    extras.interval_ms = options.interval_ms;
    let result = run_spu(unit, plan, &program, image, &extras, host, checks)?;
    if let Role::Breakpoint(label) = plan.role {
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
    Some(result)
}

/// Inner-loop iterations of demo_saxpy.s: 128 quadwords x 32 passes.
const fn saxpy_inner_iterations() -> u64 {
    128 * 32
}
