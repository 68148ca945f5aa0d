//! The debug-exception state machine: what the runtime's exception handler calls when a
//! breakpoint, watchpoint or software-step exception arrives.
//!
//! # Stepping past a hit
//! Breakpoint and watchpoint exceptions return to the instruction that caused them (ELR_EL1),
//! which would fire again at once. The monitor therefore
//! 1. reports the hit (counts it, notifies the probe point, runs the PC events),
//! 2. disables the comparator that fired, arms software step (MDSCR_EL1.SS = 1) and asks the
//!    handler to return with SPSR_EL1.SS = 1 and IRQ/FIQ masked, so exactly that one
//!    instruction runs before a software-step exception is taken,
//! 3. on the step exception, re-enables every comparator it disabled, disarms the step and
//!    restores the interrupt mask bits of the interrupted code.
//!
//! Masking IRQ and FIQ for the stepped instruction keeps an interrupt from being taken between
//! the return and the step (the step would then complete inside the interrupt handler, whose
//! own instructions would run with the comparator off). If the stepped instruction itself hits
//! another comparator, that hit is reported and its comparator joins the ones re-enabled after
//! the step.
//!
//! ```text
//!          on_breakpoint / on_watchpoint            on_breakpoint / on_watchpoint
//!  Idle ----------------------------------> Stepping <------------------------------+
//!   ^     (disable comparator, SS = 1)         |  (disable that one too)            |
//!   +------------------------------------------+------------------------------------+
//!          on_step (re-enable all, SS = 0, restore SPSR.I/F)
//! ```

use core::fmt;

use super::backend::{DebugBackend, MAX_COMPARATORS};
use super::comparators::{Breakpoint, HwDebug, HwDebugError, Watchpoint};
use super::syndrome::{DebugEvent, data_access_size};
use crate::probe::listeners::{AccessKind, MemAccess};
use crate::probe::{PcEvent, PcEventError, PcEventQueue, ProbePoint};

/// SPSR_ELx.SS, the software step bit of the saved PSTATE.
pub const SPSR_SS: u64 = 1 << 21;
/// SPSR_ELx.I and F, the IRQ and FIQ mask bits of the saved PSTATE.
pub const SPSR_IRQ_FIQ: u64 = (1 << 7) | (1 << 6);

/// The argument of the breakpoint probe point and of PC events run by the monitor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BreakpointHit {
    /// The instruction address (ELR_EL1).
    pub pc: u64,
    /// The comparator that fired.
    pub comparator: u8,
    /// Hits of this breakpoint so far, this one included.
    pub hits: u64,
}

/// How the exception handler returns: the values to write back to ELR_EL1 and SPSR_EL1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Resume {
    /// ELR_EL1 for the `eret`.
    pub elr: u64,
    /// SPSR_EL1 for the `eret`.
    pub spsr: u64,
}

/// A debug exception the monitor does not own; the handler reports it as unexpected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Unclaimed {
    /// ESR_EL1 is not a debug exception (or is `brk`, which the monitor does not handle).
    NotMonitored {
        /// The exception class, ESR_EL1.EC.
        ec: u8,
    },
    /// A breakpoint exception at an address with no installed breakpoint.
    NoBreakpointAt {
        /// ELR_EL1.
        pc: u64,
    },
    /// A watchpoint exception no installed watchpoint explains.
    NoWatchpointFor {
        /// FAR_EL1.
        address: u64,
    },
    /// A software-step exception while the monitor was not stepping.
    UnexpectedStep {
        /// ELR_EL1.
        pc: u64,
    },
    /// A debug register access failed while handling the exception.
    Register(HwDebugError),
}

impl fmt::Display for Unclaimed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotMonitored { ec } => write!(f, "exception class {ec:#04x} is not monitored"),
            Self::NoBreakpointAt { pc } => {
                write!(f, "breakpoint exception at {pc:#x}, none installed there")
            }
            Self::NoWatchpointFor { address } => {
                write!(
                    f,
                    "watchpoint exception for {address:#x}, no watchpoint covers it"
                )
            }
            Self::UnexpectedStep { pc } => write!(f, "software step at {pc:#x} while not stepping"),
            Self::Register(e) => write!(f, "{e}"),
        }
    }
}

impl From<HwDebugError> for Unclaimed {
    fn from(e: HwDebugError) -> Self {
        Self::Register(e)
    }
}

/// What the monitor needs from the exception handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DebugExceptionContext {
    /// ESR_EL1.
    pub esr: u64,
    /// FAR_EL1 (meaningful for watchpoints).
    pub far: u64,
    /// ELR_EL1 (the saved one, from the exception frame).
    pub elr: u64,
    /// SPSR_EL1 (the saved one, from the exception frame).
    pub spsr: u64,
    /// The instruction word at ELR_EL1, read by the handler, for the access size of a
    /// watchpoint hit (`None`: size reported as 0, unknown).
    pub instruction: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StepState {
    Idle,
    Stepping {
        breakpoints: u16,
        watchpoints: u16,
        saved_irq_fiq: u64,
    },
}

/// Hardware breakpoints and watchpoints as probe points, with the step-past state machine.
///
/// `L` is the listener capacity of each probe point, `E` the PC event capacity.
pub struct DebugMonitor<'a, B: DebugBackend, const L: usize = 4, const E: usize = 8> {
    debug: HwDebug<B>,
    breakpoint_hits: ProbePoint<'a, BreakpointHit, L>,
    watchpoint_hits: ProbePoint<'a, MemAccess, L>,
    pc_events: PcEventQueue<'a, BreakpointHit, E>,
    breakpoint_counts: [u64; MAX_COMPARATORS],
    watchpoint_counts: [u64; MAX_COMPARATORS],
    /// Comparators installed by `schedule` (removed with their last PC event).
    event_breakpoints: u16,
    step: StepState,
    ticks: u64,
}

impl<'a, B: DebugBackend, const L: usize, const E: usize> DebugMonitor<'a, B, L, E> {
    /// A monitor over `debug`, with no listener and no PC event.
    pub fn new(debug: HwDebug<B>) -> Self {
        Self {
            debug,
            breakpoint_hits: ProbePoint::new(),
            watchpoint_hits: ProbePoint::new(),
            pc_events: PcEventQueue::new(),
            breakpoint_counts: [0; MAX_COMPARATORS],
            watchpoint_counts: [0; MAX_COMPARATORS],
            event_breakpoints: 0,
            step: StepState::Idle,
            ticks: 0,
        }
    }

    /// The comparators: counts, installed breakpoints and watchpoints, enabling debug
    /// exceptions. Install and remove through the monitor, which keeps the hit counts.
    pub fn debug(&self) -> &HwDebug<B> {
        &self.debug
    }

    /// Notified at every breakpoint hit, before the step past it.
    pub fn breakpoint_point(&self) -> &ProbePoint<'a, BreakpointHit, L> {
        &self.breakpoint_hits
    }

    /// Notified at every watchpoint hit with the access: FAR as address, the decoded size (0
    /// when the instruction could not be decoded or is a cache maintenance instruction), read
    /// or write from ESR.WnR, ELR as PC and the monitor's hit sequence number as tick. The
    /// memory-access listeners (`StackDistance`, `MemTrace`) attach here unchanged.
    pub fn watchpoint_point(&self) -> &ProbePoint<'a, MemAccess, L> {
        &self.watchpoint_hits
    }

    /// Hits of `breakpoint` since it was installed.
    pub fn breakpoint_hits(&self, breakpoint: Breakpoint) -> u64 {
        self.breakpoint_counts
            .get(usize::from(breakpoint.comparator()))
            .copied()
            .unwrap_or(0)
    }

    /// Hits of `watchpoint`.
    pub fn watchpoint_hits(&self, watchpoint: Watchpoint) -> u64 {
        self.watchpoint_counts
            .get(usize::from(watchpoint.comparator()))
            .copied()
            .unwrap_or(0)
    }

    /// Installs a breakpoint and resets its hit count.
    pub fn install_breakpoint(&mut self, address: u64) -> Result<Breakpoint, HwDebugError> {
        let breakpoint = self.debug.install_breakpoint(address)?;
        if let Some(count) = self
            .breakpoint_counts
            .get_mut(usize::from(breakpoint.comparator()))
        {
            *count = 0;
        }
        Ok(breakpoint)
    }

    /// Installs a watchpoint and resets its hit count.
    pub fn install_watchpoint(
        &mut self,
        address: u64,
        len: u64,
        kind: super::WatchKind,
    ) -> Result<Watchpoint, HwDebugError> {
        let watchpoint = self.debug.install_watchpoint(address, len, kind)?;
        if let Some(count) = self
            .watchpoint_counts
            .get_mut(usize::from(watchpoint.comparator()))
        {
            *count = 0;
        }
        Ok(watchpoint)
    }

    /// Removes a breakpoint (also one placed for PC events; those stay scheduled but no longer
    /// run until a breakpoint is back at their address).
    pub fn remove_breakpoint(&mut self, breakpoint: Breakpoint) -> Result<(), HwDebugError> {
        self.debug.remove_breakpoint(breakpoint)?;
        self.event_breakpoints &= !(1u16 << breakpoint.comparator());
        Ok(())
    }

    /// Removes a watchpoint.
    pub fn remove_watchpoint(&mut self, watchpoint: Watchpoint) -> Result<(), HwDebugError> {
        self.debug.remove_watchpoint(watchpoint)
    }

    /// Schedules a PC event on real code: installs a breakpoint at `event.pc()` unless one is
    /// there already. The event runs at every hit, after the probe point's listeners; when it
    /// returns [`PcEventAction::Remove`](crate::probe::PcEventAction::Remove) and it was the
    /// last event at that address, the breakpoint is removed too.
    pub fn schedule(&mut self, event: &'a dyn PcEvent<BreakpointHit>) -> Result<(), MonitorError> {
        let pc = event.pc();
        let installed_here = match self.debug.breakpoint_at(pc) {
            Some(_) => None,
            None => Some(self.install_breakpoint(pc)?),
        };
        if let Err(e) = self.pc_events.schedule(event) {
            if let Some(breakpoint) = installed_here {
                self.debug.remove_breakpoint(breakpoint)?;
            }
            return Err(e.into());
        }
        if let Some(breakpoint) = installed_here {
            self.event_breakpoints |= 1 << breakpoint.comparator();
        }
        Ok(())
    }

    /// Removes every entry of `event`; the breakpoint goes when no event is left at its address.
    pub fn deschedule(&mut self, event: &dyn PcEvent<BreakpointHit>) -> Result<(), MonitorError> {
        let pc = event.pc();
        self.pc_events.remove(event)?;
        self.release_breakpoint_if_unused(pc)?;
        Ok(())
    }

    fn release_breakpoint_if_unused(&mut self, pc: u64) -> Result<(), HwDebugError> {
        if !self.pc_events.equal_range(pc).is_empty() {
            return Ok(());
        }
        if let Some(breakpoint) = self.debug.breakpoint_at(pc) {
            let bit = 1u16 << breakpoint.comparator();
            if self.event_breakpoints & bit != 0 {
                self.event_breakpoints &= !bit;
                self.debug.remove_breakpoint(breakpoint)?;
            }
        }
        Ok(())
    }

    /// Whether a step past a hit is in progress.
    pub fn is_stepping(&self) -> bool {
        self.step != StepState::Idle
    }

    /// The one entry point for the synchronous exception handler: dispatches on ESR_EL1.EC to
    /// [`on_breakpoint`](Self::on_breakpoint), [`on_watchpoint`](Self::on_watchpoint) or
    /// [`on_step`](Self::on_step).
    pub fn on_debug_exception(&mut self, ctx: &DebugExceptionContext) -> Result<Resume, Unclaimed> {
        match DebugEvent::from_esr(ctx.esr) {
            Some(DebugEvent::Breakpoint { .. }) => self.on_breakpoint(ctx.elr, ctx.spsr),
            Some(DebugEvent::Watchpoint {
                write,
                cache_maintenance,
                ..
            }) => {
                let size = if cache_maintenance {
                    None
                } else {
                    ctx.instruction.and_then(data_access_size)
                };
                self.on_watchpoint(ctx.far, size, write, ctx.elr, ctx.spsr)
            }
            Some(DebugEvent::SoftwareStep { .. }) => self.on_step(ctx.elr, ctx.spsr),
            Some(DebugEvent::Brk { .. }) | None => Err(Unclaimed::NotMonitored {
                ec: ((ctx.esr >> 26) & 0x3F) as u8,
            }),
        }
    }

    /// A breakpoint exception at `elr`: count, notify, run PC events, then step past.
    pub fn on_breakpoint(&mut self, elr: u64, spsr: u64) -> Result<Resume, Unclaimed> {
        let breakpoint = self
            .debug
            .breakpoint_at(elr)
            .ok_or(Unclaimed::NoBreakpointAt { pc: elr })?;
        let index = usize::from(breakpoint.comparator());
        let hits = self.breakpoint_counts.get_mut(index).map_or(0, |count| {
            *count = count.saturating_add(1);
            *count
        });
        let mut hit = BreakpointHit {
            pc: elr,
            comparator: breakpoint.comparator(),
            hits,
        };
        self.breakpoint_hits.notify(&hit);
        self.pc_events.service(elr, &mut hit);
        let bit = 1u16 << index;
        if self.event_breakpoints & bit != 0 && self.pc_events.equal_range(elr).is_empty() {
            // The last PC event here removed itself: so does the breakpoint it needed, and the
            // instruction runs normally without a step.
            self.event_breakpoints &= !bit;
            self.debug.remove_breakpoint(breakpoint)?;
            return Ok(Resume { elr, spsr });
        }
        self.debug.set_breakpoint_enabled(breakpoint, false)?;
        let spsr = self.begin_step(spsr, bit, 0)?;
        Ok(Resume { elr, spsr })
    }

    /// A watchpoint exception: the instruction at `elr` accessed `far` (`size` bytes when
    /// known, a write when `write`). Counts, notifies the memory-access probe point, then steps
    /// past the instruction.
    pub fn on_watchpoint(
        &mut self,
        far: u64,
        size: Option<u32>,
        write: bool,
        elr: u64,
        spsr: u64,
    ) -> Result<Resume, Unclaimed> {
        let watchpoint = self
            .debug
            .watchpoint_for(far, size.map(u64::from))
            .ok_or(Unclaimed::NoWatchpointFor { address: far })?;
        let index = usize::from(watchpoint.comparator());
        if let Some(count) = self.watchpoint_counts.get_mut(index) {
            *count = count.saturating_add(1);
        }
        self.ticks = self.ticks.wrapping_add(1);
        let access = MemAccess {
            tick: self.ticks,
            pc: elr,
            address: far,
            size: size.unwrap_or(0),
            kind: if write {
                AccessKind::Write
            } else {
                AccessKind::Read
            },
        };
        self.watchpoint_hits.notify(&access);
        self.debug.set_watchpoint_enabled(watchpoint, false)?;
        let spsr = self.begin_step(spsr, 0, 1 << index)?;
        Ok(Resume { elr, spsr })
    }

    /// A software-step exception: the instruction stepped past a hit has run; re-enable the
    /// comparators, disarm the step, restore the interrupt mask of the interrupted code.
    pub fn on_step(&mut self, elr: u64, spsr: u64) -> Result<Resume, Unclaimed> {
        let StepState::Stepping {
            breakpoints,
            watchpoints,
            saved_irq_fiq,
        } = self.step
        else {
            return Err(Unclaimed::UnexpectedStep { pc: elr });
        };
        self.step = StepState::Idle;
        self.debug.set_software_step(false)?;
        for breakpoint in self.debug.breakpoints() {
            if breakpoints & (1 << breakpoint.comparator()) != 0 {
                self.debug.set_breakpoint_enabled(breakpoint, true)?;
            }
        }
        for watchpoint in self.debug.watchpoints() {
            if watchpoints & (1 << watchpoint.comparator()) != 0 {
                self.debug.set_watchpoint_enabled(watchpoint, true)?;
            }
        }
        let spsr = (spsr & !(SPSR_SS | SPSR_IRQ_FIQ)) | saved_irq_fiq;
        Ok(Resume { elr, spsr })
    }

    /// Arms the step (or widens one in progress) and returns the SPSR to return with.
    fn begin_step(
        &mut self,
        spsr: u64,
        breakpoints: u16,
        watchpoints: u16,
    ) -> Result<u64, Unclaimed> {
        self.step = match self.step {
            StepState::Idle => {
                self.debug.set_software_step(true)?;
                StepState::Stepping {
                    breakpoints,
                    watchpoints,
                    saved_irq_fiq: spsr & SPSR_IRQ_FIQ,
                }
            }
            // A hit by the stepped instruction itself: the interrupted code's mask was saved
            // by the first hit, the SPSR seen now already has IRQ/FIQ masked by us.
            StepState::Stepping {
                breakpoints: b,
                watchpoints: w,
                saved_irq_fiq,
            } => StepState::Stepping {
                breakpoints: b | breakpoints,
                watchpoints: w | watchpoints,
                saved_irq_fiq,
            },
        };
        Ok(spsr | SPSR_SS | SPSR_IRQ_FIQ)
    }
}

/// Why [`DebugMonitor::schedule`] or [`DebugMonitor::deschedule`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MonitorError {
    /// No comparator (or another comparator error).
    Comparator(HwDebugError),
    /// The PC event queue is full, or the event is not scheduled.
    PcEvent(PcEventError),
}

impl From<HwDebugError> for MonitorError {
    fn from(e: HwDebugError) -> Self {
        Self::Comparator(e)
    }
}

impl From<PcEventError> for MonitorError {
    fn from(e: PcEventError) -> Self {
        Self::PcEvent(e)
    }
}

impl fmt::Display for MonitorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Comparator(e) => write!(f, "{e}"),
            Self::PcEvent(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for MonitorError {}
impl core::error::Error for Unclaimed {}
