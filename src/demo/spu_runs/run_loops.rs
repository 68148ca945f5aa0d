//! The loops that run one SPU kernel to its stop: plainly (the bare run), one cycle at a time
//! writing the Konata log, and counted, in slices of [`ROTATION_CYCLES`] between which the
//! SPU's multiplexer rotates (and interval mode takes its readings).

use pmprobe::pmu::{GroupId, MuxError};
use pmprobe::rt::semihosting::HostError;
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::pipeline::{KonataWriter, RunEnd};
use pmprobe::spu::probes::SpuObserver;
use pmprobe::spu::unit::{Discard, SpuUnit};

use super::interval_mode::IntervalMode;
use super::plan::KONATA_FILE;
use super::spu_pmu::{Exact, ROTATION_CYCLES, SpuMux};
use crate::demo::shared::files::BufferedHostFile;

/// A kernel that has not stopped after this many cycles is a failure.
pub const CYCLE_BUDGET: u64 = 2_000_000;

/// Cycles and instructions of a run to the end.
#[derive(Clone, Copy, Default)]
pub struct Totals {
    pub cycles: u64,
    pub instructions: u64,
}

/// Why a kernel did not run to its `stop`.
pub enum RunFailure {
    Model(pmprobe::spu::pipeline::ModelError),
    Blocked(u8),
    Budget,
    Output,
    Pmu(MuxError),
}

impl From<MuxError> for RunFailure {
    fn from(e: MuxError) -> Self {
        Self::Pmu(e)
    }
}

impl core::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Model(e) => write!(f, "{e}"),
            Self::Blocked(channel) => write!(f, "blocked on channel {channel}"),
            Self::Budget => write!(f, "did not stop within {CYCLE_BUDGET} cycles"),
            Self::Output => write!(f, "writing {KONATA_FILE} failed"),
            Self::Pmu(e) => write!(f, "multiplexed PMU: {e}"),
        }
    }
}

/// Runs until the SPU stops; prof_cp lines go to `prof`. Never inlined: one copy per
/// observer type, so the bare run's code does not depend on where its caller gets inlined.
#[inline(never)]
pub fn run_to_stop<W: core::fmt::Write>(
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

/// What the counted run produced besides the multiplexer's readings.
pub struct Counted {
    pub reason: StopReason,
    pub totals: Totals,
    /// Per flexible group, the SPU's exact counts over the slices it was on the counters.
    pub windows: [Exact; 3],
    /// The SPU's exact counts over the whole run.
    pub whole: Exact,
    pub rotations: u64,
}

/// Runs until the SPU stops, [`ROTATION_CYCLES`] at a time, rotating `mux` (clocked by the
/// SPU's cycles) after each slice and crediting the SPU's statistics of the slice to the
/// flexible groups that were on. With `interval`, a reading is taken whenever one is due.
/// The multiplexer is left running: the caller stops it.
#[inline(never)]
pub fn run_counted<W: core::fmt::Write>(
    unit: &mut SpuUnit,
    observer: &impl SpuObserver,
    prof: &mut W,
    mux: &mut SpuMux<'_, '_>,
    groups: [GroupId; 3],
    mut interval: Option<&mut IntervalMode>,
) -> Result<Counted, RunFailure> {
    let mut totals = Totals::default();
    let mut windows = [Exact::default(); 3];
    let mut before = Exact::of(unit.stats(), 0);
    let mut rotations = 0;
    mux.start(0)?;
    let reason = loop {
        if totals.cycles >= CYCLE_BUDGET {
            return Err(RunFailure::Budget);
        }
        let slice = unit
            .run(ROTATION_CYCLES, observer, prof)
            .map_err(RunFailure::Model)?;
        totals.cycles += slice.cycles;
        totals.instructions += slice.instructions;
        let now = Exact::of(unit.stats(), totals.cycles);
        let delta = now.since(&before);
        for (window, group) in windows.iter_mut().zip(groups) {
            if mux.is_scheduled(group) {
                window.add(&delta);
            }
        }
        before = now;
        match slice.end {
            RunEnd::CycleLimit => {}
            RunEnd::Stopped(reason) => break reason,
            RunEnd::Blocked { channel } => return Err(RunFailure::Blocked(channel)),
        }
        mux.rotate(totals.cycles)?;
        rotations += 1;
        if let Some(interval) = interval.as_deref_mut() {
            interval.poll(mux, totals.cycles)?;
        }
    };
    Ok(Counted {
        reason,
        totals,
        windows,
        whole: before,
        rotations,
    })
}

/// Runs until the SPU stops, one cycle at a time, writing the pipeline's Kanata log (for
/// the Konata viewer) to [`KONATA_FILE`] after every cycle.
pub fn run_logging_konata(
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
