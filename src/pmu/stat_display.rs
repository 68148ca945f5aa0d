//! perf stat's standard output for multiplexed readings: the scaled count, the event name,
//! the derived metric after `#`, and the share of the time the event ran, `(xx.xx%)`;
//! `<not counted>` for an event that never ran. Also the lines of interval mode (`-I`).
//!
//! The layout is perf's `stat-display.c` (Linux 6.x): counts right-aligned in 18 columns with
//! thousands separators and a space, the unit column (empty for PMU events, 4 wide, and a
//! space), the name left-aligned in 32, the metric area 38 wide
//! (` # `, the value, a space, the unit padded), then `  (%.2f%%)` when the event ran less
//! than the whole time. The metrics are perf's `stat-shadow.c` ones for the generic hardware
//! events, under the events Linux's arm_pmuv3 maps them to (`armv8_pmuv3_perf_map`).
#![forbid(unsafe_code)]

use core::fmt;

use super::event::Event;
use super::metrics::write_grouped;
use super::reading::EventReading;

/// Columns of the count (perf's `COUNTS_LEN`).
const COUNTS_LEN: usize = 18;
/// Columns of the event name (`EVNAME_LEN`).
const EVNAME_LEN: usize = 32;
/// Columns of the metric area (`METRIC_LEN`).
const METRIC_LEN: usize = 38;
/// Columns of the time in interval mode, `#` included (`INTERVAL_LEN`).
const INTERVAL_LEN: usize = 16;
/// Columns of the per-CPU column in interval mode (`aggr_header_lens[AGGR_NONE]`).
const PER_UNIT_LEN: usize = 6;
/// Width of perf's unit column (`unit_width`, `strlen("unit")`).
const UNIT_WIDTH: usize = 4;
/// perf's text for an event that never ran.
pub const NOT_COUNTED: &str = "<not counted>";

/// A metric printed after an event's count, as perf's shadow stats do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Shadow {
    pub(super) value: f64,
    /// `true`: `%7.2f%%`; `false`: `%7.2f ` (a ratio).
    pub(super) percent: bool,
    pub(super) unit: &'static str,
}

/// The count `event` divides by for its metric, and the metric's unit, as perf's
/// `stat-shadow.c` has them for the generic events: instructions / cycles "insn per cycle",
/// branch-misses / branches "of all branches", stalled-cycles-{frontend,backend} / cycles
/// "{frontend,backend} cycles idle", cache-misses / cache-references "of all cache refs".
pub(super) fn shadow_of(event: Event) -> Option<(Event, bool, &'static str)> {
    Some(match event {
        Event::INST_RETIRED => (Event::CPU_CYCLES, false, "insn per cycle"),
        Event::BR_MIS_PRED | Event::BR_MIS_PRED_RETIRED => {
            (Event::BR_RETIRED, true, "of all branches")
        }
        Event::STALL_FRONTEND => (Event::CPU_CYCLES, true, "frontend cycles idle"),
        Event::STALL_BACKEND => (Event::CPU_CYCLES, true, "backend cycles idle"),
        Event::L1D_CACHE_REFILL => (Event::L1D_CACHE, true, "of all cache refs"),
        _ => return None,
    })
}

/// The metric of `reading` among `all`. The denominator comes from the reading's own group
/// when the group has it (the two counts then cover the same intervals, and their raw counts
/// are divided), else from the first reading of that event (estimates divided, as perf does).
/// perf prints a stall share only when it is not 0, the other metrics whenever the
/// denominator is (an IPC needs cycles that are not 0).
fn shadow(reading: &EventReading, all: &[EventReading]) -> Option<Shadow> {
    let (denominator, percent, unit) = shadow_of(reading.event)?;
    let same_group = all
        .iter()
        .find(|other| other.event == denominator && other.group == reading.group);
    let (numerator, total) = match same_group {
        Some(other) if other.running > 0 => (reading.raw as f64, other.raw as f64),
        _ => {
            let other = all.iter().find(|other| other.event == denominator)?;
            (reading.estimate()? as f64, other.estimate()? as f64)
        }
    };
    shadow_value(reading.event, numerator, total, percent, unit)
}

/// The metric `numerator / total` of `event` (in percent when `percent`), or `None` where
/// perf prints none: an IPC without cycles, a stall share of 0.
pub(super) fn shadow_value(
    event: Event,
    numerator: f64,
    total: f64,
    percent: bool,
    unit: &'static str,
) -> Option<Shadow> {
    let ratio = if total == 0.0 { 0.0 } else { numerator / total };
    match event {
        Event::INST_RETIRED if total == 0.0 => None,
        Event::STALL_FRONTEND | Event::STALL_BACKEND if ratio == 0.0 => None,
        _ => Some(Shadow {
            value: if percent { ratio * 100.0 } else { ratio },
            percent,
            unit,
        }),
    }
}

/// Counts `fmt::Write` output, to pad what follows (perf pads with the `fprintf` result).
struct Counted<'w, W: fmt::Write> {
    inner: &'w mut W,
    written: usize,
}

impl<W: fmt::Write> fmt::Write for Counted<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.written += s.chars().count();
        self.inner.write_str(s)
    }
}

/// Writes the metric area: ` # `, the value, ` `, the unit padded to perf's 38 columns; 38
/// spaces when there is no metric.
pub(super) fn write_metric<W: fmt::Write>(w: &mut W, metric: Option<Shadow>) -> fmt::Result {
    let Some(metric) = metric else {
        return write!(w, "{:METRIC_LEN$}", "");
    };
    let mut counted = Counted {
        inner: w,
        written: 0,
    };
    fmt::Write::write_str(&mut counted, " # ")?;
    if metric.percent {
        fmt::write(&mut counted, format_args!("{:7.2}%", metric.value))?;
    } else {
        fmt::write(&mut counted, format_args!("{:7.2} ", metric.value))?;
    }
    let width = METRIC_LEN.saturating_sub(counted.written + 1);
    write!(w, " {:<width$}", metric.unit)
}

/// Writes what follows the count: perf's unit column (`"%-*s "` of the event's unit, empty for
/// PMU events, in `unit_width` = 4 columns) and the name in 32, after the count's own space.
pub(super) fn write_unit_and_name<W: fmt::Write>(
    w: &mut W,
    name: impl fmt::Display,
) -> fmt::Result {
    write!(w, " {:<UNIT_WIDTH$} {:<EVNAME_LEN$}", "", name)
}

/// Writes one counter line of perf stat (no newline): the estimate (or `<not counted>`), the
/// name, the metric computed among `all`, and `  (xx.xx%)` when the event ran less than the
/// whole enabled time.
///
/// ```
/// use pmprobe::pmu::{Event, EventReading, GroupId, write_stat_line};
/// let branches = EventReading {
///     event: Event::BR_RETIRED, group: GroupId::new(1), raw: 1000, enabled: 300, running: 100,
/// };
/// let mut line = heapless::String::<160>::new();
/// write_stat_line(&mut line, &branches, &[branches])?;
/// assert!(line.starts_with("             3,000      BR_RETIRED "));
/// assert!(line.ends_with("  (33.33%)"));
/// # Ok::<(), core::fmt::Error>(())
/// ```
pub fn write_stat_line<W: fmt::Write>(
    w: &mut W,
    reading: &EventReading,
    all: &[EventReading],
) -> fmt::Result {
    let estimate = reading.estimate();
    match estimate {
        Some(count) => write_grouped(w, count, COUNTS_LEN)?,
        None => write!(w, "{NOT_COUNTED:>COUNTS_LEN$}")?,
    }
    write_unit_and_name(w, reading.event)?;
    let metric = estimate.and_then(|_| shadow(reading, all));
    write_metric(w, metric)?;
    if reading.is_scaled() {
        write!(w, "  ({:.2}%)", reading.running_percent())?;
    }
    Ok(())
}

/// Writes perf stat's table for `readings`: the header naming `target`, then one line per
/// reading, in order ([`write_stat_line`]). Like `perf stat -e ...` after the workload ends,
/// without the elapsed-time footer, whose clock the caller knows.
pub fn render_stat<W: fmt::Write>(
    w: &mut W,
    target: &str,
    readings: &[EventReading],
) -> fmt::Result {
    write!(w, "\n Performance counter stats for '{target}':\n\n")?;
    for reading in readings {
        write_stat_line(w, reading, readings)?;
        w.write_char('\n')?;
    }
    Ok(())
}

/// Writes perf stat's footer: ` %17.9f seconds time elapsed` between empty lines.
pub fn write_elapsed<W: fmt::Write>(w: &mut W, nanoseconds: u64) -> fmt::Result {
    write!(
        w,
        "\n {:>7}.{:09} seconds time elapsed\n\n",
        nanoseconds / 1_000_000_000,
        nanoseconds % 1_000_000_000
    )
}

/// Writes the header of interval mode (`perf stat -I`): `#`, `time`, with `per` the column of
/// a per-unit breakdown (perf `-A` prints `cpu`), `counts`, `unit`, `events`.
///
/// ```
/// use pmprobe::pmu::write_interval_header;
/// let mut header = heapless::String::<80>::new();
/// write_interval_header(&mut header, None)?;
/// assert_eq!(header, "#           time             counts unit events\n");
/// # Ok::<(), core::fmt::Error>(())
/// ```
pub fn write_interval_header<W: fmt::Write>(w: &mut W, per: Option<&str>) -> fmt::Result {
    write!(w, "#{:>width$}", "time", width = INTERVAL_LEN - 1)?;
    if let Some(per) = per {
        write!(w, " {per:<PER_UNIT_LEN$}")?;
    }
    writeln!(
        w,
        " {:>COUNTS_LEN$} {:>UNIT_WIDTH$} events",
        "counts", "unit"
    )
}

/// The unit an interval line is about, perf `-A` style: `CPU3` is `("CPU", 3)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerUnit<'a> {
    /// The unit's kind, printed before its number.
    pub kind: &'a str,
    /// Its number.
    pub number: u32,
}

/// Writes the lines of one interval (`perf stat -I`): each is the time since the start in
/// seconds with nine decimals, the unit it is about (when `per` is given), and the stat line
/// of the interval's reading (counts, enabled and running times of that interval only: see
/// [`EventReading::since`]).
pub fn write_interval<W: fmt::Write>(
    w: &mut W,
    nanoseconds: u64,
    per: Option<PerUnit<'_>>,
    interval: &[EventReading],
) -> fmt::Result {
    for reading in interval {
        write!(
            w,
            "{:>6}.{:09} ",
            nanoseconds / 1_000_000_000,
            nanoseconds % 1_000_000_000
        )?;
        if let Some(per) = per {
            let digits = PER_UNIT_LEN.saturating_sub(per.kind.len());
            write!(w, "{}{:<digits$} ", per.kind, per.number)?;
        }
        write_stat_line(w, reading, interval)?;
        w.write_char('\n')?;
    }
    Ok(())
}
