//! Derived metrics from a pair of snapshots (IPC/CPI, cache miss/hit rates, branch mispredict
//! rate) and a `perf stat`-like rendering of a snapshot delta to any `core::fmt::Write`.
#![forbid(unsafe_code)]

use core::fmt;

use super::driver::Snapshot;
use super::event::Event;

/// A derived metric's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MetricValue {
    /// The ratio.
    Value(f64),
    /// An event it needs was not counted.
    NotAvailable,
    /// Both events were counted but the denominator is 0.
    Undefined,
}

impl MetricValue {
    /// The value, if there is one.
    pub fn value(self) -> Option<f64> {
        match self {
            Self::Value(v) => Some(v),
            _ => None,
        }
    }
    fn map(self, f: impl FnOnce(f64) -> f64) -> Self {
        match self {
            Self::Value(v) => Self::Value(f(v)),
            other => other,
        }
    }
}

impl fmt::Display for MetricValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Numbers are right-aligned in the requested width, 2 decimals unless told.
            Self::Value(v) => {
                let precision = f.precision().unwrap_or(2);
                let width = f.width().unwrap_or(0);
                write!(f, "{v:>width$.precision$}")
            }
            Self::NotAvailable => f.pad("not available"),
            Self::Undefined => f.pad("undefined (0 denominator)"),
        }
    }
}

/// `numerator / denominator` of two event counts in a delta.
pub fn ratio(delta: &Snapshot, numerator: Event, denominator: Event) -> MetricValue {
    match (delta.count_of(numerator), delta.count_of(denominator)) {
        (Some(_), Some(0)) => MetricValue::Undefined,
        (Some(n), Some(d)) => MetricValue::Value(n as f64 / d as f64),
        _ => MetricValue::NotAvailable,
    }
}

/// Metrics derived from the counts of one measurement interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// INST_RETIRED / CPU_CYCLES.
    pub ipc: MetricValue,
    /// CPU_CYCLES / INST_RETIRED.
    pub cpi: MetricValue,
    /// L1D_CACHE_REFILL / L1D_CACHE.
    pub l1d_miss_rate: MetricValue,
    /// 1 - L1D miss rate.
    pub l1d_hit_rate: MetricValue,
    /// L1I_CACHE_REFILL / L1I_CACHE.
    pub l1i_miss_rate: MetricValue,
    /// L2D_CACHE_REFILL / L2D_CACHE.
    pub l2d_miss_rate: MetricValue,
    /// LL_CACHE_MISS_RD / LL_CACHE_RD.
    pub ll_miss_rate: MetricValue,
    /// L1D_TLB_REFILL / L1D_TLB.
    pub l1d_tlb_miss_rate: MetricValue,
    /// BR_MIS_PRED_RETIRED / BR_RETIRED, else BR_MIS_PRED / BR_PRED.
    pub branch_mispredict_rate: MetricValue,
}

impl Metrics {
    /// Metrics of the interval between two snapshots.
    pub fn between(earlier: &Snapshot, later: &Snapshot) -> Self {
        Self::of_delta(&later.delta(earlier))
    }

    /// Metrics of a delta (counts of one interval).
    pub fn of_delta(delta: &Snapshot) -> Self {
        let l1d_miss_rate = ratio(delta, Event::L1D_CACHE_REFILL, Event::L1D_CACHE);
        let retired = ratio(delta, Event::BR_MIS_PRED_RETIRED, Event::BR_RETIRED);
        let branch_mispredict_rate = match retired {
            MetricValue::NotAvailable => ratio(delta, Event::BR_MIS_PRED, Event::BR_PRED),
            other => other,
        };
        Self {
            ipc: ratio(delta, Event::INST_RETIRED, Event::CPU_CYCLES),
            cpi: ratio(delta, Event::CPU_CYCLES, Event::INST_RETIRED),
            l1d_miss_rate,
            l1d_hit_rate: l1d_miss_rate.map(|m| 1.0 - m),
            l1i_miss_rate: ratio(delta, Event::L1I_CACHE_REFILL, Event::L1I_CACHE),
            l2d_miss_rate: ratio(delta, Event::L2D_CACHE_REFILL, Event::L2D_CACHE),
            ll_miss_rate: ratio(delta, Event::LL_CACHE_MISS_RD, Event::LL_CACHE_RD),
            l1d_tlb_miss_rate: ratio(delta, Event::L1D_TLB_REFILL, Event::L1D_TLB),
            branch_mispredict_rate,
        }
    }

    /// `(name, value, unit)` of every metric, in display order.
    pub fn entries(&self) -> [(&'static str, MetricValue, Unit); 9] {
        [
            ("IPC", self.ipc, Unit::PerCycle),
            ("CPI", self.cpi, Unit::PerInstruction),
            ("L1D miss rate", self.l1d_miss_rate, Unit::Percent),
            ("L1D hit rate", self.l1d_hit_rate, Unit::Percent),
            ("L1I miss rate", self.l1i_miss_rate, Unit::Percent),
            ("L2D miss rate", self.l2d_miss_rate, Unit::Percent),
            ("LL miss rate", self.ll_miss_rate, Unit::Percent),
            ("L1D TLB miss rate", self.l1d_tlb_miss_rate, Unit::Percent),
            (
                "branch mispredict rate",
                self.branch_mispredict_rate,
                Unit::Percent,
            ),
        ]
    }
}

/// How a metric is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Instructions per cycle.
    PerCycle,
    /// Cycles per instruction.
    PerInstruction,
    /// A fraction shown as a percentage.
    Percent,
}

/// The metric shown next to an event's line in [`render_perf_stat`], perf-style.
fn annotation(event: Event, m: &Metrics) -> Option<(MetricValue, &'static str)> {
    Some(match event {
        Event::INST_RETIRED => (m.ipc, "insn per cycle"),
        Event::L1D_CACHE_REFILL => (
            m.l1d_miss_rate.map(|v| v * 100.0),
            "% of all L1D_CACHE accesses",
        ),
        Event::L1I_CACHE_REFILL => (
            m.l1i_miss_rate.map(|v| v * 100.0),
            "% of all L1I_CACHE accesses",
        ),
        Event::L2D_CACHE_REFILL => (
            m.l2d_miss_rate.map(|v| v * 100.0),
            "% of all L2D_CACHE accesses",
        ),
        Event::LL_CACHE_MISS_RD => (
            m.ll_miss_rate.map(|v| v * 100.0),
            "% of all LL_CACHE_RD accesses",
        ),
        Event::L1D_TLB_REFILL => (
            m.l1d_tlb_miss_rate.map(|v| v * 100.0),
            "% of all L1D_TLB accesses",
        ),
        Event::BR_MIS_PRED_RETIRED | Event::BR_MIS_PRED => (
            m.branch_mispredict_rate.map(|v| v * 100.0),
            "% of all branches",
        ),
        _ => return None,
    })
}

/// Writes `n` with thousands separators (`1,234,567`) right-aligned in `width` columns.
pub(super) fn write_grouped<W: fmt::Write>(w: &mut W, n: u64, width: usize) -> fmt::Result {
    let mut digits = [0u8; 26];
    let mut len = 0;
    let mut rest = n;
    let mut group = 0;
    loop {
        if group == 3 {
            if let Some(d) = digits.get_mut(len) {
                *d = b',';
            }
            len += 1;
            group = 0;
        }
        if let Some(d) = digits.get_mut(len) {
            *d = b'0' + (rest % 10) as u8;
        }
        len += 1;
        group += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for _ in len..width {
        w.write_char(' ')?;
    }
    for d in digits.iter().take(len).rev() {
        w.write_char(char::from(*d))?;
    }
    Ok(())
}

/// Renders the counts of a delta like `perf stat`: one line per counter (count, event name,
/// `# metric` where one belongs to the event), then every derived metric, "not available"
/// where its events were not counted.
///
/// ```
/// use pmprobe::pmu::{Counter, Event, Snapshot, render_perf_stat};
/// let mut d = Snapshot::new();
/// d.insert(Counter::Cycle, Event::CPU_CYCLES, 2000);
/// d.insert(Counter::Event(0), Event::INST_RETIRED, 1000);
/// let mut out = heapless::String::<1024>::new();
/// render_perf_stat(&mut out, &d).unwrap();
/// assert!(out.contains("1,000      INST_RETIRED"));
/// assert!(out.contains("0.50  insn per cycle"));
/// ```
pub fn render_perf_stat<W: fmt::Write>(w: &mut W, delta: &Snapshot) -> fmt::Result {
    let metrics = Metrics::of_delta(delta);
    w.write_str(" Performance counter stats:\n\n")?;
    for (_, event, count) in delta.iter() {
        write_grouped(w, count, 20)?;
        match annotation(event, &metrics) {
            Some((value, label)) => write!(w, "      {event:<24} #  {value:>6.2}  {label}")?,
            None => write!(w, "      {event}")?,
        }
        w.write_char('\n')?;
    }
    w.write_char('\n')?;
    for (name, value, unit) in metrics.entries() {
        write!(w, "  {name:<24}")?;
        match (value, unit) {
            (MetricValue::Value(v), Unit::Percent) => writeln!(w, "{:>10.2} %", v * 100.0)?,
            (MetricValue::Value(v), _) => writeln!(w, "{v:>10.3}")?,
            (other, _) => writeln!(w, "{other:>10}")?,
        }
    }
    Ok(())
}
