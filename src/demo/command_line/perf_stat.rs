//! `-e EVENTS`, `-r N`, `-x SEP`: `perf stat` of the demo's measured work on the boot core's
//! real PMU, instead of the demo (as `--list-events` is).
//!
//! The measured work is one run of SPU3's kernel, `demo_saxpy.s` in instruction mode (the
//! demo's SPU3 plan without its listeners): loaded into the SPU, run to its stop, its result
//! checked against Rust's. Each of the `-r` runs counts the `-e` events (perf's syntax:
//! `pmu::catalogue::EventList`, default `cycles,instructions`) with their modifiers' filters,
//! through the PMU multiplexer: each `{...}` group and each lone event is a flexible group,
//! rotated every 4 ms of the generic timer (perf's default multiplexing interval) when they do
//! not all fit. Times are the generic timer's, in nanoseconds. The output is perf stat's
//! (`pmu::write_stat_row`): the table with its header and elapsed-time footer, or with `-x` the
//! CSV lines alone; an event the PMU does not implement is `<not supported>`, as perf prints it.

use pmprobe::pmu::catalogue::{EventList, for_midr};
use pmprobe::pmu::{
    Error, EventFilter, ExceptionLevel, FilterContext, GroupId, GroupKind, Multiplexer, Pmu,
    PmuBackend, RunStats, StatFormat, StatRow, StatValue, SysRegPmu, ticks_to_nanos,
    write_elapsed_runs, write_stat_header, write_stat_row,
};
use pmprobe::rt::console::Console;
use pmprobe::rt::timer;
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

use crate::demo::shared::kernels::{Assembled, IMAGE_BYTES, SAXPY};
use crate::demo::shared::output::outln;

/// The options, for the unknown-argument message.
pub const OPTIONS: &str = "-e EVENTS, -r N, -x SEP (perf stat of SPU3's run)";
/// Events counted without `-e`: what QEMU's PMU implements besides SW_INCR.
pub const DEFAULT_EVENTS: &str = "cycles,instructions";
/// Events an `-e` list may name.
const EVENTS: usize = 16;
/// Longest `-e` list and `-x` separator.
pub type EventsText = heapless::String<256>;
pub type Separator = heapless::String<8>;
/// The most runs `-r` takes (perf's own limit is 100 too).
pub const MAX_RUNS: u32 = 100;
/// The SPU that runs the measured work, and what perf stat's header calls it.
pub const WORK_SPU: usize = 3;
const TARGET: &str = "SPU3 demo_saxpy.s (instruction mode)";
/// SPU cycles between two looks at the timer for a rotation.
const SLICE_CYCLES: u64 = 4096;
/// perf's default multiplexing interval (`perf_event_mux_interval_ms`), in ms.
const ROTATE_EVERY_MS: u64 = 4;
/// A kernel still running after this many cycles is a failure.
const CYCLE_BUDGET: u64 = 2_000_000;

/// What `-e`, `-r` and `-x` asked for.
#[derive(Clone, Debug, Default)]
pub struct StatOptions {
    /// `-e`: the events, perf's syntax; `None`: [`DEFAULT_EVENTS`].
    pub events: Option<EventsText>,
    /// `-r`: runs (1 to [`MAX_RUNS`]); 0 means not given (one run).
    pub repeat: u32,
    /// `-x`: CSV with this separator.
    pub separator: Option<Separator>,
}

/// Per event over the runs: the counts, and the times enabled and running (their means are
/// what the lines show).
#[derive(Clone, Copy, Default)]
struct Tally {
    counts: RunStats,
    enabled: RunStats,
    running: RunStats,
    never_ran: bool,
    unsupported: bool,
}

/// Runs the measured work `-r` times under the `-e` events and prints perf stat's output;
/// the exit status: 0, 2 for an event list this core cannot count, 1 when the work failed.
pub fn run(options: &StatOptions, unit: &mut SpuUnit) -> i32 {
    let text = options.events.as_deref().unwrap_or(DEFAULT_EVENTS);
    let pmu = SysRegPmu::new();
    let core = for_midr(pmu.midr());
    let list = match EventList::<EVENTS>::parse(text, core) {
        Ok(list) => list,
        Err(e) => {
            outln!("perf stat: -e {text}: {e}");
            return 2;
        }
    };
    let context = filter_context(pmu.current_el());
    let mut filters = [EventFilter::NONE; EVENTS];
    for (spec, filter) in list.iter().zip(filters.iter_mut()) {
        match spec.exclude.filter(context) {
            Ok(bits) => *filter = bits,
            Err(e) => {
                outln!("perf stat: -e {}: {e}", spec.name);
                return 2;
            }
        }
    }
    let runs = options.repeat.max(1);
    let mut tallies = [Tally::default(); EVENTS];
    let mut elapsed = RunStats::new();
    // One run that is not measured first: the SPU model keeps state across runs that loading
    // a program does not reset (measured: the first run on a fresh SPU took 44 host
    // instructions fewer than every later one), so each measured run starts from the same
    // state, and under -icount their counts are equal.
    if let Err(e) = warm_up(unit) {
        outln!("perf stat: the measured work failed: {e}");
        return 1;
    }
    for _ in 0..runs {
        match measure(unit, &list, &filters, &mut tallies) {
            Ok(ns) => elapsed.push(ns as f64),
            Err(e) => {
                outln!("perf stat: the measured work failed: {e}");
                return 1;
            }
        }
    }
    print(options, &list, &tallies, &elapsed, runs);
    0
}

/// The running exception level and the levels the core implements (ID_AA64PFR0_EL1).
fn filter_context(el: ExceptionLevel) -> FilterContext {
    use aarch64_cpu::registers::{ID_AA64PFR0_EL1, Readable};
    FilterContext::from_id_aa64pfr0(el, ID_AA64PFR0_EL1.get())
}

/// Why one measured run failed.
enum WorkError {
    Pmu(Error),
    Mux(pmprobe::pmu::MuxError),
    Spu(&'static str),
}

impl core::fmt::Display for WorkError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Pmu(e) => write!(f, "{e}"),
            Self::Mux(e) => write!(f, "{e}"),
            Self::Spu(what) => f.write_str(what),
        }
    }
}

impl From<pmprobe::pmu::MuxError> for WorkError {
    fn from(e: pmprobe::pmu::MuxError) -> Self {
        Self::Mux(e)
    }
}

/// One run: the groups on a freshly reset PMU, the work, the readings added to `tallies`;
/// the run's wall time in nanoseconds.
fn measure(
    unit: &mut SpuUnit,
    list: &EventList<'_, EVENTS>,
    filters: &[EventFilter; EVENTS],
    tallies: &mut [Tally; EVENTS],
) -> Result<u64, WorkError> {
    let mut image = [0u8; IMAGE_BYTES];
    let program = assemble(&mut image)?;
    let mut pmu = Pmu::new(SysRegPmu::new()).map_err(WorkError::Pmu)?;
    let mut mux = Multiplexer::<_, EVENTS, EVENTS>::new(&mut pmu);
    // The multiplexer's slot of each event, in list order (None: not supported).
    let mut slots: [Option<usize>; EVENTS] = [None; EVENTS];
    let mut added = 0;
    for group in 0..list.groups() {
        let mut members: heapless::Vec<(pmprobe::pmu::Event, EventFilter), EVENTS> =
            heapless::Vec::new();
        let mut indices: heapless::Vec<usize, EVENTS> = heapless::Vec::new();
        for (index, spec) in list.iter().enumerate() {
            if usize::from(spec.group) == group {
                let _ = members.push((spec.event, filters[index]));
                let _ = indices.push(index);
            }
        }
        match mux.add_group_filtered(&members, GroupKind::Flexible) {
            Ok(_) => {
                for &index in &indices {
                    slots[index] = Some(added);
                    added += 1;
                }
            }
            // perf stat prints `<not supported>` for what the PMU cannot count, and goes on.
            Err(pmprobe::pmu::MuxError::Pmu(
                Error::EventNotImplemented(_) | Error::EventTooWide { .. },
            )) => {
                for &index in &indices {
                    tallies[index].unsupported = true;
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    prepare(unit, &image[..program.len], program.entry)?;
    let frequency = timer::frequency();
    let rotate_ticks = (frequency * ROTATE_EVERY_MS / 1000).max(1);
    let start = timer::now();
    let mut rotated = start;
    mux.start(0)?;
    let work = run_work(unit, |now| {
        if now.wrapping_sub(rotated) >= rotate_ticks {
            rotated = now;
            mux.rotate(now.wrapping_sub(start))?;
        }
        Ok(())
    });
    let end = timer::now().wrapping_sub(start);
    mux.stop(end)?;
    let readings = mux.read(end)?;
    work?;
    if (SAXPY.verify)(unit.arch(), &program).is_err() {
        return Err(WorkError::Spu("demo_saxpy.s's result differs from Rust's"));
    }
    for (index, tally) in tallies.iter_mut().enumerate().take(list.as_slice().len()) {
        let Some(reading) = slots[index].and_then(|slot| readings.as_slice().get(slot)) else {
            continue;
        };
        tally
            .enabled
            .push(ticks_to_nanos(reading.enabled, frequency) as f64);
        tally
            .running
            .push(ticks_to_nanos(reading.running, frequency) as f64);
        match reading.estimate() {
            Some(count) => tally.counts.push(count as f64),
            None => tally.never_ran = true,
        }
    }
    Ok(ticks_to_nanos(end, frequency))
}

/// The kernel, assembled into `image`.
fn assemble(image: &mut [u8]) -> Result<Assembled, WorkError> {
    SAXPY
        .assemble(image)
        .map_err(|_| WorkError::Spu("demo_saxpy.s does not assemble"))
}

/// The measured work once, not measured.
fn warm_up(unit: &mut SpuUnit) -> Result<(), WorkError> {
    let mut image = [0u8; IMAGE_BYTES];
    let program = assemble(&mut image)?;
    prepare(unit, &image[..program.len], program.entry)?;
    run_work(unit, |_| Ok(()))
}

/// Loads the kernel into a fresh SPU: an empty local store, as `perf stat -r` starts the
/// command afresh each time (with the previous run's local store left in place, the second and
/// later runs took 848 more host instructions than the first).
fn prepare(unit: &mut SpuUnit, image: &[u8], entry: u32) -> Result<(), WorkError> {
    unit.arch_mut().local_store_mut().clear();
    unit.load_program(image, entry)
        .map_err(|_| WorkError::Spu("demo_saxpy.s does not fit the local store"))?;
    unit.set_mode(Mode::Instruction);
    unit.reset_stats();
    Ok(())
}

/// Runs the SPU to its stop in slices, calling `between` with the timer after each slice.
fn run_work(
    unit: &mut SpuUnit,
    mut between: impl FnMut(u64) -> Result<(), pmprobe::pmu::MuxError>,
) -> Result<(), WorkError> {
    let mut cycles = 0;
    loop {
        let slice = unit
            .run(SLICE_CYCLES, &NoProbes, &mut Discard)
            .map_err(|_| WorkError::Spu("the SPU model failed"))?;
        cycles += slice.cycles;
        match slice.end {
            RunEnd::Stopped(StopReason::Stop { .. }) => return Ok(()),
            RunEnd::Stopped(_) => return Err(WorkError::Spu("demo_saxpy.s stopped on a fault")),
            RunEnd::Blocked { .. } => return Err(WorkError::Spu("demo_saxpy.s blocked")),
            RunEnd::CycleLimit if cycles >= CYCLE_BUDGET => {
                return Err(WorkError::Spu("demo_saxpy.s did not stop"));
            }
            RunEnd::CycleLimit => between(timer::now())?,
        }
    }
}

/// Prints perf stat's output for the tallies.
fn print(
    options: &StatOptions,
    list: &EventList<'_, EVENTS>,
    tallies: &[Tally; EVENTS],
    elapsed: &RunStats,
    runs: u32,
) {
    let mut rows: heapless::Vec<StatRow<'_>, EVENTS> = heapless::Vec::new();
    for (spec, tally) in list.iter().zip(tallies) {
        let value = if tally.unsupported {
            StatValue::NotSupported
        } else if tally.never_ran || tally.counts.runs() == 0 {
            StatValue::NotCounted
        } else {
            StatValue::Counted(tally.counts.mean())
        };
        let _ = rows.push(StatRow {
            name: spec.name,
            event: spec.event,
            group: GroupId::new(spec.group),
            value,
            enabled: tally.enabled.mean() as u64,
            running: tally.running.mean() as u64,
            noise: (runs > 1).then(|| tally.counts.noise_percent()),
            context: spec.exclude,
        });
    }
    let format = match &options.separator {
        Some(sep) => StatFormat::Csv(sep.as_str()),
        None => StatFormat::Standard,
    };
    if format == StatFormat::Standard {
        let _ = write_stat_header(&mut Console, TARGET, runs);
    }
    for row in &rows {
        let _ = write_stat_row(&mut Console, format, row, &rows);
        outln!();
    }
    if format == StatFormat::Standard {
        let _ = write_elapsed_runs(&mut Console, elapsed);
    }
}
