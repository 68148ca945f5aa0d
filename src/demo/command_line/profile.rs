//! `cargo run --release -- --profile`: the demo's SPU runs under the sampling profiler.
//!
//! The demo runs as usual; the profiler samples the interval the host table measures (run 1 of
//! each SPU, with its listeners attached), so the two can be compared. On one core those are
//! the SPU phase's runs; with several cores (the default 4) the host table shows the one-core
//! reference runs, made on the boot core while the other cores are off, so only the boot core
//! samples, and only those runs (see [`sample_host_table_runs`]). Afterwards the firmware
//! writes `pmprobe-profile.pmps` (the samples) and `pmprobe-profile.shares` (each SPU mode's
//! share of the host instructions, with the frame that marks the mode on a call stack); the
//! runner (`qemu/run`) then calls pmprofile, which prints the top-N table, writes
//! `pmprobe-profile.folded`, `pmprobe-profile.svg`, `pmprobe-profile.json` (for the Firefox
//! Profiler) and `pmprobe-profile.perf.data` (for `perf report`), and checks that the sample shares agree.
//! The firmware checks the same agreement by itself with a listener on the sample probe point
//! that counts samples per mode.
//!
//! Options: `--profile`, `--profile-source=auto|pmu|timer` (default auto: the PMU when its
//! overflow interrupt works, the generic timer otherwise), `--profile-event=NAME|0xNN` (PMU
//! event, default inst_retired), `--profile-period=N` or perf's `-c N` (events between samples
//! for the PMU, ticks for the timer; defaults 100 000 events, CNTFRQ / 10 000 ticks), perf's
//! `-F HZ` (the timer every CNTFRQ / HZ ticks).

use core::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

use pmprobe::pmu::Event;
use pmprobe::println;
use pmprobe::probe::Listener;
use pmprobe::rt::profiler::{self, Config, SourceChoice};
use pmprobe::rt::smp::{MAX_CORES, this_core};
use pmprobe::sampling::Sample;
use pmprobe::spu::unit::Mode;

use crate::demo::shared::checks::Checks;
use crate::demo::shared::files::BufferedHostFile;
use crate::demo::shared::host_meter::{HostDelta, PerCycle};
use crate::demo::shared::mode_name::mode_name;
use crate::demo::shared::output::heading;

/// The profile options, for the unknown-argument message.
pub const OPTIONS: &str = "--profile, --profile-source=auto|pmu|timer, \
--profile-event=inst_retired|cpu_cycles|0xNN, --profile-period=N, -c N, -F HZ";
/// The samples, for pmprofile.
pub const PROFILE_FILE: &str = "pmprobe-profile.pmps";
/// The expected share of each mode, for `pmprofile --expect`.
pub const SHARES_FILE: &str = "pmprobe-profile.shares";
/// Largest accepted difference between a mode's share of the samples and its share of the
/// host instructions, in percentage points.
const SHARE_TOLERANCE: f64 = 2.0;

/// Each mode, the index of its counters, and a frame that is on the call stack of every
/// sample taken while an SPU runs in that mode: the window that [`sampled`] opens for it, so
/// that pmprofile counts the same instructions as the host figures (the whole run, the
/// multiplexer's rotation between slices included, not only the model's own frames).
const MODES: [(Mode, &str); 2] = [
    (
        Mode::Pipeline,
        "pmprobe::demo::command_line::profile::pipeline_window",
    ),
    (
        Mode::Instruction,
        "pmprobe::demo::command_line::profile::instruction_window",
    ),
];

/// Runs `run` under a frame of its own that names pipeline mode on every sample's stack.
#[inline(never)]
fn pipeline_window<T>(run: impl FnOnce() -> T) -> T {
    let result = run();
    // Work after the call keeps it from being a tail call, which would drop this frame; a
    // value of its own keeps the linker from folding it with the other window, which would
    // give both one name.
    core::hint::black_box((&result, Mode::Pipeline));
    result
}

/// Runs `run` under a frame of its own that names instruction mode on every sample's stack.
#[inline(never)]
fn instruction_window<T>(run: impl FnOnce() -> T) -> T {
    let result = run();
    core::hint::black_box((&result, Mode::Instruction));
    result
}

/// `--profile` and its settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfileOptions {
    /// What triggers samples.
    pub source: SourceChoice,
    /// The PMU event.
    pub event: Event,
    /// Events (PMU) or ticks (timer) between samples (`--profile-period=N`, perf's `-c N`);
    /// `None`: the profiler's defaults.
    pub period: Option<u64>,
    /// Samples per second (perf's `-F HZ`): the timer source every CNTFRQ / HZ ticks.
    pub frequency: Option<u64>,
}

impl Default for ProfileOptions {
    fn default() -> Self {
        Self {
            source: SourceChoice::Auto,
            event: Event::INST_RETIRED,
            period: None,
            frequency: None,
        }
    }
}

/// Takes `word` if it is a profile option (`--profile-*` turns profiling on too); `false` for
/// any other word and for a profile option with a bad value.
pub fn parse(word: &str, profile: &mut Option<ProfileOptions>) -> bool {
    let (name, value) = word.split_once('=').unwrap_or((word, ""));
    let mut options = profile.unwrap_or_default();
    let understood = match (name, value) {
        ("--profile", "") => true,
        ("--profile-source", "auto") => set(&mut options.source, SourceChoice::Auto),
        ("--profile-source", "pmu") => set(&mut options.source, SourceChoice::Pmu),
        ("--profile-source", "timer") => set(&mut options.source, SourceChoice::Timer),
        ("--profile-event", "inst_retired") => set(&mut options.event, Event::INST_RETIRED),
        ("--profile-event", "cpu_cycles") => set(&mut options.event, Event::CPU_CYCLES),
        ("--profile-event", hex) => match hex.strip_prefix("0x") {
            Some(digits) => u16::from_str_radix(digits, 16)
                .is_ok_and(|number| set(&mut options.event, Event::raw(number))),
            None => false,
        },
        ("--profile-period", number) => number
            .parse::<u64>()
            .is_ok_and(|period| period > 0 && set(&mut options.period, Some(period))),
        _ => false,
    };
    if understood {
        *profile = Some(options);
    }
    understood
}

fn set<T>(field: &mut T, value: T) -> bool {
    *field = value;
    true
}

/// Whether `--profile` is on.
static PROFILING: AtomicBool = AtomicBool::new(false);
/// Whether the runs starting now are the ones the host table shows (set by the scenario).
static HOST_TABLE_RUNS: AtomicBool = AtomicBool::new(false);
/// The mode of the SPU running in each core's sampled window: 0 none, else index in [`MODES`]
/// + 1 (read by the core's own sampling interrupt).
static CURRENT_MODE: [AtomicU8; MAX_CORES] = [const { AtomicU8::new(0) }; MAX_CORES];
/// Host instructions measured in the sampled windows, per mode.
static HOST_INSTRUCTIONS: [AtomicU64; 2] = [const { AtomicU64::new(0) }; 2];

/// Counts samples per mode, from the sample probe point.
struct ModeTally {
    samples: [AtomicU64; 2],
}

impl Listener<Sample> for ModeTally {
    fn notify(&self, _sample: &Sample) {
        let mode = CURRENT_MODE
            .get(this_core().index())
            .map_or(0, |mode| usize::from(mode.load(Ordering::Relaxed)));
        if let Some(count) = mode.checked_sub(1).and_then(|i| self.samples.get(i)) {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }
}

static TALLY: ModeTally = ModeTally {
    samples: [const { AtomicU64::new(0) }; 2],
};

fn mode_index(mode: Mode) -> usize {
    MODES.iter().position(|(m, _)| *m == mode).unwrap_or(0)
}

/// Tells which runs to sample: `true` from the start of the runs whose host figures the host
/// table shows (the SPU phase on one core; with several cores, the one-core reference runs on
/// the boot core, the other cores off), `false` after them. Runs outside (the phase spread over
/// several cores) are not sampled: their host figures are not in the table, and under `-icount`
/// each core's counter also counts the other cores' work.
pub fn sample_host_table_runs(on: bool) {
    HOST_TABLE_RUNS.store(on, Ordering::Release);
}

/// Runs `measured` (a host-meter measurement of one SPU run) with this core sampling when
/// `--profile` is on and the run is one of the host table's (see [`sample_host_table_runs`]),
/// and adds its host instructions to its mode's total.
///
/// The window unmasks IRQs on this core (sampling needs them) and masks them again after, if
/// they were masked before: no critical section encloses an SPU run (the SPUs and their
/// listeners are behind [`CoreLock`](crate::demo::shared::core_lock::CoreLock)s, which leave interrupts as
/// they are).
pub fn sampled<R, E>(
    mode: Mode,
    measured: impl FnOnce() -> Result<(R, HostDelta), E>,
) -> Result<(R, HostDelta), E> {
    if !PROFILING.load(Ordering::Relaxed) || !HOST_TABLE_RUNS.load(Ordering::Acquire) {
        return measured();
    }
    let index = mode_index(mode);
    let current = CURRENT_MODE.get(this_core().index());
    if let Some(current) = current {
        current.store(index as u8 + 1, Ordering::Relaxed);
    }
    // Each core's sampler has its own probe point: the tally listens on every core's.
    let _ = profiler::with_sampler(|sampler| {
        if !sampler.point().has_listeners() {
            let _ = sampler.point().add_object(&TALLY);
        }
    });
    let was_masked = pmprobe::arch::interrupts::irq_masked();
    // SAFETY: an SPU run's measurement is not inside a critical section (see above); the
    // profiler's handlers are installed by `start`, before any window opens.
    unsafe { pmprobe::rt::irq::unmask() };
    let sampling = profiler::resume().is_ok();
    let result = match mode {
        Mode::Pipeline => pipeline_window(measured),
        _ => instruction_window(measured),
    };
    if sampling {
        let _ = profiler::pause();
    }
    if was_masked {
        pmprobe::rt::irq::mask();
    }
    if let Some(current) = current {
        current.store(0, Ordering::Relaxed);
    }
    if let (Ok((_, delta)), Some(total)) = (&result, HOST_INSTRUCTIONS.get(index)) {
        total.fetch_add(delta.instructions, Ordering::Relaxed);
    }
    result
}

/// `-F HZ` as the timer's period, CNTFRQ / HZ ticks (`None` without `-F`). As with perf
/// record, `-F` and `-c` exclude each other; a frequency is a clock's, so `-F` takes the timer
/// source and refuses `--profile-source=pmu` (whose samples come every `-c N` events).
fn timer_frequency(profile: &ProfileOptions) -> Result<Option<u64>, &'static str> {
    let Some(hz) = profile.frequency else {
        return Ok(None);
    };
    if profile.period.is_some() {
        return Err("-F HZ and -c N (or --profile-period) exclude each other, as in perf record");
    }
    if profile.source == SourceChoice::Pmu {
        return Err("-F HZ samples the generic timer; the PMU source samples every -c N events");
    }
    match pmprobe::rt::timer::frequency() / hz {
        0 => Err("-F HZ is above the generic timer's frequency"),
        ticks => Ok(Some(ticks)),
    }
}

/// Starts the profiler before the demo's SPU runs (each sampled window then arms it on its
/// core); `false` when it could not start (the failed check says why), and the demo runs
/// unsampled. After the runs, [`finish`].
pub fn start(profile: &ProfileOptions, checks: &mut Checks) -> bool {
    heading(format_args!(
        "Profiler: the SPU runs sampled (the interval of the host table below)"
    ));
    // SAFETY: called from main, outside any critical section; the profiler's interrupt
    // handlers are installed by `start` before the sources are armed.
    unsafe { pmprobe::rt::irq::unmask() };
    let (source, timer_period) = match timer_frequency(profile) {
        Ok(Some(ticks)) => (SourceChoice::Timer, Some(ticks)),
        Ok(None) => (profile.source, profile.period),
        Err(why) => {
            checks.check(
                format_args!("profiler_options"),
                false,
                format_args!("{why}"),
            );
            return false;
        }
    };
    let config = Config {
        source,
        event: profile.event,
        pmu_period: profile.period.unwrap_or(profiler::DEFAULT_PMU_PERIOD),
        timer_period,
        ..Config::default()
    };
    let started = match profiler::start(&config) {
        Ok(started) => started,
        Err(e) => {
            checks.check(format_args!("profiler_started"), false, format_args!("{e}"));
            return false;
        }
    };
    match started.source {
        pmprobe::sampling::SampleSource::PmuOverflow => println!(
            "  source: PMU overflow, event {:#06x} every {} events",
            started.event, started.period
        ),
        pmprobe::sampling::SampleSource::GenericTimer => println!(
            "  source: generic timer (virtual), every {} ticks of {} Hz",
            started.period,
            pmprobe::rt::timer::frequency()
        ),
    }
    if let Some(problem) = started.pmu_problem {
        println!("  PMU: {problem}");
    }
    let attached = profiler::with_sampler(|sampler| sampler.point().add_object(&TALLY).is_ok());
    checks.check(
        format_args!("profile_listener"),
        attached == Ok(true),
        format_args!("a listener on the sample probe point counts samples per SPU mode"),
    );
    // Each sampled window unmasks IRQs on its own core; outside them the demo runs as usual.
    pmprobe::rt::irq::mask();
    PROFILING.store(true, Ordering::Relaxed);
    true
}

/// After the demo's SPU runs: stops sampling, prints the samples per mode against the host
/// table and writes the profile's files.
/// `no_icount`: the host's instruction counts are not exact, so the share checks are skipped.
pub fn finish(checks: &mut Checks, no_icount: bool) {
    PROFILING.store(false, Ordering::Relaxed);
    report(checks, no_icount);
}

/// Share of `part` in `whole`, in percent.
fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn report(checks: &mut Checks, no_icount: bool) {
    heading(format_args!(
        "Profile of the SPU runs: samples per SPU mode vs the host table"
    ));
    let summary = profiler::summary();
    println!(
        "  {} samples ({} dropped), {} bytes encoded ({} per sample); skid min {}, mean {}, max {}",
        summary.samples,
        summary.dropped,
        summary.bytes,
        PerCycle(summary.bytes as u64, summary.samples),
        summary.skid.min(),
        summary.skid.mean(),
        summary.skid.max()
    );
    let instructions = HOST_INSTRUCTIONS
        .each_ref()
        .map(|count| count.load(Ordering::Relaxed));
    let samples = TALLY
        .samples
        .each_ref()
        .map(|count| count.load(Ordering::Relaxed));
    let (all_instructions, all_samples) = (instructions.iter().sum(), samples.iter().sum());
    println!(
        "  {:<12} {:>16} {:>8} {:>9} {:>8}",
        "mode", "host insts", "share", "samples", "share"
    );
    let mut shares = [(0.0, 0.0); 2];
    for (i, (mode, _)) in MODES.iter().enumerate() {
        shares[i] = (
            percent(instructions[i], all_instructions),
            percent(samples[i], all_samples),
        );
        println!(
            "  {:<12} {:>16} {:>7.2}% {:>9} {:>7.2}%",
            mode_name(*mode),
            instructions[i],
            shares[i].0,
            samples[i],
            shares[i].1
        );
    }
    checks.check(
        format_args!("profile_samples_taken"),
        all_samples > 0 && all_samples == summary.samples,
        format_args!(
            "{all_samples} samples counted by the listener, {} kept by the profiler",
            summary.samples
        ),
    );
    checks.equal(
        format_args!("profile_no_drops"),
        "samples the buffer could not keep",
        summary.dropped,
        0,
    );
    for (i, (mode, _)) in MODES.iter().enumerate() {
        let (host, sampled) = shares[i];
        if no_icount {
            checks.skip(
                format_args!("profile_share_{}", mode_name(*mode)),
                format_args!(
                    "compares the samples with exact host instruction counts: needs -icount"
                ),
            );
            continue;
        }
        checks.check(
            format_args!("profile_share_{}", mode_name(*mode)),
            (host - sampled).abs() <= SHARE_TOLERANCE,
            format_args!(
                "{sampled:.2}% of the samples vs {host:.2}% of the host instructions (+- {SHARE_TOLERANCE})"
            ),
        );
    }
    checks.check(
        format_args!("profile_pipeline_larger_share"),
        samples[0] > samples[1],
        format_args!(
            "pipeline mode: {} samples, instruction mode: {}",
            samples[0], samples[1]
        ),
    );
    write_files(&shares, checks);
}

fn write_files(shares: &[(f64, f64); 2], checks: &mut Checks) {
    match profiler::write(PROFILE_FILE) {
        Ok(summary) => checks.check(
            format_args!("profile_written"),
            true,
            format_args!("{PROFILE_FILE}: {} samples", summary.samples),
        ),
        Err(e) => checks.check(format_args!("profile_written"), false, format_args!("{e}")),
    }
    let written = BufferedHostFile::create(SHARES_FILE).and_then(|mut file| {
        use core::fmt::Write as _;
        let _ = writeln!(
            file,
            "# mode, frame on its stacks, share of the host instructions (%), tolerance (points)"
        );
        for (i, (mode, frame)) in MODES.iter().enumerate() {
            let _ = writeln!(
                file,
                "{} {frame} {:.2} {SHARE_TOLERANCE}",
                mode_name(*mode),
                shares[i].0
            );
        }
        file.finish()
    });
    checks.check(
        format_args!("profile_shares_written"),
        written.is_ok(),
        format_args!("{SHARES_FILE}"),
    );
    println!(
        "  qemu/run symbolizes {PROFILE_FILE} with pmprofile after QEMU exits: top-N table, \
pmprobe-profile.folded, pmprobe-profile.svg, pmprobe-profile.json, pmprobe-profile.perf.data, \
share checks"
    );
}
