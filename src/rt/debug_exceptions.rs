//! Hardware breakpoints and watchpoints on the running firmware: each core's
//! [`DebugMonitor`] over the real debug registers, called by the
//! synchronous exception handler for breakpoint, watchpoint and software-step exceptions.
//!
//! ```ignore
//! use pmprobe::rt::debug_exceptions;
//! debug_exceptions::enable()?;                       // MDSCR.KDE/MDE, OS lock off, PSTATE.D clear
//! let hits = debug_exceptions::with_monitor(|m| m.install_breakpoint(target as usize as u64))??;
//! target(); target();
//! assert_eq!(debug_exceptions::with_monitor(|m| m.breakpoint_hits(hits))?, 2);
//! ```
//!
//! # What the handler does
//! For ESR_EL1.EC 0x30 to 0x35 it reads ESR, FAR and the instruction word at ELR (for a
//! watchpoint's access size), calls the monitor, and on `Ok(Resume)` writes ELR and SPSR back
//! into the exception frame: the monitor has reported the hit (counts, probe point, PC events),
//! disabled the comparator and armed a single step past the instruction, whose step exception
//! re-enables it. An `Err(Unclaimed)` is printed and reported like any unexpected exception.
//!
//! # Why this is sound without a lock
//! The monitor of a core is reached only from that core: by [`with_monitor`], which masks
//! debug exceptions (PSTATE.D) as well as IRQ and FIQ while its closure runs, and by the
//! exception handler, which the core enters with D, I and F masked and which cannot nest. So
//! the two never overlap. Breakpoints and watchpoints therefore do not fire inside interrupt
//! handlers or inside [`with_monitor`]: the architecture masks them there.

use core::cell::UnsafeCell;
use core::fmt;

use aarch64_cpu::registers::{ESR_EL1, FAR_EL1, Readable};
use aarch64_rt::RegisterState;

use crate::arch::esr::Syndrome;
use crate::hwdebug::SysRegDebug;
use crate::hwdebug::{DebugExceptionContext, DebugMonitor, HwDebug, HwDebugError};
use crate::rt::ZeroSlot;

/// A core's monitor: the real debug registers, static listeners and PC events.
pub type Monitor = DebugMonitor<'static, SysRegDebug>;

/// Cores with a monitor of their own: every core the runtime numbers.
pub const MAX_CORES: usize = super::core_id::MAX_CORES;

/// One core's monitor, empty until [`enable`]; a [`ZeroSlot`], so the slots land in `.bss`.
struct Slot(UnsafeCell<ZeroSlot<Monitor>>);

// SAFETY: slot k is only reached by core k, with debug exceptions, IRQs and FIQs masked
// (`with_monitor`) or from its debug exception handler, which cannot run while `with_monitor`
// does (see the module documentation): there is never more than one reference at a time.
unsafe impl Sync for Slot {}

static MONITORS: [Slot; MAX_CORES] = [const { Slot(UnsafeCell::new(ZeroSlot::new())) }; MAX_CORES];

/// This core's number (the runtime's dense numbering, [`super::core_id::this_core`]).
fn this_core() -> usize {
    super::core_id::this_core().index()
}

/// Why [`with_monitor`] could not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugSetupError {
    /// [`enable`] was not called on this core.
    NotEnabled,
    /// This core's number is past [`MAX_CORES`].
    NoSlot {
        /// The core number.
        core: usize,
    },
    /// The debug registers refused (e.g. the OS lock stayed set).
    Registers(HwDebugError),
}

impl fmt::Display for DebugSetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotEnabled => f.write_str("debug exceptions are not enabled on this core"),
            Self::NoSlot { core } => write!(f, "core {core} has no debug monitor slot"),
            Self::Registers(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for DebugSetupError {}

impl From<HwDebugError> for DebugSetupError {
    fn from(e: HwDebugError) -> Self {
        Self::Registers(e)
    }
}

/// Runs `f` with PSTATE.D, I and F set, restoring DAIF afterwards.
fn masked<R>(f: impl FnOnce() -> R) -> R {
    let saved: u64;
    // SAFETY: reads DAIF and masks debug exceptions, IRQ and FIQ on this core; no memory access.
    // Not `nomem`: a compiler barrier, so the closure's accesses stay inside.
    unsafe {
        core::arch::asm!(
            "mrs {saved}, daif",
            "msr daifset, #0b1011",
            saved = out(reg) saved,
            options(nostack, preserves_flags)
        )
    };
    let result = f();
    // SAFETY: restores the DAIF value read above, in the same scope: unmasks exactly what was
    // unmasked when this function was entered.
    unsafe {
        core::arch::asm!("msr daif, {saved}", saved = in(reg) saved, options(nostack, preserves_flags))
    };
    result
}

/// Creates this core's monitor (every comparator disabled), enables debug exceptions at EL1
/// (OS lock released, MDSCR_EL1.MDE and KDE set) and clears PSTATE.D. Calling it again keeps
/// the monitor and its breakpoints.
pub fn enable() -> Result<(), DebugSetupError> {
    let core = this_core();
    let slot = MONITORS.get(core).ok_or(DebugSetupError::NoSlot { core })?;
    masked(|| {
        // SAFETY: this core's slot, with D, I and F masked (see `Slot`).
        let monitor = unsafe { &mut *slot.0.get() };
        if monitor.is_empty() {
            monitor.set(DebugMonitor::new(HwDebug::new(SysRegDebug::new())?));
        }
        match monitor.get_mut() {
            Some(monitor) => monitor.debug().enable_debug_exceptions(),
            None => Ok(()),
        }
    })?;
    // SAFETY: only unmasks debug exceptions, whose handler is installed (the vector table is
    // set at boot); they fire only where a comparator was installed through the monitor.
    unsafe { core::arch::asm!("msr daifclr, #8", options(nostack, preserves_flags)) };
    Ok(())
}

/// Runs `f` on this core's monitor (install and remove breakpoints and watchpoints, attach
/// listeners, schedule PC events, read hit counts), with debug exceptions and interrupts
/// masked meanwhile.
pub fn with_monitor<R>(f: impl FnOnce(&mut Monitor) -> R) -> Result<R, DebugSetupError> {
    let core = this_core();
    let slot = MONITORS.get(core).ok_or(DebugSetupError::NoSlot { core })?;
    masked(|| {
        // SAFETY: this core's slot, with D, I and F masked (see `Slot`).
        let monitor = unsafe { &mut *slot.0.get() };
        monitor.get_mut().map(f).ok_or(DebugSetupError::NotEnabled)
    })
}

/// Called by the synchronous exception handler: `true` when the exception was a debug
/// exception the monitor handled (the frame then holds the ELR and SPSR to return with).
pub(super) fn handle(state: &mut RegisterState) -> bool {
    let esr = ESR_EL1.get();
    if !(0x30..=0x35).contains(&Syndrome(esr).ec()) {
        return false;
    }
    let Some(slot) = MONITORS.get(this_core()) else {
        return false;
    };
    // SAFETY: this core's slot, from its debug exception handler (see `Slot`).
    let Some(monitor) = (unsafe { &mut *slot.0.get() }).get_mut() else {
        return false;
    };
    // SAFETY: ELR is the address of the instruction that raised the exception (a breakpoint
    // or watchpoint) or of the next one to run (a step); either was fetched or is about to be,
    // so it is mapped and readable at EL1.
    let instruction = unsafe { core::ptr::read_volatile(state.elr as *const u32) };
    let context = DebugExceptionContext {
        esr,
        far: FAR_EL1.get(),
        elr: state.elr as u64,
        spsr: state.spsr,
        instruction: Some(instruction),
    };
    match monitor.on_debug_exception(&context) {
        Ok(resume) => {
            state.elr = resume.elr as usize;
            state.spsr = resume.spsr;
            true
        }
        Err(unclaimed) => {
            crate::println!("*** debug exception not claimed: {unclaimed}");
            false
        }
    }
}
