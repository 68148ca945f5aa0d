//! Arm PMUv3 performance monitor: register layouts, a back-end trait with a system-register
//! and an emulated implementation, and one driver over both.
//!
//! - [`regs`]: every PMUv3 register declared with tock-registers `register_bitfields!`;
//! - [`backend`]: the [`backend::PmuBackend`] trait and tock-registers views;
//! - `sysreg`: the real registers through `mrs`/`msr` (aarch64 only);
//! - [`emulated`]: a software model of the architecture, fed events from outside;
//! - [`driver`]: detection, counter programming, 64-bit counts, snapshots;
//! - [`event`]: the common events by name, [`event::EventSet`];
//! - [`metrics`]: IPC/CPI, miss rates, perf-stat-like output;
//! - [`info`]: MIDR_EL1 and PMUVer decoding.

pub mod backend;
mod counter;
mod detect;
pub mod driver;
pub mod emulated;
mod error;
pub mod event;
mod group;
pub mod info;
pub mod metrics;
pub mod regs;
mod snapshot;
#[cfg(target_arch = "aarch64")]
pub mod sysreg;

pub use backend::{AccessError, ExceptionLevel, PmuBackend, PmuRegister};
pub use driver::{Counter, Error, Pmu, PmuInfo, Snapshot, detect};
pub use emulated::{EmulatedConfig, EmulatedPmu};
pub use event::{Event, EventSet};
pub use group::{CounterGroup, GroupSnapshot};
pub use info::{CpuId, PmuVersion, decode_midr};
