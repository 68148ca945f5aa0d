//! Hardware breakpoints and watchpoints (AArch64 self-hosted debug) as probe points.
//!
//! - [`regs`]: DBGBVR/DBGBCR/DBGWVR/DBGWCR&lt;n&gt;_EL1 and OSLSR_EL1 declared with tock-registers;
//!   MDSCR_EL1, OSLAR_EL1 and ID_AA64DFR0_EL1 re-exported from `aarch64-cpu`;
//! - `backend`: the [`DebugBackend`] trait (register access by identity) and tock-registers
//!   views;
//! - `sysreg`: the real registers through `mrs`/`msr` (aarch64 only);
//! - `emulated`: a software model of the debug unit with the architecture's match rules;
//! - `comparators`: [`HwDebug`], install/remove breakpoints and watchpoints, with typed
//!   errors when every comparator is in use or a range cannot be watched;
//! - `watch_range`: an address range as DBGWVR + BAS/MASK;
//! - `syndrome`: ESR decoding of debug exceptions and the access size of a watchpoint hit;
//! - `monitor`: [`DebugMonitor`], the state machine the runtime's exception handler calls
//!   (`on_breakpoint`, `on_watchpoint`, `on_step`): hits become probe-point notifications and
//!   PC events, and the handler steps past the instruction with software step.
//!
//! # Example (host, emulated debug unit)
//! ```
//! use pmprobe::hwdebug::{DebugMonitor, EmulatedDebug, HwDebug};
//! let unit = EmulatedDebug::qemu_cortex_a57();
//! let mut monitor: DebugMonitor<_> = DebugMonitor::new(HwDebug::new(&unit)?);
//! monitor.debug().enable_debug_exceptions()?;
//! let breakpoint = monitor.install_breakpoint(0x4008_1000)?;
//! assert_eq!(unit.breakpoint_hit(0x4008_1000), Some(breakpoint.comparator()));
//! // The exception handler's part: report the hit, return with a single step armed.
//! let resume = monitor.on_breakpoint(0x4008_1000, 0x3c5)?;
//! assert_eq!(monitor.breakpoint_hits(breakpoint), 1);
//! assert_eq!(unit.breakpoint_hit(0x4008_1000), None); // off while stepping past
//! monitor.on_step(0x4008_1004, resume.spsr)?;
//! assert_eq!(unit.breakpoint_hit(0x4008_1000), Some(breakpoint.comparator()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The one module that needs `unsafe` is `sysreg` (its `mrs`/`msr`), which allows it locally.
#![deny(unsafe_code)]

mod backend;
mod comparators;
mod emulated;
mod monitor;
pub mod regs;
mod syndrome;
#[cfg(target_arch = "aarch64")]
mod sysreg;
mod watch_range;

pub use backend::{
    ComparatorCounts, DebugAccessError, DebugBackend, DebugRegister, DebugRegisterView,
    MAX_COMPARATORS,
};
pub use comparators::{Breakpoint, HwDebug, HwDebugError, WatchKind, Watchpoint};
pub use emulated::EmulatedDebug;
pub use monitor::{
    BreakpointHit, DebugExceptionContext, DebugMonitor, MonitorError, Resume, SPSR_IRQ_FIQ,
    SPSR_SS, Unclaimed,
};
pub use syndrome::{DebugEvent, data_access_size};
#[cfg(target_arch = "aarch64")]
pub use sysreg::SysRegDebug;
pub use watch_range::{MAX_MASKED_BYTES, WatchRange, WatchRangeError};
