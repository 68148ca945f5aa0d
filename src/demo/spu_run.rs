//! One SPU kernel under its probes: two counted runs (the two PMU event groups), the bare
//! run for the host figures, and the cross-checks between the PMU view and the SPU's own.

use pmprobe::pmu::{EmulatedPmu, Event};
use pmprobe::pmu::{Pmu, Snapshot};
use pmprobe::probe::Listener;
use pmprobe::probe::listeners::MemAccess;
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::pipeline::Statistics;
use pmprobe::spu::probes::{SpuObserver, SpuProbes};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

use pmprobe::rt::semihosting::HostError;
use pmprobe::spu::pipeline::KonataWriter;

use super::checks::Checks;
use super::files::BufferedHostFile;
use super::host::{HostDelta, HostMeter};
use super::kernels::Assembled;
use super::output::{Indented, heading, outln};
use super::plan::{KONATA_FILE, Plan, mode_name};
use super::spu_pmu::{self, Fetch, GROUP_1, GROUP_2, SpuCounts};

/// A kernel that has not stopped after this many cycles is a failure.
const CYCLE_BUDGET: u64 = 2_000_000;

/// Listeners attached to one SPU's first run, besides its PMU.
#[derive(Default)]
pub(super) struct Extras<'l> {
    pub(super) data_access: heapless::Vec<&'l dyn Listener<MemAccess>, 2>,
    pub(super) retired_pc: Option<&'l dyn Listener<u64>>,
    pub(super) cycles: Option<&'l dyn Listener<u64>>,
    /// `--miscount`: disturb the PMU's INST_RETIRED once.
    pub(super) miscount: bool,
}

/// What one SPU's two runs produced.
#[derive(Clone)]
pub struct SpuResult {
    pub(super) counts: SpuCounts,
    /// Host counts of run 1 (probes and listeners attached).
    pub(super) host: Option<HostDelta>,
    /// Host counts of a third run with nothing attached to the probe points.
    pub(super) host_bare: Option<HostDelta>,
    /// Bytes of the Konata log written during run 2, for the plan that asks for one.
    pub(super) konata: Option<Result<usize, HostError>>,
    /// The statistics of run 1.
    pub(super) stats: Statistics,
    /// A digest of the SPU's state after run 1 (local store and registers).
    pub(super) state: u64,
    /// Whether run 1's result matched the Rust replay.
    pub(super) result_ok: bool,
}

/// FNV-1a over the SPU's local store and registers: two runs that end in the same state give the
/// same digest, and any difference in a word changes it.
fn state_digest(spu: &pmprobe::spu::exec::SpuState) -> u64 {
    const LS_BYTES: u32 = 256 * 1024;
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |word: u32| {
        for byte in word.to_be_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for address in (0..LS_BYTES).step_by(16) {
        spu.local_store()
            .load_quadword(address)
            .words()
            .into_iter()
            .for_each(&mut mix);
    }
    for register in 0..128u8 {
        spu.register(register)
            .words()
            .into_iter()
            .for_each(&mut mix);
    }
    hash
}

/// Cycles and instructions of a run to the end.
#[derive(Default)]
struct Totals {
    cycles: u64,
    instructions: u64,
}

pub(super) fn run_spu(
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
    let mut konata = None;
    let mut state = 0;
    let mut result_ok = false;

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
        // The plan's fetch model; the ideal one where the real one is not available.
        real_fetch = plan.mode == Mode::Pipeline
            && plan.fetch == FetchKind::Real
            && unit.set_fetch(FetchKind::Real).is_ok();
        if plan.mode == Mode::Pipeline && !real_fetch {
            let _ = unit.set_fetch(FetchKind::Ideal);
        }
        unit.reset_stats();

        let cpu = EmulatedPmu::neoverse_v1_like();
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
        let probes = SpuProbes::new();
        let observer = match spu_pmu::observer(&cpu, &probes) {
            Ok(observer) => observer,
            Err(e) => {
                checks.check(
                    format_args!("spu{spu}_pmu_wiring"),
                    false,
                    format_args!("{e}"),
                );
                return None;
            }
        };
        let mut wiring = Ok(());
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
                Some(meter) => match super::profile::sampled(plan.mode, || {
                    meter.measure(|| run_to_stop(unit, &observer, &mut prof))
                }) {
                    Ok((outcome, delta)) => {
                        host_delta = Some(delta);
                        outcome
                    }
                    Err(e) => {
                        checks.check(format_args!("host_pmu_read"), false, format_args!("{e}"));
                        return None;
                    }
                },
                None => run_to_stop(unit, &observer, &mut prof),
            }
        } else if plan.konata && plan.mode == Mode::Pipeline {
            let (outcome, written) = run_logging_konata(unit, &observer);
            konata = Some(written);
            outcome
        } else {
            run_to_stop(unit, &observer, &mut Discard)
        };
        if extras.miscount && run == 0 {
            outln!("  --miscount: one INST_RETIRED added to SPU{spu}'s emulated PMU by hand");
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
            state = state_digest(unit.arch());
            let verdict = (plan.kernel.verify)(unit.arch(), program);
            result_ok = verdict.is_ok();
            match verdict {
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
        outln!("  Statistics (spu {spu} stats print, run 1):");
        let _ = unit.print_stats(&mut Indented::new("  : "));
    }
    cross_check(spu, fetch, &counts, &totals, &stats, checks);
    let host_bare = host.and_then(|meter| measure_bare(unit, plan, program, image, meter, checks));
    Some(SpuResult {
        counts,
        host: host_delta,
        host_bare,
        konata,
        stats,
        state,
        result_ok,
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

/// Runs until the SPU stops; prof_cp lines go to `prof`. Never inlined: one copy per
/// observer type, so the bare run's code does not depend on where its caller gets inlined.
#[inline(never)]
fn run_to_stop<W: core::fmt::Write>(
    unit: &mut SpuUnit,
    observer: &impl SpuObserver,
    prof: &mut W,
) -> Result<(StopReason, Totals), RunFailure> {
    let outcome = unit
        .run(CYCLE_BUDGET, observer, prof)
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

/// Runs until the SPU stops, one cycle at a time, writing the pipeline's Kanata log (for
/// the Konata viewer) to [`KONATA_FILE`] after every cycle.
fn run_logging_konata(
    unit: &mut SpuUnit,
    observer: &impl SpuObserver,
) -> (
    Result<(StopReason, Totals), RunFailure>,
    Result<usize, HostError>,
) {
    let mut file = match BufferedHostFile::create(KONATA_FILE) {
        Ok(file) => file,
        Err(e) => return (run_to_stop(unit, observer, &mut Discard), Err(e)),
    };
    let mut writer = KonataWriter::new();
    let mut totals = Totals::default();
    let outcome = loop {
        if totals.cycles >= CYCLE_BUDGET {
            break Err(RunFailure::Budget);
        }
        let step = match unit.run(1, observer, &mut Discard) {
            Ok(step) => step,
            Err(e) => break Err(RunFailure::Model(e)),
        };
        totals.cycles += step.cycles;
        totals.instructions += step.instructions;
        if writer.write_cycle(unit.pipeline(), &mut file).is_err() {
            break Err(RunFailure::Output);
        }
        match step.end {
            RunEnd::CycleLimit => {}
            RunEnd::Stopped(reason) => break Ok((reason, totals)),
            RunEnd::Blocked { channel } => break Err(RunFailure::Blocked(channel)),
        }
    };
    (outcome, file.finish())
}

/// Why a kernel did not run to its `stop`.
enum RunFailure {
    Model(pmprobe::spu::pipeline::ModelError),
    Blocked(u8),
    Budget,
    Output,
}

impl core::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Model(e) => write!(f, "{e}"),
            Self::Blocked(channel) => write!(f, "blocked on channel {channel}"),
            Self::Budget => write!(f, "did not stop within {CYCLE_BUDGET} cycles"),
            Self::Output => write!(f, "writing {KONATA_FILE} failed"),
        }
    }
}
