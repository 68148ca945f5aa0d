//! The cross-checks of one SPU's counted run: its PMU's view against the SPU's own. The pinned
//! events counted the whole run, so they equal the SPU's totals exactly; a flexible group's raw
//! counts cover only its turns on the counters, so they equal the SPU's statistics over those
//! turns exactly; the multiplexer's times add up; the top-down categories add up to the cycles.

use pmprobe::pmu::Event;
use pmprobe::spu::pipeline::Statistics;

use super::run_loops::Totals;
use super::spu_pmu::{BRANCHES, FLEXIBLE, Fetch, MEMORY, STALLS, SpuCounts};
use crate::demo::shared::checks::Checks;
use crate::demo::shared::output::{out, outln};

/// The SPU's own statistics against its PMU's view.
pub(super) fn cross_check(
    spu: usize,
    fetch: Fetch,
    counts: &SpuCounts,
    totals: &Totals,
    stats: &Statistics,
    checks: &mut Checks,
) {
    let cycles = counts.value(Event::CPU_CYCLES);
    let instructions = counts.value(Event::INST_RETIRED);
    checks.equal(
        format_args!("spu{spu}_cycles_pmu_vs_run"),
        "PMU CPU_CYCLES (pinned) vs cycles simulated",
        cycles,
        totals.cycles,
    );
    checks.equal(
        format_args!("spu{spu}_insts_pmu_vs_run"),
        "PMU INST_RETIRED (pinned) vs instructions completed",
        instructions,
        totals.instructions,
    );
    multiplexing(spu, counts, checks);
    let [branches, stalls, _] = counts.windows;
    let mispredicts = counts.raw(BRANCHES, Event::BR_MIS_PRED);
    match fetch {
        Fetch::Real if counts.whole.hint_hits == 0 => checks.equal(
            format_args!("spu{spu}_mispredicts_vs_stats"),
            "real fetch, no hint hit: PMU BR_MIS_PRED vs taken branches, in its group's turns",
            mispredicts,
            branches.branches_taken,
        ),
        Fetch::Real => checks.check(
            format_args!("spu{spu}_mispredicts_vs_stats"),
            mispredicts <= branches.branches,
            format_args!(
                "PMU BR_MIS_PRED {mispredicts} <= branch instructions {} in its group's turns",
                branches.branches
            ),
        ),
        Fetch::Ideal | Fetch::None => checks.equal(
            format_args!("spu{spu}_no_mispredicts"),
            "PMU BR_MIS_PRED without a predictor",
            mispredicts,
            0,
        ),
    }
    let frontend = counts.raw(STALLS, Event::STALL_FRONTEND);
    let backend = counts.raw(STALLS, Event::STALL_BACKEND);
    match fetch {
        Fetch::Ideal | Fetch::Real => {
            checks.equal(
                format_args!("spu{spu}_cycles_pmu_vs_stats"),
                "PMU CPU_CYCLES (pinned) vs Total Cycle count",
                cycles,
                stats.cycles,
            );
            checks.equal(
                format_args!("spu{spu}_insts_pmu_vs_stats"),
                "PMU INST_RETIRED (pinned) vs Total Instruction count",
                instructions,
                stats.instructions,
            );
            checks.equal(
                format_args!("spu{spu}_branches_pmu_vs_stats"),
                "PMU BR_RETIRED vs branch instructions, in its group's turns",
                counts.raw(BRANCHES, Event::BR_RETIRED),
                branches.branches,
            );
            checks.equal(
                format_args!("spu{spu}_frontend_pmu_vs_stats"),
                "PMU STALL_FRONTEND vs branch miss + prefetch miss + hint + channel + init, in its group's turns",
                frontend,
                stalls.frontend,
            );
            checks.equal(
                format_args!("spu{spu}_backend_pmu_vs_stats"),
                "PMU STALL_BACKEND vs dependency + fp resource + dp pipeline, in its group's turns",
                backend,
                stalls.backend,
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

/// What holds of any multiplexed run, whatever the workload: the times, and the events that
/// one group counts twice over.
fn multiplexing(spu: usize, counts: &SpuCounts, checks: &mut Checks) {
    let readings = counts.readings.as_slice();
    let enabled = readings.first().map_or(0, |reading| reading.enabled);
    let running: u64 = readings.iter().map(|reading| reading.running).sum();
    // The pinned CPU_CYCLES on PMCCNTR, three pinned event counters and three taken in turn.
    let counters = 1 + 3 + FLEXIBLE.len() as u64;
    checks.check(
        format_args!("spu{spu}_mux_time_running"),
        enabled == counts.value(Event::CPU_CYCLES) && running == counters * enabled,
        format_args!(
            "time enabled {enabled} = CPU_CYCLES; time running of all events {running} = {counters} counters x time enabled"
        ),
    );
    let group_cycles = counts
        .flexible(STALLS, Event::CPU_CYCLES)
        .map_or((0, 0), |reading| (reading.raw, reading.running));
    checks.check(
        format_args!("spu{spu}_mux_group_cycles"),
        group_cycles.0 == group_cycles.1 && group_cycles.0 == counts.windows[STALLS].cycles,
        format_args!(
            "the stall group's CPU_CYCLES {} = its time running {} = the SPU cycles of its turns {}",
            group_cycles.0, group_cycles.1, counts.windows[STALLS].cycles
        ),
    );
    let memory = counts.raw(MEMORY, Event::MEM_ACCESS);
    let loads_stores =
        counts.raw(MEMORY, Event::LD_RETIRED) + counts.raw(MEMORY, Event::ST_RETIRED);
    let mispredicts = counts.raw(BRANCHES, Event::BR_MIS_PRED);
    let retired = counts.raw(BRANCHES, Event::BR_MIS_PRED_RETIRED);
    checks.check(
        format_args!("spu{spu}_mux_same_group"),
        memory == loads_stores && mispredicts == retired,
        format_args!(
            "within a group, in the same turns: MEM_ACCESS {memory} = LD_RETIRED + ST_RETIRED {loads_stores}, BR_MIS_PRED {mispredicts} = BR_MIS_PRED_RETIRED {retired}"
        ),
    );
}

/// Prints the SPU's top-down level 1 from its own cycle accounting and checks that the four
/// categories add up to its cycles.
pub(super) fn topdown(
    spu: usize,
    fetch: Fetch,
    counts: &SpuCounts,
    stats: &Statistics,
    checks: &mut Checks,
) {
    if fetch == Fetch::None {
        outln!(
            "  Top-down level 1: not available in instruction mode (no pipeline: one cycle per instruction)"
        );
        return;
    }
    let breakdown = stats.topdown();
    outln!(
        "  Top-down level 1 from the SPU's own cycle accounting (docs/pmu.md maps its stall classes):"
    );
    out!("{}", breakdown.shares());
    let cycles = counts.value(Event::CPU_CYCLES);
    checks.check(
        format_args!("spu{spu}_topdown_cycles"),
        breakdown.total() == cycles && cycles == stats.cycles,
        format_args!(
            "retiring {} + bad speculation {} + frontend {} + backend {} = {} = PMU CPU_CYCLES {cycles}",
            breakdown.retiring,
            breakdown.bad_speculation,
            breakdown.frontend_bound,
            breakdown.backend_bound,
            breakdown.total()
        ),
    );
}
