//! perf stat over repeated runs (`-r N`: the mean and `+- x.xx%`) and in its CSV layout
//! (`-x SEP`), for events named as the user wrote them.
//!
//! The statistics are perf's (`tools/perf/util/stat.c`): Welford's running mean and sum of
//! squares (`update_stats`), the standard deviation *of the mean*, `sqrt(M2 / (n - 1) / n)`
//! (`stddev_stats`), and the noise printed as that deviation in percent of the mean
//! (`rel_stddev_stats`). The layouts are `stat-display.c`'s:
//!
//! - standard: the count in 18 columns (`"%'18.0f "`, the mean rounded half to even as printf
//!   does), the unit column (empty for PMU events, 4 wide) and a space, the name in 32, the
//!   metric area of 38, then `"  ( +-%6.2f%% )"` when the noise is not 0 and `"  (%.2f%%)"`
//!   of the time running when the event did not run all the time;
//! - CSV: `value SEP unit SEP name`, then with `-r` `SEP noise%` (`"%.2f%%"`, always), then
//!   `SEP run SEP percent` (the time running in ns; `100 * run / ena` in integer arithmetic, as
//!   perf computes it from two `u64`, printed `"%.2f"`, 100 when the event ran all the time),
//!   then `SEP metric SEP metric-unit` (both empty without a metric). No header, no footer.
#![forbid(unsafe_code)]

use core::fmt;

use super::event::Event;
use super::filter::Exclude;
use super::metrics::write_grouped;
use super::multiplex::GroupId;
use super::stat_display::{
    NOT_COUNTED, Shadow, shadow_of, shadow_value, write_metric, write_unit_and_name,
};

/// perf's text for an event the PMU cannot count.
pub const NOT_SUPPORTED: &str = "<not supported>";

/// perf's statistics of one value over the runs (`struct stats`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunStats {
    n: u32,
    mean: f64,
    m2: f64,
}

impl RunStats {
    /// No run yet.
    pub const fn new() -> Self {
        Self {
            n: 0,
            mean: 0.0,
            m2: 0.0,
        }
    }
    /// Adds one run's value (perf's `update_stats`).
    pub fn push(&mut self, value: f64) {
        self.n = self.n.saturating_add(1);
        let delta = value - self.mean;
        self.mean += delta / f64::from(self.n);
        self.m2 += delta * (value - self.mean);
    }
    /// Runs so far.
    pub const fn runs(&self) -> u32 {
        self.n
    }
    /// The mean (0 before the first run).
    pub const fn mean(&self) -> f64 {
        self.mean
    }
    /// The standard deviation of the mean, `sqrt(M2 / (n - 1) / n)`; 0 below two runs
    /// (perf's `stddev_stats`).
    pub fn stddev_of_mean(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = f64::from(self.n);
        libm::sqrt(self.m2 / (n - 1.0) / n)
    }
    /// The noise perf prints after `+-`: the deviation of the mean in percent of the mean (0
    /// for a mean of 0).
    pub fn noise_percent(&self) -> f64 {
        if self.mean == 0.0 {
            0.0
        } else {
            100.0 * self.stddev_of_mean() / self.mean
        }
    }
}

/// What a stat line shows for its count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StatValue {
    /// The count (the mean over the runs, scaled when the event was multiplexed).
    Counted(f64),
    /// The event never ran on a counter: `<not counted>`.
    NotCounted,
    /// The PMU cannot count the event: `<not supported>`.
    NotSupported,
}

/// One line of perf stat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StatRow<'a> {
    /// The event as the user wrote it (`instructions:u`).
    pub name: &'a str,
    /// The PMU event (for the metric).
    pub event: Event,
    /// Its group (a metric divides by its own group's count when it can).
    pub group: GroupId,
    /// The count.
    pub value: StatValue,
    /// Time enabled, in nanoseconds.
    pub enabled: u64,
    /// Time running on a counter, in nanoseconds.
    pub running: u64,
    /// With `-r N` (N > 1), the noise in percent ([`RunStats::noise_percent`]).
    pub noise: Option<f64>,
    /// What its modifiers exclude: a metric divides only by a count of the same context
    /// (perf's `evsel_context`: the same user, kernel, hypervisor, host and idle exclusions),
    /// so `instructions:u` gets no IPC from an unfiltered `cycles`.
    pub context: Exclude,
}

/// perf stat's two text layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatFormat<'s> {
    /// The table (`perf stat`).
    Standard,
    /// Separated values (`perf stat -x SEP`).
    Csv(&'s str),
}

/// The metric of `row` among `all` (perf's shadow metrics for the generic events: IPC, miss
/// and stall shares): the denominator is a count of the same context, from the row's own group
/// when it has one.
fn metric(row: &StatRow<'_>, all: &[StatRow<'_>]) -> Option<Shadow> {
    let StatValue::Counted(numerator) = row.value else {
        return None;
    };
    let (denominator, percent, unit) = shadow_of(row.event)?;
    let same_context = |other: &StatRow<'_>| {
        let (a, b) = (row.context, other.context);
        (a.user, a.kernel, a.hv, a.host, a.idle) == (b.user, b.kernel, b.hv, b.host, b.idle)
    };
    let counted = |other: &&StatRow<'_>| {
        other.event == denominator
            && same_context(other)
            && matches!(other.value, StatValue::Counted(_))
    };
    let other = all
        .iter()
        .filter(counted)
        .find(|other| other.group == row.group)
        .or_else(|| all.iter().find(counted))?;
    let StatValue::Counted(total) = other.value else {
        return None;
    };
    shadow_value(row.event, numerator, total, percent, unit)
}

/// A count as printf's `%.0f` prints it: rounded half to even, and not below 0.
fn rounded(value: f64) -> u64 {
    libm::rint(value.max(0.0)) as u64
}

/// Writes one line of perf stat (no newline) for `row`, its metric computed among `all`.
///
/// ```
/// use pmprobe::pmu::{Event, Exclude, GroupId, StatFormat, StatRow, StatValue, write_stat_row};
/// let insts = StatRow {
///     name: "instructions:u", event: Event::INST_RETIRED, group: GroupId::new(0),
///     value: StatValue::Counted(0.0), enabled: 5_000, running: 5_000, noise: Some(0.0),
///     context: Exclude::PERF_DEFAULT,
/// };
/// let mut csv = heapless::String::<96>::new();
/// write_stat_row(&mut csv, StatFormat::Csv(","), &insts, &[insts])?;
/// assert_eq!(csv, "0,,instructions:u,0.00%,5000,100.00,,");
/// # Ok::<(), core::fmt::Error>(())
/// ```
pub fn write_stat_row<W: fmt::Write>(
    w: &mut W,
    format: StatFormat<'_>,
    row: &StatRow<'_>,
    all: &[StatRow<'_>],
) -> fmt::Result {
    let shadow = metric(row, all);
    match format {
        StatFormat::Standard => {
            match row.value {
                StatValue::Counted(value) => write_grouped(w, rounded(value), 18)?,
                StatValue::NotCounted => write!(w, "{NOT_COUNTED:>18}")?,
                StatValue::NotSupported => write!(w, "{NOT_SUPPORTED:>18}")?,
            }
            write_unit_and_name(w, row.name)?;
            write_metric(w, shadow)?;
            if let Some(noise) = row.noise.filter(|&noise| noise != 0.0) {
                write!(w, "  ( +-{noise:6.2}% )")?;
            }
            if row.running != row.enabled {
                let share = 100.0 * row.running as f64 / row.enabled as f64;
                write!(w, "  ({share:.2}%)")?;
            }
            Ok(())
        }
        StatFormat::Csv(sep) => {
            match row.value {
                StatValue::Counted(value) => write!(w, "{}", rounded(value))?,
                StatValue::NotCounted => w.write_str(NOT_COUNTED)?,
                StatValue::NotSupported => w.write_str(NOT_SUPPORTED)?,
            }
            write!(w, "{sep}{sep}{}", row.name)?;
            if let Some(noise) = row.noise {
                write!(w, "{sep}{noise:.2}%")?;
            }
            let percent = if row.running == row.enabled || row.enabled == 0 {
                100
            } else {
                u128::from(row.running) * 100 / u128::from(row.enabled)
            };
            write!(w, "{sep}{}{sep}{percent}.00", row.running)?;
            match shadow {
                Some(shadow) => write!(w, "{sep}{:.2}{sep}{}", shadow.value, shadow.unit),
                None => write!(w, "{sep}{sep}"),
            }
        }
    }
}

/// Writes perf stat's header (standard layout only; CSV has none):
/// ` Performance counter stats for 'TARGET'` and ` (N runs)` when N > 1, between empty lines.
pub fn write_stat_header<W: fmt::Write>(w: &mut W, target: &str, runs: u32) -> fmt::Result {
    write!(w, "\n Performance counter stats for '{target}'")?;
    if runs > 1 {
        write!(w, " ({runs} runs)")?;
    }
    w.write_str(":\n\n")
}

/// Writes perf stat's footer for `elapsed`, the runs' wall times in nanoseconds (standard
/// layout only): one run, ` %17.9f seconds time elapsed`; several, the mean and the deviation
/// of the mean, ` %17.*f +- %.*f seconds time elapsed` with two more decimals than the
/// deviation's first significant digit (perf's `get_precision`; nine for a deviation of 0),
/// then `  ( +-%6.2f%% )` when the noise is not 0.
///
/// ```
/// use pmprobe::pmu::{RunStats, write_elapsed_runs};
/// let mut elapsed = RunStats::new();
/// for ns in [1_000_000.0, 1_002_000.0, 998_000.0] { elapsed.push(ns); }
/// let mut out = heapless::String::<96>::new();
/// write_elapsed_runs(&mut out, &elapsed)?;
/// // deviation of the mean: sqrt(8e6 / 2 / 3) ns = 0.0000011547 s: 6 + 2 decimals.
/// assert_eq!(out, "\n        0.00100000 +- 0.00000115 seconds time elapsed  ( +-  0.12% )\n\n");
/// # Ok::<(), core::fmt::Error>(())
/// ```
pub fn write_elapsed_runs<W: fmt::Write>(w: &mut W, elapsed: &RunStats) -> fmt::Result {
    let mean = elapsed.mean() / 1e9;
    if elapsed.runs() < 2 {
        return write!(w, "\n {mean:17.9} seconds time elapsed\n\n");
    }
    let deviation = elapsed.stddev_of_mean() / 1e9;
    let precision = elapsed_precision(deviation);
    write!(
        w,
        "\n {mean:17.precision$} +- {deviation:.precision$} seconds time elapsed"
    )?;
    let noise = elapsed.noise_percent();
    if noise != 0.0 {
        write!(w, "  ( +-{noise:6.2}% )")?;
    }
    w.write_str("\n\n")
}

/// The decimals of the elapsed time: perf's `get_precision(deviation) + 2`, where
/// `get_precision` is 0 above 1, else `lround(ceil(-log10(x)))`. For a deviation of 0 (runs of
/// equal length, as under `-icount`) that is `lround` of infinity, which C leaves undefined:
/// nine decimals then, as perf prints a single run's time.
fn elapsed_precision(deviation: f64) -> usize {
    if deviation > 1.0 {
        return 2;
    }
    let digits = libm::ceil(-libm::log10(deviation));
    if digits.is_finite() && digits >= 0.0 {
        digits as usize + 2
    } else {
        9
    }
}
