//! The SPU phase on every core: the plans are dealt to the N numbered cores heaviest first, each
//! to the core with the least weight so far ([`Plan::weight`](crate::demo::spu_runs::plan::Plan), the host
//! instructions a plan takes), so that the core with the most work has as little as the plans
//! allow. Each core runs its plans in SPU order on their SPUs of the arena (its output captured
//! per SPU) and measures its whole share with its own PMU; then the per-core table.
//!
//! A plan is claimed before it runs (one flag per plan), so it runs exactly once. A core that
//! does not start for the phase loses nothing: when the others are done, the calling core runs
//! the plans nobody claimed. (Cores do not steal from each other while the phase runs: QEMU's
//! round-robin thread gives a virtual core up to 0.1 s of virtual time at a go, so a core that
//! started late would find its plans taken, and the share would depend on QEMU's scheduling.)
//! With more cores than plans, the cores without a plan report themselves idle.

use core::sync::atomic::{AtomicBool, Ordering};

use pmprobe::rt::ZeroSlot;
use pmprobe::rt::semihosting;
use pmprobe::rt::smp::{self, CoreId, MAX_CORES, StartError};
use pmprobe::rt::timer;
use pmprobe::spu::arena::SPU_COUNT;
use pmprobe::spu::unit::SpuUnit;
use pmprobe::sync::IrqSpinMutex;

use crate::demo::command_line::options::Options;
use crate::demo::shared::checks::Checks;
use crate::demo::shared::core_lock::CoreLock;
use crate::demo::shared::host_meter::{HostDelta, HostMeter, Unsupported};
use crate::demo::shared::output::{capture, heading, outln};
use crate::demo::spu_runs::plan::PLANS;
use crate::demo::spu_runs::plan_run::{Attach, PlanOutcome, run_plan};

/// What one core did in the phase.
pub struct CoreRow {
    pub core: CoreId,
    /// The SPUs it ran, in order.
    pub spus: heapless::Vec<usize, SPU_COUNT>,
    /// Its own PMU's counts over its whole share (`None`: no PMU to read).
    pub counts: Option<HostDelta>,
    /// Whether its PMU counts INST_RETIRED (QEMU's does only under `-icount`).
    pub instructions_counted: bool,
}

/// Each plan's outcome, by plan index.
pub static OUTCOMES: [IrqSpinMutex<ZeroSlot<PlanOutcome>>; PLANS.len()] =
    [const { IrqSpinMutex::new(ZeroSlot::new()) }; PLANS.len()];
static ROWS: IrqSpinMutex<heapless::Vec<CoreRow, MAX_CORES>> =
    IrqSpinMutex::new(heapless::Vec::new());

/// The phase as a whole.
pub struct Phase {
    /// Cores that ran at least one plan.
    pub cores_used: usize,
    /// Host wall-clock time of the phase in microseconds (semihosting `SYS_ELAPSED`), if the host
    /// tells it.
    pub wall_us: Option<u64>,
    /// Virtual time of the phase in generic-timer ticks (`CNTPCT_EL0`), and their frequency.
    pub ticks: u64,
    /// Cores that did not start for the phase.
    pub errors: heapless::Vec<StartError, MAX_CORES>,
}

/// The core (number) each plan is dealt to, by plan index: heaviest plan first, each to the
/// core with the least weight so far (the lowest number on a tie).
pub fn deal(cores: usize) -> [usize; PLANS.len()] {
    let cores = cores.clamp(1, MAX_CORES);
    let mut order: [usize; PLANS.len()] = core::array::from_fn(|index| index);
    order.sort_unstable_by_key(|&index| {
        (
            core::cmp::Reverse(PLANS.get(index).map_or(0, |plan| plan.weight)),
            index,
        )
    });
    let mut loads = [0u64; MAX_CORES];
    let mut dealt = [0; PLANS.len()];
    for index in order {
        let lightest = (0..cores)
            .min_by_key(|&core| (loads.get(core).copied(), core))
            .unwrap_or(0);
        if let (Some(load), Some(plan), Some(slot)) = (
            loads.get_mut(lightest),
            PLANS.get(index),
            dealt.get_mut(index),
        ) {
            *load += u64::from(plan.weight);
            *slot = lightest;
        }
    }
    dealt
}

/// Runs every plan on the cores; returns when all are done.
pub fn run_phase(units: &mut [SpuUnit; SPU_COUNT], options: &Options) -> Phase {
    let slots = units.each_mut().map(CoreLock::new);
    let claimed = [const { AtomicBool::new(false) }; PLANS.len()];
    let dealt = deal(smp::online());
    // `leftovers`: run every unclaimed plan, not only this core's.
    let share = |core: CoreId, leftovers: bool| {
        let mut meter = HostMeter::new().ok();
        // Without INST_RETIRED the SPU runs get no host figures, but the row still gets cycles.
        let mut row_meter = match meter {
            Some(_) => None,
            None => HostMeter::cycles_only().ok(),
        };
        let start = meter
            .as_mut()
            .or(row_meter.as_mut())
            .and_then(|meter| meter.read().ok());
        let mut spus = heapless::Vec::new();
        let mine = |index: &usize| leftovers || dealt.get(*index) == Some(&core.index());
        for index in (0..PLANS.len()).filter(mine) {
            let Some(plan) = PLANS.get(index) else {
                continue;
            };
            let claim = claimed.get(index);
            if claim.is_none_or(|claim| claim.swap(true, Ordering::Relaxed)) {
                continue;
            }
            let Some(slot) = slots.get(plan.spu) else {
                continue;
            };
            let outcome = slot.lock(|unit| {
                capture(index, || {
                    run_plan(plan, unit, options, meter.as_mut(), Attach::Plan)
                })
            });
            if let Some(done) = OUTCOMES.get(index) {
                done.lock(|done| done.set(outcome));
            }
            let _ = spus.push(plan.spu);
        }
        let row_meter = meter.as_mut().or(row_meter.as_mut());
        let instructions_counted = row_meter.as_ref().is_some_and(|m| m.counts_instructions());
        let end = row_meter.and_then(|meter| meter.read().ok());
        let counts = start.zip(end).map(|(start, end)| end.since(start));
        ROWS.lock(|rows| match rows.iter_mut().find(|row| row.core == core) {
            Some(row) => {
                for spu in spus {
                    let _ = row.spus.push(spu);
                }
                row.counts = row.counts.zip(counts).map(|(a, b)| HostDelta {
                    instructions: a.instructions + b.instructions,
                    cycles: a.cycles + b.cycles,
                });
            }
            None => {
                let _ = rows.push(CoreRow {
                    core,
                    spus,
                    counts,
                    instructions_counted,
                });
            }
        });
    };
    let wall_start = semihosting::elapsed_micros().ok();
    let tick_start = timer::now();
    let errors = smp::on_each_core(&|core| share(core, false));
    if !errors.is_empty() {
        share(smp::this_core(), true);
    }
    let ticks = timer::now().wrapping_sub(tick_start);
    let wall_us = semihosting::elapsed_micros()
        .ok()
        .zip(wall_start)
        .map(|(end, start)| end.saturating_sub(start));
    let cores_used = ROWS.lock(|rows| rows.iter().filter(|row| !row.spus.is_empty()).count());
    Phase {
        cores_used,
        wall_us,
        ticks,
        errors,
    }
}

/// Prints the per-core table and the phase's times; checks that every plan ran exactly once.
pub fn print_table(phase: &Phase, unsupported: Option<Unsupported>, checks: &mut Checks) {
    let online = smp::online();
    let plural = if online == 1 { "" } else { "s" };
    heading(format_args!(
        "Cores: the SPU phase on {online} core{plural}, each measured by its own PMU"
    ));
    outln!("  The SPUs are dealt heaviest first, each to the core with the least work so far (the");
    outln!("  SPUs of a core that did not start run on this core after the others); each core");
    outln!("  counts its whole share with its own PMU. QEMU note: under -icount every");
    outln!("  virtual core reads the one instruction counter that all of them advance, so with");
    outln!("  several cores a row counts the other cores' work in the same interval too.");
    for error in &phase.errors {
        outln!(
            "  {error}: its SPUs ran on {} after the others",
            smp::this_core()
        );
    }
    outln!(
        "  {:<7} {:<12} {:<14} {:>14} {:>14}",
        "core",
        "MPIDR",
        "SPUs",
        "CPU_CYCLES",
        "INST_RETIRED"
    );
    let mut ran = [0u32; SPU_COUNT];
    ROWS.lock(|rows| {
        rows.sort_unstable_by_key(|row| row.core);
        for row in rows.iter() {
            let mut spus: heapless::String<48> = heapless::String::new();
            for spu in &row.spus {
                let _ = core::fmt::write(&mut spus, format_args!("SPU{spu} "));
                if let Some(count) = ran.get_mut(*spu) {
                    *count += 1;
                }
            }
            if row.spus.is_empty() {
                let _ = spus.push_str("idle");
            }
            let mpidr = smp::mpidr(row.core).unwrap_or(0);
            match row.counts {
                Some(counts) if row.instructions_counted => outln!(
                    "  {:<7} {:<#12x} {:<14} {:>14} {:>14}",
                    row.core,
                    mpidr,
                    spus.trim_end(),
                    counts.cycles,
                    counts.instructions
                ),
                Some(counts) => outln!(
                    "  {:<7} {:<#12x} {:<14} {:>14} {:>14}",
                    row.core,
                    mpidr,
                    spus.trim_end(),
                    counts.cycles,
                    "not supported"
                ),
                None => outln!(
                    "  {:<7} {:<#12x} {:<14} (no PMU to read)",
                    row.core,
                    mpidr,
                    spus.trim_end()
                ),
            }
        }
    });
    if let Some(lacking) = unsupported {
        outln!("  {lacking}");
    }
    match phase.wall_us {
        Some(us) => outln!(
            "  SPU phase: {}.{:03} s host wall clock, {} virtual timer ticks ({} Hz)",
            us / 1_000_000,
            (us / 1_000) % 1_000,
            phase.ticks,
            timer::frequency()
        ),
        None => outln!(
            "  SPU phase: {} virtual timer ticks ({} Hz); the host gave no wall clock",
            phase.ticks,
            timer::frequency()
        ),
    }
    for plan in &PLANS {
        let count = ran.get(plan.spu).copied().unwrap_or(0);
        checks.check(
            format_args!("spu{}_ran_once", plan.spu),
            count == 1,
            format_args!("SPU{} ran on {count} core(s)", plan.spu),
        );
    }
}
