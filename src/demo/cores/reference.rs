//! The one-core reference: after the SPU phase ran on several cores, the boot core runs every
//! plan again on its own (the other cores are powered off) and each SPU's result, statistics and
//! emulated-PMU counts must be the same as on the core that ran it: the model is deterministic,
//! so the core and the company it ran in must not matter.
//!
//! The reference runs attach what the plan attaches (into listeners of their own, which the
//! reports do not read), without the Konata log, `--miscount` and interval mode, and are measured by this
//! core's PMU alone, so the host table shows their exact figures (see [`super::spread`] on QEMU's
//! shared counter).

use pmprobe::spu::arena::SPU_COUNT;
use pmprobe::spu::unit::SpuUnit;

use super::spread::OUTCOMES;
use crate::demo::command_line::options::Options;
use crate::demo::host_core::host_table::HostRow;
use crate::demo::shared::checks::Checks;
use crate::demo::shared::host_meter::HostMeter;
use crate::demo::shared::output::{SCRATCH, capture, heading, outln};
use crate::demo::spu_runs::plan::PLANS;
use crate::demo::spu_runs::plan_run::{Attach, run_plan};
use crate::demo::spu_runs::spu_run::SpuResult;

/// What must agree between two runs of one SPU, with its name.
fn differences(a: &SpuResult, b: &SpuResult) -> heapless::Vec<&'static str, 6> {
    let mut differ = heapless::Vec::new();
    for (name, same) in [
        ("result", a.result_ok == b.result_ok && a.state == b.state),
        ("statistics", a.stats == b.stats),
        ("PMU readings", a.counts == b.counts),
    ] {
        if !same {
            let _ = differ.push(name);
        }
    }
    differ
}

/// Runs every plan on this core and compares; returns the host rows measured here.
pub fn check(
    units: &mut [SpuUnit; SPU_COUNT],
    options: &Options,
    mut meter: Option<&mut HostMeter>,
    checks: &mut Checks,
) -> heapless::Vec<HostRow, { PLANS.len() }> {
    heading(format_args!(
        "One-core reference: every SPU again on {} alone, compared with its run above",
        pmprobe::rt::smp::this_core()
    ));
    let mut rows = heapless::Vec::new();
    for (index, plan) in PLANS.iter().enumerate() {
        let Some(unit) = units.get_mut(plan.spu) else {
            continue;
        };
        let alone = capture(SCRATCH, || {
            run_plan(plan, unit, options, meter.as_deref_mut(), Attach::Reference)
        });
        if let Some(row) = alone.row {
            let _ = rows.push(row);
        }
        let spread = OUTCOMES.get(index).and_then(|outcome| {
            outcome.lock(|outcome| outcome.get().and_then(|o| o.result.clone()))
        });
        match (spread, alone.result) {
            (Some(spread), Some(alone)) => {
                let differ = differences(&spread, &alone);
                checks.check(
                    format_args!("spu{}_same_as_one_core", plan.spu),
                    differ.is_empty(),
                    format_args!(
                        "result digest {:#018x}, statistics, every multiplexed PMU reading: {}",
                        alone.state,
                        if differ.is_empty() { "equal" } else { "differ" }
                    ),
                );
                for name in differ {
                    outln!("    differs: {name}");
                }
            }
            _ => checks.check(
                format_args!("spu{}_same_as_one_core", plan.spu),
                false,
                format_args!("a run did not finish (see its section)"),
            ),
        }
    }
    rows
}
