//! Top-down analysis, level 1: the share of the machine's capacity that retired useful work
//! (retiring), was lost to work thrown away after a misprediction (bad speculation), waited for
//! instructions (frontend bound) or for execution resources and data (backend bound).
//!
//! The formulas are Arm's, from the Arm Telemetry Solution
//! (`ARM-software/telemetry-solution`, `data/pmu/cpu/neoverse/neoverse-{n1,n2,v1}.json`,
//! data version 6687b72, "Topdown Methodology"), which Linux perf carries as the metrics of
//! `tools/perf/pmu-events/arch/arm64/arm/neoverse-*`:
//!
//! | core | stage 1 | formulas (percent) |
//! |---|---|---|
//! | Neoverse V1 (8 slots) | `Topdown_L1` | frontend_bound = 100 × (STALL_SLOT_FRONTEND / (8 × CPU_CYCLES) − 4 × BR_MIS_PRED / CPU_CYCLES); backend_bound = 100 × STALL_SLOT_BACKEND / (8 × CPU_CYCLES); bad_speculation = 100 × ((1 − OP_RETIRED / OP_SPEC) × (1 − STALL_SLOT / (8 × CPU_CYCLES)) + 4 × BR_MIS_PRED / CPU_CYCLES); retiring = 100 × OP_RETIRED / OP_SPEC × (1 − STALL_SLOT / (8 × CPU_CYCLES)) |
//! | Neoverse N2 (5 slots) | `Topdown_L1` | frontend_bound = 100 × ((STALL_SLOT_FRONTEND − CPU_CYCLES) / (5 × CPU_CYCLES) − BR_MIS_PRED / CPU_CYCLES); backend_bound = 100 × (STALL_SLOT_BACKEND / (5 × CPU_CYCLES) − 3 × BR_MIS_PRED / CPU_CYCLES); bad_speculation = 100 × ((1 − OP_RETIRED / OP_SPEC) × (1 − (STALL_SLOT − CPU_CYCLES) / (5 × CPU_CYCLES)) + 4 × BR_MIS_PRED / CPU_CYCLES); retiring = 100 × OP_RETIRED / OP_SPEC × (1 − (STALL_SLOT − CPU_CYCLES) / (5 × CPU_CYCLES)) |
//! | Neoverse N1 | `Cycle_Accounting` | frontend_stalled_cycles = 100 × STALL_FRONTEND / CPU_CYCLES; backend_stalled_cycles = 100 × STALL_BACKEND / CPU_CYCLES; Arm gives no retiring or bad speculation for N1 (it has no STALL_SLOT events) |
//!
//! A core is recognised by MIDR_EL1 (implementer 0x41, part 0xD40, 0xD49, 0xD0C) and must
//! announce every event of its formulas in PMCEID; any other core gets "not available on this
//! core". The values are Arm's formulas as published, not clamped: with few cycles a slot
//! formula can fall a little below 0 or above 100.
//!
//! Models that account for every cycle themselves (the SPU model) give a [`CycleBreakdown`]
//! instead, whose four parts add up to the cycles exactly.
#![forbid(unsafe_code)]

use core::fmt;

use super::detect::PmuInfo;
use super::event::Event;
use super::metrics::MetricValue;

/// The four categories of level 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Category {
    /// Useful work retired.
    Retiring,
    /// Work thrown away, and the recovery, after a misprediction.
    BadSpeculation,
    /// Waiting for instructions.
    FrontendBound,
    /// Waiting for execution resources or data.
    BackendBound,
}

impl Category {
    /// The four, in perf's TopdownL1 order.
    pub const ALL: [Category; 4] = [
        Category::Retiring,
        Category::BadSpeculation,
        Category::FrontendBound,
        Category::BackendBound,
    ];

    /// The metric's name in Arm's data and Linux perf (`retiring`, `bad_speculation`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Retiring => "retiring",
            Self::BadSpeculation => "bad_speculation",
            Self::FrontendBound => "frontend_bound",
            Self::BackendBound => "backend_bound",
        }
    }
}

/// Whose formulas apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Method {
    /// Neoverse N1: Arm's cycle accounting (frontend and backend stalled cycles only).
    NeoverseN1,
    /// Neoverse N2: Arm's slot formulas, 5 slots.
    NeoverseN2,
    /// Neoverse V1: Arm's slot formulas, 8 slots.
    NeoverseV1,
    /// A model that accounts for every cycle ([`CycleBreakdown`]).
    CycleAccounting,
}

/// Why level 1 is not available on a core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Unavailable {
    /// Arm publishes no top-down formulas for this core (by MIDR_EL1 implementer and part).
    NoFormulas {
        /// MIDR_EL1.Implementer.
        implementer: u8,
        /// MIDR_EL1.PartNum.
        part: u16,
    },
    /// The core is one with formulas, but its PMU does not announce this event (PMCEID).
    EventMissing(Event),
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoFormulas { implementer, part } => write!(
                f,
                "not available on this core (implementer {implementer:#04x}, part {part:#05x}: Arm publishes top-down formulas for Neoverse N1, N2 and V1)"
            ),
            Self::EventMissing(event) => write!(
                f,
                "not available on this core (its PMU does not announce {event})"
            ),
        }
    }
}

impl core::error::Error for Unavailable {}

const V1_N2_EVENTS: [Event; 7] = [
    Event::CPU_CYCLES,
    Event::STALL_SLOT_FRONTEND,
    Event::STALL_SLOT_BACKEND,
    Event::STALL_SLOT,
    Event::OP_RETIRED,
    Event::OP_SPEC,
    Event::BR_MIS_PRED,
];
const N1_EVENTS: [Event; 3] = [
    Event::CPU_CYCLES,
    Event::STALL_FRONTEND,
    Event::STALL_BACKEND,
];

impl Method {
    /// The method for the core `info` describes, when Arm publishes formulas for it and its PMU
    /// announces every event they need.
    pub fn for_core(info: &PmuInfo) -> Result<Self, Unavailable> {
        let method = match (info.cpu.implementer, info.cpu.part) {
            (0x41, 0xD0C) => Self::NeoverseN1,
            (0x41, 0xD49) => Self::NeoverseN2,
            (0x41, 0xD40) => Self::NeoverseV1,
            (implementer, part) => return Err(Unavailable::NoFormulas { implementer, part }),
        };
        // CPU_CYCLES is always countable (PMCCNTR_EL0), whatever PMCEID says.
        let missing = method
            .events()
            .iter()
            .find(|&&event| event != Event::CPU_CYCLES && !info.events.contains(event));
        match missing {
            Some(&event) => Err(Unavailable::EventMissing(event)),
            None => Ok(method),
        }
    }

    /// The events the formulas need: count them as one group, so that every ratio comes from
    /// the same intervals (7 events: the cycle counter and 6 event counters).
    pub const fn events(self) -> &'static [Event] {
        match self {
            Self::NeoverseN1 => &N1_EVENTS,
            Self::NeoverseN2 | Self::NeoverseV1 => &V1_N2_EVENTS,
            Self::CycleAccounting => &[],
        }
    }

    /// The name of the source of the formulas.
    pub const fn name(self) -> &'static str {
        match self {
            Self::NeoverseN1 => "Arm Neoverse N1 cycle accounting (Arm Telemetry Solution)",
            Self::NeoverseN2 => "Arm Neoverse N2 Topdown L1 (Arm Telemetry Solution)",
            Self::NeoverseV1 => "Arm Neoverse V1 Topdown L1 (Arm Telemetry Solution)",
            Self::CycleAccounting => "the model's own cycle accounting",
        }
    }

    /// Level 1 from event counts (`count` gives each event's count or estimate; `None` when
    /// not counted). A share whose denominator is 0 is
    /// [`Undefined`](MetricValue::Undefined), one whose events were not counted
    /// [`NotAvailable`](MetricValue::NotAvailable).
    pub fn compute(self, count: impl Fn(Event) -> Option<u64>) -> TopdownL1 {
        let get = |event: Event| count(event).map(|n| n as f64);
        let cycles = get(Event::CPU_CYCLES);
        let values = match self {
            Self::NeoverseN1 => {
                let share = |event| per_cycles(get(event), cycles, 1.0);
                [
                    MetricValue::NotAvailable,
                    MetricValue::NotAvailable,
                    share(Event::STALL_FRONTEND),
                    share(Event::STALL_BACKEND),
                ]
            }
            Self::NeoverseV1 | Self::NeoverseN2 => slots(self, &get),
            Self::CycleAccounting => [MetricValue::NotAvailable; 4],
        };
        let [retiring, bad_speculation, frontend_bound, backend_bound] = values;
        TopdownL1 {
            method: self,
            retiring,
            bad_speculation,
            frontend_bound,
            backend_bound,
        }
    }
}

/// `100 × n / (slots × cycles)`.
fn per_cycles(n: Option<f64>, cycles: Option<f64>, slots: f64) -> MetricValue {
    match (n, cycles) {
        (Some(_), Some(0.0)) => MetricValue::Undefined,
        (Some(n), Some(c)) => MetricValue::Value(100.0 * n / (slots * c)),
        _ => MetricValue::NotAvailable,
    }
}

/// The slot formulas of V1 (8 slots) and N2 (5 slots, one slot per cycle taken off the
/// stall-slot counts), in [`Category::ALL`] order.
fn slots(method: Method, get: &impl Fn(Event) -> Option<f64>) -> [MetricValue; 4] {
    let all = (
        get(Event::CPU_CYCLES),
        get(Event::STALL_SLOT_FRONTEND),
        get(Event::STALL_SLOT_BACKEND),
        get(Event::STALL_SLOT),
        get(Event::OP_RETIRED),
        get(Event::OP_SPEC),
        get(Event::BR_MIS_PRED),
    );
    let (Some(c), Some(sf), Some(sb), Some(s), Some(retired), Some(spec), Some(mis)) = all else {
        return [MetricValue::NotAvailable; 4];
    };
    if c == 0.0 || spec == 0.0 {
        return [MetricValue::Undefined; 4];
    }
    let retired_share = retired / spec;
    let v = |share: f64| MetricValue::Value(100.0 * share);
    if method == Method::NeoverseV1 {
        let busy = 1.0 - s / (c * 8.0);
        [
            v(busy * retired_share),
            v((1.0 - retired_share) * busy + mis * 4.0 / c),
            v(sf / (c * 8.0) - mis * 4.0 / c),
            v(sb / (8.0 * c)),
        ]
    } else {
        let busy = 1.0 - (s - c) / (c * 5.0);
        [
            v(retired_share * busy),
            v((1.0 - retired_share) * busy + mis * 4.0 / c),
            v((sf - c) / (5.0 * c) - mis / c),
            v(sb / (c * 5.0) - mis * 3.0 / c),
        ]
    }
}

/// Level 1: each category's share, in percent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopdownL1 {
    /// Whose formulas produced it.
    pub method: Method,
    /// Retiring.
    pub retiring: MetricValue,
    /// Bad speculation.
    pub bad_speculation: MetricValue,
    /// Frontend bound (on Neoverse N1: frontend stalled cycles).
    pub frontend_bound: MetricValue,
    /// Backend bound (on Neoverse N1: backend stalled cycles).
    pub backend_bound: MetricValue,
}

impl TopdownL1 {
    /// The share of `category`.
    pub fn get(&self, category: Category) -> MetricValue {
        match category {
            Category::Retiring => self.retiring,
            Category::BadSpeculation => self.bad_speculation,
            Category::FrontendBound => self.frontend_bound,
            Category::BackendBound => self.backend_bound,
        }
    }

    /// The name the metric of `category` has under this method (Neoverse N1's are Arm's
    /// `frontend_stalled_cycles` and `backend_stalled_cycles`).
    pub fn metric_name(&self, category: Category) -> &'static str {
        match (self.method, category) {
            (Method::NeoverseN1, Category::FrontendBound) => "frontend_stalled_cycles",
            (Method::NeoverseN1, Category::BackendBound) => "backend_stalled_cycles",
            _ => category.name(),
        }
    }
}

/// Prints perf's TopdownL1 metric group: a `TopdownL1` label, then one line per category,
/// ` #`, the share with one decimal, `%`, the metric's name; "not available on this core"
/// where the core's formulas have none.
impl fmt::Display for TopdownL1 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, category) in Category::ALL.into_iter().enumerate() {
            let label = if index == 0 { "TopdownL1" } else { "" };
            write!(f, " {label:>32}{:17}#", "")?;
            let name = self.metric_name(category);
            match self.get(category) {
                MetricValue::Value(share) => writeln!(f, " {share:>8.1} %  {name}")?,
                MetricValue::Undefined => writeln!(f, " {:>8}    {name} (0 cycles)", "-")?,
                MetricValue::NotAvailable => {
                    writeln!(f, " {:>8}    {name}: not available on this core", "-")?
                }
            }
        }
        Ok(())
    }
}

/// Cycles of a model that accounts for every one of them, by category: the four add up to its
/// cycles exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CycleBreakdown {
    /// Cycles that retired useful work.
    pub retiring: u64,
    /// Cycles lost to mispredictions.
    pub bad_speculation: u64,
    /// Cycles waiting for instructions.
    pub frontend_bound: u64,
    /// Cycles waiting for execution resources or data.
    pub backend_bound: u64,
}

impl CycleBreakdown {
    /// Adds `cycles` to `category`.
    pub fn add(&mut self, category: Category, cycles: u64) {
        let slot = match category {
            Category::Retiring => &mut self.retiring,
            Category::BadSpeculation => &mut self.bad_speculation,
            Category::FrontendBound => &mut self.frontend_bound,
            Category::BackendBound => &mut self.backend_bound,
        };
        *slot = slot.saturating_add(cycles);
    }

    /// The cycles of `category`.
    pub fn get(&self, category: Category) -> u64 {
        match category {
            Category::Retiring => self.retiring,
            Category::BadSpeculation => self.bad_speculation,
            Category::FrontendBound => self.frontend_bound,
            Category::BackendBound => self.backend_bound,
        }
    }

    /// All four together.
    pub fn total(&self) -> u64 {
        self.retiring
            .saturating_add(self.bad_speculation)
            .saturating_add(self.frontend_bound)
            .saturating_add(self.backend_bound)
    }

    /// The shares in percent ([`Method::CycleAccounting`]); undefined for 0 cycles.
    ///
    /// ```
    /// use pmprobe::pmu::topdown::{Category, CycleBreakdown};
    /// let mut cycles = CycleBreakdown::default();
    /// cycles.add(Category::Retiring, 30);
    /// cycles.add(Category::BackendBound, 10);
    /// assert_eq!(cycles.shares().retiring.value(), Some(75.0));
    /// ```
    pub fn shares(&self) -> TopdownL1 {
        let total = self.total();
        let share = |cycles: u64| {
            if total == 0 {
                MetricValue::Undefined
            } else {
                MetricValue::Value(100.0 * cycles as f64 / total as f64)
            }
        };
        TopdownL1 {
            method: Method::CycleAccounting,
            retiring: share(self.retiring),
            bad_speculation: share(self.bad_speculation),
            frontend_bound: share(self.frontend_bound),
            backend_bound: share(self.backend_bound),
        }
    }
}
