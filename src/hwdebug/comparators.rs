//! Comparator management: hardware breakpoints and watchpoints over a [`DebugBackend`].

use core::fmt;

use tock_registers::interfaces::{ReadWriteable, Writeable};

use super::backend::{
    ComparatorCounts, DebugAccessError, DebugBackend, DebugRegister, MAX_COMPARATORS,
};
use super::regs::{DBGBCR_EL1, DBGWCR_EL1, MDSCR_EL1, OSLAR_EL1};
use super::watch_range::{WatchRange, WatchRangeError};

/// Which data accesses a watchpoint reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WatchKind {
    /// Loads only.
    Read,
    /// Stores only.
    Write,
    /// Loads and stores.
    ReadWrite,
}

impl WatchKind {
    fn lsc(self) -> u64 {
        match self {
            Self::Read => 0b01,
            Self::Write => 0b10,
            Self::ReadWrite => 0b11,
        }
    }
}

/// An installed hardware breakpoint (comparator number and address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Breakpoint {
    index: u8,
    address: u64,
}

impl Breakpoint {
    /// The comparator, n of DBGBCR&lt;n&gt;_EL1.
    pub fn comparator(&self) -> u8 {
        self.index
    }
    /// The instruction address.
    pub fn address(&self) -> u64 {
        self.address
    }
}

/// An installed hardware watchpoint (comparator number, range and kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Watchpoint {
    index: u8,
    range: WatchRange,
    kind: WatchKind,
}

impl Watchpoint {
    /// The comparator, n of DBGWCR&lt;n&gt;_EL1.
    pub fn comparator(&self) -> u8 {
        self.index
    }
    /// The watched range.
    pub fn range(&self) -> WatchRange {
        self.range
    }
    /// The accesses reported.
    pub fn kind(&self) -> WatchKind {
        self.kind
    }
}

/// Why a comparator operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HwDebugError {
    /// Every breakpoint comparator is in use.
    NoFreeBreakpoint {
        /// Comparators this core implements.
        implemented: u8,
    },
    /// Every watchpoint comparator is in use.
    NoFreeWatchpoint {
        /// Comparators this core implements.
        implemented: u8,
    },
    /// A breakpoint address that is not 4-byte aligned (A64 instructions are words).
    MisalignedBreakpoint {
        /// The address.
        address: u64,
    },
    /// The range cannot be watched by one comparator.
    WatchRange(WatchRangeError),
    /// The handle does not name an installed breakpoint or watchpoint (removed already).
    NotInstalled,
    /// The back end refused a register access.
    Access(DebugAccessError),
}

impl From<DebugAccessError> for HwDebugError {
    fn from(e: DebugAccessError) -> Self {
        Self::Access(e)
    }
}

impl From<WatchRangeError> for HwDebugError {
    fn from(e: WatchRangeError) -> Self {
        Self::WatchRange(e)
    }
}

impl fmt::Display for HwDebugError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoFreeBreakpoint { implemented } => write!(
                f,
                "all {implemented} hardware breakpoint comparators are in use"
            ),
            Self::NoFreeWatchpoint { implemented } => write!(
                f,
                "all {implemented} hardware watchpoint comparators are in use"
            ),
            Self::MisalignedBreakpoint { address } => {
                write!(f, "breakpoint address {address:#x} is not 4-byte aligned")
            }
            Self::WatchRange(e) => write!(f, "{e}"),
            Self::NotInstalled => f.write_str("no such breakpoint or watchpoint is installed"),
            Self::Access(e) => write!(f, "debug register access refused: {e}"),
        }
    }
}

/// The breakpoints and watchpoints of one core.
///
/// The comparator counts come from ID_AA64DFR0_EL1 through the back end, never from a
/// constant. A new `HwDebug` disables every implemented comparator, so state left by an earlier
/// program cannot fire.
pub struct HwDebug<B: DebugBackend> {
    backend: B,
    counts: ComparatorCounts,
    breakpoints: [Option<Breakpoint>; MAX_COMPARATORS],
    watchpoints: [Option<Watchpoint>; MAX_COMPARATORS],
}

impl<B: DebugBackend> HwDebug<B> {
    /// Takes over the debug unit behind `backend`: reads the counts and disables every
    /// comparator.
    pub fn new(backend: B) -> Result<Self, HwDebugError> {
        let counts = backend.counts();
        for n in 0..counts.breakpoints {
            backend.write(DebugRegister::Bcr(n), 0)?;
        }
        for n in 0..counts.watchpoints {
            backend.write(DebugRegister::Wcr(n), 0)?;
        }
        backend.isb();
        Ok(Self {
            backend,
            counts,
            breakpoints: [None; MAX_COMPARATORS],
            watchpoints: [None; MAX_COMPARATORS],
        })
    }

    /// The back end.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The comparator counts read from ID_AA64DFR0_EL1.
    pub fn counts(&self) -> ComparatorCounts {
        self.counts
    }

    /// Unlocks the OS lock and sets MDSCR_EL1.MDE and KDE, so breakpoints, watchpoints and
    /// software step raise exceptions at EL1. PSTATE.D must also be clear (`msr daifclr, #8`),
    /// which is the runtime's part.
    pub fn enable_debug_exceptions(&self) -> Result<(), HwDebugError> {
        let oslar = self
            .backend
            .view::<OSLAR_EL1::Register>(DebugRegister::Oslar);
        oslar.write(OSLAR_EL1::OSLK::Unlocked);
        let mdscr = self
            .backend
            .view::<MDSCR_EL1::Register>(DebugRegister::Mdscr);
        mdscr.modify(MDSCR_EL1::MDE::SET + MDSCR_EL1::KDE::SET);
        self.backend.isb();
        Self::checked(oslar.fault().or(mdscr.fault()))
    }

    /// Clears MDSCR_EL1.MDE, KDE and SS: no debug exception (other than `brk`) is taken.
    pub fn disable_debug_exceptions(&self) -> Result<(), HwDebugError> {
        let mdscr = self
            .backend
            .view::<MDSCR_EL1::Register>(DebugRegister::Mdscr);
        mdscr.modify(MDSCR_EL1::MDE::CLEAR + MDSCR_EL1::KDE::CLEAR + MDSCR_EL1::SS::CLEAR);
        self.backend.isb();
        Self::checked(mdscr.fault())
    }

    fn checked(fault: Option<DebugAccessError>) -> Result<(), HwDebugError> {
        fault.map_or(Ok(()), |e| Err(HwDebugError::Access(e)))
    }

    /// Installs a breakpoint on the instruction at `address` (EL0 and EL1 execution).
    pub fn install_breakpoint(&mut self, address: u64) -> Result<Breakpoint, HwDebugError> {
        if address & 3 != 0 {
            return Err(HwDebugError::MisalignedBreakpoint { address });
        }
        let implemented = self.counts.breakpoints;
        let index = free_slot(&self.breakpoints, implemented)
            .ok_or(HwDebugError::NoFreeBreakpoint { implemented })?;
        let breakpoint = Breakpoint { index, address };
        self.backend.write(DebugRegister::Bvr(index), address)?;
        self.write_bcr(index, true)?;
        self.backend.isb();
        if let Some(slot) = self.breakpoints.get_mut(usize::from(index)) {
            *slot = Some(breakpoint);
        }
        Ok(breakpoint)
    }

    /// Removes a breakpoint (its comparator becomes free).
    pub fn remove_breakpoint(&mut self, breakpoint: Breakpoint) -> Result<(), HwDebugError> {
        let slot = self
            .breakpoints
            .get_mut(usize::from(breakpoint.index))
            .filter(|slot| **slot == Some(breakpoint))
            .ok_or(HwDebugError::NotInstalled)?;
        *slot = None;
        self.backend
            .write(DebugRegister::Bcr(breakpoint.index), 0)?;
        self.backend.isb();
        Ok(())
    }

    /// Installs a watchpoint on `len` bytes at `address` for the accesses of `kind` (EL0 and
    /// EL1 accesses).
    pub fn install_watchpoint(
        &mut self,
        address: u64,
        len: u64,
        kind: WatchKind,
    ) -> Result<Watchpoint, HwDebugError> {
        let range = WatchRange::new(address, len)?;
        let implemented = self.counts.watchpoints;
        let index = free_slot(&self.watchpoints, implemented)
            .ok_or(HwDebugError::NoFreeWatchpoint { implemented })?;
        let watchpoint = Watchpoint { index, range, kind };
        self.backend.write(DebugRegister::Wvr(index), range.wvr())?;
        self.write_wcr(&watchpoint, true)?;
        self.backend.isb();
        if let Some(slot) = self.watchpoints.get_mut(usize::from(index)) {
            *slot = Some(watchpoint);
        }
        Ok(watchpoint)
    }

    /// Removes a watchpoint (its comparator becomes free).
    pub fn remove_watchpoint(&mut self, watchpoint: Watchpoint) -> Result<(), HwDebugError> {
        let slot = self
            .watchpoints
            .get_mut(usize::from(watchpoint.index))
            .filter(|slot| **slot == Some(watchpoint))
            .ok_or(HwDebugError::NotInstalled)?;
        *slot = None;
        self.backend
            .write(DebugRegister::Wcr(watchpoint.index), 0)?;
        self.backend.isb();
        Ok(())
    }

    /// The installed breakpoints.
    pub fn breakpoints(&self) -> impl Iterator<Item = Breakpoint> + '_ {
        self.breakpoints.iter().flatten().copied()
    }

    /// The installed watchpoints.
    pub fn watchpoints(&self) -> impl Iterator<Item = Watchpoint> + '_ {
        self.watchpoints.iter().flatten().copied()
    }

    /// The installed breakpoint on the instruction at `pc`.
    pub fn breakpoint_at(&self, pc: u64) -> Option<Breakpoint> {
        self.breakpoints().find(|b| b.address == pc & !3)
    }

    /// The installed watchpoint a watchpoint exception with fault address `far` (and, when
    /// known, access size `size`) belongs to: first one whose range the access overlaps,
    /// otherwise one whose aligned block contains `far` (the architecture lets FAR be any
    /// address of the access, rounded within that block).
    pub fn watchpoint_for(&self, far: u64, size: Option<u64>) -> Option<Watchpoint> {
        let size = size.unwrap_or(1);
        self.watchpoints()
            .find(|w| w.range.overlaps(far, size))
            .or_else(|| self.watchpoints().find(|w| w.range.block_contains(far)))
    }

    /// Enables or disables one breakpoint comparator without forgetting it (for stepping past).
    pub fn set_breakpoint_enabled(
        &self,
        breakpoint: Breakpoint,
        enabled: bool,
    ) -> Result<(), HwDebugError> {
        self.write_bcr(breakpoint.index, enabled)?;
        self.backend.isb();
        Ok(())
    }

    /// Enables or disables one watchpoint comparator without forgetting it (for stepping past).
    pub fn set_watchpoint_enabled(
        &self,
        watchpoint: Watchpoint,
        enabled: bool,
    ) -> Result<(), HwDebugError> {
        self.write_wcr(&watchpoint, enabled)?;
        self.backend.isb();
        Ok(())
    }

    /// Sets or clears MDSCR_EL1.SS (software step).
    pub fn set_software_step(&self, enabled: bool) -> Result<(), HwDebugError> {
        let mdscr = self
            .backend
            .view::<MDSCR_EL1::Register>(DebugRegister::Mdscr);
        mdscr.modify(if enabled {
            MDSCR_EL1::SS::SET
        } else {
            MDSCR_EL1::SS::CLEAR
        });
        self.backend.isb();
        Self::checked(mdscr.fault())
    }

    fn write_bcr(&self, index: u8, enabled: bool) -> Result<(), HwDebugError> {
        let bcr = self
            .backend
            .view::<DBGBCR_EL1::Register>(DebugRegister::Bcr(index));
        bcr.write(
            DBGBCR_EL1::BT::UnlinkedAddressMatch
                + DBGBCR_EL1::BAS::A64Instruction
                + DBGBCR_EL1::PMC::El0AndEl1
                + DBGBCR_EL1::E.val(u64::from(enabled)),
        );
        Self::checked(bcr.fault())
    }

    fn write_wcr(&self, watchpoint: &Watchpoint, enabled: bool) -> Result<(), HwDebugError> {
        let wcr = self
            .backend
            .view::<DBGWCR_EL1::Register>(DebugRegister::Wcr(watchpoint.index));
        wcr.write(
            DBGWCR_EL1::MASK.val(u64::from(watchpoint.range.mask()))
                + DBGWCR_EL1::BAS.val(u64::from(watchpoint.range.bas()))
                + DBGWCR_EL1::LSC.val(watchpoint.kind.lsc())
                + DBGWCR_EL1::PAC::El0AndEl1
                + DBGWCR_EL1::E.val(u64::from(enabled)),
        );
        Self::checked(wcr.fault())
    }
}

fn free_slot<T>(slots: &[Option<T>; MAX_COMPARATORS], implemented: u8) -> Option<u8> {
    (0..implemented).find(|&n| matches!(slots.get(usize::from(n)), Some(None)))
}

impl core::error::Error for HwDebugError {}
