//! Arm PMUv3 performance monitor: register layouts, a back-end trait with a system-register
//! and an emulated implementation, and one driver over both.
//!
//! Everything is reached from here; the files behind it are one concept each:
//! - [`regs`]: every PMUv3 register declared once with tock-registers `register_bitfields!`
//!   (the one public module: a namespace of register layouts, as in aarch64-cpu);
//! - the back ends: the [`PmuBackend`] trait with its tock-registers [`RegisterView`], the
//!   real registers through `mrs`/`msr` (`SysRegPmu`, aarch64 only) and [`EmulatedPmu`], a
//!   software model of the architecture fed with events from outside;
//! - the driver: [`detect`], [`Pmu`] (counter programming in Linux's order, start/stop,
//!   64-bit counts from 32-bit counters, in software or with CHAIN on an even/odd pair:
//!   [`Pmu::program_long`]), [`Snapshot`] of every programmed counter, and
//!   [`CounterGroup`], a set of counters prepared once and read straight-line;
//! - [`Event`] and [`EventSet`]: the common events by name, PMCEID decoding;
//! - [`catalogue`]: every event's name and description per core (chosen by MIDR_EL1), and
//!   perf-style event parsing with suggestions, perf's `-e` lists with groups and modifiers
//!   ([`catalogue::EventList`]);
//! - [`Exclude`] and [`EventFilter`]: perf's modifiers `:u :k :h :G :H` as PMEVTYPER's
//!   exception-level filter bits, by Linux's rule;
//! - [`Metrics`] and [`render_perf_stat`]: IPC/CPI, miss rates, perf-stat-like output;
//! - [`Multiplexer`]: more events than counters, as perf multiplexes them: event groups,
//!   pinned or flexible, rotated on the counters, each event an [`EventReading`] (raw count,
//!   time enabled, time running) with perf's scaled estimate;
//! - [`render_stat`] and [`write_stat_line`]: perf stat's layout for those readings, with
//!   `(xx.xx%)` and `<not counted>`; [`write_interval`] for interval mode; [`write_stat_row`]
//!   for events named as written, over repeated runs ([`RunStats`], `-r`) and in perf's CSV
//!   layout (`-x`);
//! - interval mode (`perf stat -I`): [`IntervalTimer`], the [`IntervalRing`] of readings that
//!   counts what it drops, [`IntervalDeltas`];
//! - [`topdown`]: top-down level 1 with Arm's published formulas (Neoverse N1, N2, V1), and
//!   the [`CycleBreakdown`](topdown::CycleBreakdown) of models that account for every cycle;
//! - [`decode_midr`] and [`PmuVersion`]: MIDR_EL1 and PMUVer decoding.
//!
//! ```
//! use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
//! let cpu = EmulatedPmu::qemu_cortex_a57();
//! let mut pmu = Pmu::new(&cpu)?;
//! let insts = pmu.program(Event::INST_RETIRED)?;
//! pmu.start()?;
//! cpu.count(Event::INST_RETIRED.number(), 42);
//! assert_eq!(pmu.read(insts)?, 42);
//! # Ok::<(), pmprobe::pmu::Error>(())
//! ```
// The one module that needs `unsafe` is `sysreg` (its `mrs`/`msr`), which allows it locally;
// every other file forbids it.
#![deny(unsafe_code)]

mod backend;
mod batch;
pub mod catalogue;
mod chained;
mod counter;
mod detect;
mod driver;
mod emulated;
mod error;
mod event;
mod filter;
mod group;
mod info;
mod interval;
mod metrics;
mod multiplex;
mod reading;
pub mod regs;
mod snapshot;
mod stat_display;
mod stat_runs;
#[cfg(target_arch = "aarch64")]
mod sysreg;
pub mod topdown;

pub use backend::{
    AccessError, ExceptionLevel, PmuBackend, PmuRegister, RegisterAccess, RegisterView,
    el0_access_check,
};
pub use counter::Counter;
pub use detect::{PmuInfo, detect};
pub use driver::Pmu;
pub use emulated::{EVENT_INPUTS, EmulatedConfig, EmulatedPmu, EventInput, EventInputsFull};
pub use error::Error;
pub use event::{Event, EventSet, UnknownEvent};
pub use filter::{EventFilter, Exclude, FilterContext, FilterError, ModifierError};
pub use group::{CounterGroup, GroupSnapshot};
pub use info::{CpuId, PmuVersion, decode_midr};
pub use interval::{
    IntervalDeltas, IntervalReading, IntervalRing, IntervalTimer, ZeroInterval, ticks_to_nanos,
};
pub use metrics::{MetricValue, Metrics, Unit, ratio, render_perf_stat};
pub use multiplex::{GroupId, GroupKind, Multiplexer, MuxError};
pub use reading::{EventReading, Readings};
pub use snapshot::Snapshot;
pub use stat_display::{
    NOT_COUNTED, PerUnit, render_stat, write_elapsed, write_interval, write_interval_header,
    write_stat_line,
};
pub use stat_runs::{
    NOT_SUPPORTED, RunStats, StatFormat, StatRow, StatValue, write_elapsed_runs, write_stat_header,
    write_stat_row,
};
#[cfg(target_arch = "aarch64")]
pub use sysreg::SysRegPmu;
