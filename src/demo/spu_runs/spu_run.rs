//! One SPU kernel under its probes: one counted run (every event of the SPU's PMU at once,
//! multiplexed), SPU2's Konata log run, the bare run for the host figures, and the
//! cross-checks between the PMU view and the SPU's own.

use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
use pmprobe::probe::Listener;
use pmprobe::probe::listeners::MemAccess;
use pmprobe::rt::semihosting::HostError;
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::pipeline::{FetchKind, Statistics};
use pmprobe::spu::probes::{NoProbes, SpuProbes};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

use super::interval_mode::IntervalMode;
use super::plan::Plan;
use super::run_loops::{Counted, Totals, run_counted, run_logging_konata, run_to_stop};
use super::spu_checks;
use super::spu_pmu::{self, Fetch, SpuCounts, SpuMux};
use crate::demo::command_line::profile;
use crate::demo::shared::checks::Checks;
use crate::demo::shared::host_meter::{HostDelta, HostMeter};
use crate::demo::shared::kernels::Assembled;
use crate::demo::shared::mode_name::mode_name;
use crate::demo::shared::output::{Indented, heading, outln};

/// Listeners attached to one SPU's counted run, besides its PMU.
#[derive(Default)]
pub(super) struct Extras<'l> {
    pub(super) data_access: heapless::Vec<&'l dyn Listener<MemAccess>, 2>,
    pub(super) retired_pc: Option<&'l dyn Listener<u64>>,
    pub(super) cycles: Option<&'l dyn Listener<u64>>,
    /// `--miscount`: disturb the PMU's INST_RETIRED once.
    pub(super) miscount: bool,
    /// `--interval-ms N`: interval readings while the counted run goes.
    pub(super) interval_ms: Option<u32>,
}

/// What one SPU's runs produced.
#[derive(Clone)]
pub struct SpuResult {
    pub counts: SpuCounts,
    /// Host counts of the counted run (probes and listeners attached).
    pub host: Option<HostDelta>,
    /// Host counts of a run with nothing attached to the probe points.
    pub host_bare: Option<HostDelta>,
    /// Bytes of the Konata log, for the plan that asks for one.
    pub konata: Option<Result<usize, HostError>>,
    /// The statistics of the counted run.
    pub stats: Statistics,
    /// A digest of the SPU's state after the counted run (local store and registers).
    pub state: u64,
    /// Whether the counted run's result matched the Rust replay.
    pub result_ok: bool,
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

/// Loads the kernel and sets the plan's mode and fetch model; the fetch model it got, or `None`
/// (with the failed check) when the image does not load.
fn prepare(
    unit: &mut SpuUnit,
    plan: &Plan,
    program: &Assembled,
    image: &[u8],
    checks: &mut Checks,
) -> Option<Fetch> {
    if unit.load_program(image, program.entry).is_err() {
        checks.check(
            format_args!("spu{}_load", plan.spu),
            false,
            format_args!("image too large"),
        );
        return None;
    }
    unit.set_mode(plan.mode);
    // The plan's fetch model; the ideal one where the real one is not available.
    let real_fetch = plan.mode == Mode::Pipeline
        && plan.fetch == FetchKind::Real
        && unit.set_fetch(FetchKind::Real).is_ok();
    if plan.mode == Mode::Pipeline && !real_fetch {
        let _ = unit.set_fetch(FetchKind::Ideal);
    }
    unit.reset_stats();
    Some(match (plan.mode, real_fetch) {
        (Mode::Instruction, _) => Fetch::None,
        (Mode::Pipeline, false) => Fetch::Ideal,
        (Mode::Pipeline, true) => Fetch::Real,
    })
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
    let fetch = prepare(unit, plan, program, image, checks)?;
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = match Pmu::new(&cpu) {
        Ok(pmu) => pmu,
        Err(e) => {
            checks.check(format_args!("spu{spu}_pmu"), false, format_args!("{e}"));
            return None;
        }
    };
    let mut mux = SpuMux::new(&mut pmu);
    let groups = match spu_pmu::add_groups(&mut mux) {
        Ok(groups) => groups,
        Err(e) => {
            checks.check(
                format_args!("spu{spu}_pmu_program"),
                false,
                format_args!("{e}"),
            );
            return None;
        }
    };
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
    for listener in &extras.data_access {
        wiring = wiring.and(probes.data_access.add_object(*listener));
    }
    if let Some(listener) = extras.retired_pc {
        wiring = wiring.and(probes.retired_insts_pc.add_object(listener));
    }
    if let Some(listener) = extras.cycles {
        wiring = wiring.and(probes.cycles.add_object(listener));
    }
    if let Err(e) = wiring {
        checks.check(format_args!("spu{spu}_probes"), false, format_args!("{e}"));
        return None;
    }

    heading(format_args!(
        "SPU{spu}: {} in {} mode ({} fetch) -- {}",
        plan.kernel.file,
        mode_name(plan.mode),
        match fetch {
            Fetch::None => "no",
            Fetch::Real => "real",
            Fetch::Ideal => "ideal",
        },
        plan.kernel.what
    ));
    let mut interval = extras.interval_ms.and_then(|ms| IntervalMode::new(spu, ms));
    if extras.interval_ms.is_some() && interval.is_none() {
        outln!("  interval mode: off for this SPU (the generic timer reports a frequency of 0)");
    }
    let mut prof = Indented::new("  | ");
    let mut counted_run = |mux: &mut SpuMux<'_, '_>| {
        run_counted(unit, &observer, &mut prof, mux, groups, interval.as_mut())
    };
    let mut host_delta = None;
    let outcome = match host.as_deref_mut() {
        Some(meter) => {
            match profile::sampled(plan.mode, || meter.measure(|| counted_run(&mut mux))) {
                Ok((outcome, delta)) => {
                    host_delta = Some(delta);
                    outcome
                }
                Err(e) => {
                    checks.check(format_args!("host_pmu_read"), false, format_args!("{e}"));
                    return None;
                }
            }
        }
        None => counted_run(&mut mux),
    };
    let counted = match outcome {
        Ok(counted) => counted,
        Err(e) => {
            checks.check(format_args!("spu{spu}_run"), false, format_args!("{e}"));
            return None;
        }
    };
    if extras.miscount {
        outln!("  --miscount: one INST_RETIRED added to SPU{spu}'s emulated PMU by hand");
        cpu.count(Event::INST_RETIRED.number(), 1);
    }
    let readings = match mux.stop(counted.totals.cycles).and_then(|()| mux.read(0)) {
        Ok(readings) => readings,
        Err(e) => {
            checks.check(
                format_args!("spu{spu}_pmu_read"),
                false,
                format_args!("{e}"),
            );
            return None;
        }
    };
    if let Some(interval) = interval.as_mut() {
        interval.finish(&readings);
    }
    let stopped = matches!(counted.reason, StopReason::Stop { signal: 0x2000, .. });
    checks.check(
        format_args!("spu{spu}_run_stops"),
        stopped,
        format_args!("{} after {} cycles", counted.reason, counted.totals.cycles),
    );
    let stats = *unit.stats();
    let state = state_digest(unit.arch());
    let verdict = (plan.kernel.verify)(unit.arch(), program);
    let result_ok = verdict.is_ok();
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

    let Counted {
        totals,
        windows,
        whole,
        rotations,
        ..
    } = counted;
    let counts = SpuCounts {
        readings,
        groups,
        windows,
        whole,
        rotations,
    };
    let mut target: heapless::String<48> = heapless::String::new();
    let _ = core::fmt::write(&mut target, format_args!("SPU{spu} {}", plan.kernel.file));
    spu_pmu::print_table(&counts, &target, fetch);
    if plan.mode == Mode::Pipeline {
        outln!("  Statistics (spu {spu} stats print):");
        let _ = unit.print_stats(&mut Indented::new("  : "));
    }
    spu_checks::topdown(spu, fetch, &counts, &stats, checks);
    spu_checks::cross_check(spu, fetch, &counts, &totals, &stats, checks);
    if let Some(interval) = interval.as_ref() {
        interval.report(&counts.readings, checks);
    }
    let konata = (plan.konata && plan.mode == Mode::Pipeline)
        .then(|| log_konata(unit, plan, program, image, &totals, checks))
        .flatten();
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

/// The Konata log: one more run of the kernel, cycle by cycle, with nothing counting (the log
/// needs the pipeline after every cycle, which the counted run does not stop for); it must take
/// the counted run's cycles and instructions exactly.
fn log_konata(
    unit: &mut SpuUnit,
    plan: &Plan,
    program: &Assembled,
    image: &[u8],
    counted: &Totals,
    checks: &mut Checks,
) -> Option<Result<usize, HostError>> {
    prepare(unit, plan, program, image, checks)?;
    let (outcome, written) = run_logging_konata(unit, &NoProbes);
    let spu = plan.spu;
    match outcome {
        Ok((_, totals)) => checks.check(
            format_args!("spu{spu}_konata_run_agrees"),
            totals.cycles == counted.cycles && totals.instructions == counted.instructions,
            format_args!(
                "the log run took {} cycles, {} instructions (counted run: {}, {})",
                totals.cycles, totals.instructions, counted.cycles, counted.instructions
            ),
        ),
        Err(e) => checks.check(
            format_args!("spu{spu}_konata_run"),
            false,
            format_args!("{e}"),
        ),
    }
    Some(written)
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
                format_args!("spu{}_bare_run", plan.spu),
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
