//! An emulated self-hosted debug unit: the registers as the architecture defines them, and
//! the comparator match rules, so the driver and the debug-exception state machine can be
//! tested on the host.
//!
//! Modelled: the number of breakpoint and watchpoint comparators (ID_AA64DFR0_EL1), UNDEFINED
//! accesses past them, RES0 bits that read as zero, the write-only OSLAR_EL1 and read-only
//! OSLSR_EL1 pair (the OS lock is locked out of reset, as on a cold reset of the real core),
//! and the conditions under which an instruction address or a data access raises a debug
//! exception from EL1: OS lock unlocked, MDSCR_EL1.MDE and KDE set, PSTATE.D clear, the
//! comparator enabled with the EL1 privilege bit, address match (BAS for breakpoints must be
//! 0b1111; for watchpoints any BAS byte or the MASKed block) and, for watchpoints, the
//! load/store control.

use core::cell::Cell;

use tock_registers::LocalRegisterCopy;

use super::backend::{DebugAccessError, DebugBackend, DebugRegister, MAX_COMPARATORS};
use super::regs::{DBGBCR_EL1, DBGWCR_EL1, MDSCR_EL1};

/// Writable bits of DBGBCR (BT, LBN, SSC, HMC, BAS, PMC, E).
const BCR_WRITABLE: u64 = 0x00FF_E1E7;
/// Writable bits of DBGWCR (MASK, WT, LBN, SSC, HMC, BAS, LSC, PAC, E).
const WCR_WRITABLE: u64 = 0x1F1F_FFFF;
/// Writable bits of DBGBVR/DBGWVR: the address without bits \[1:0\].
const VR_WRITABLE: u64 = !3;
/// Writable bits of MDSCR_EL1 that pmprobe relies on (SS, TDCC, KDE, MDE).
const MDSCR_WRITABLE: u64 = (1 << 0) | (1 << 12) | (1 << 13) | (1 << 15);
/// OSLSR_EL1.OSLM = 0b10: the OS lock is implemented (read back in every OSLSR value).
const OSLSR_OSLM_IMPLEMENTED: u64 = 1 << 3;
/// ID_AA64DFR0_EL1.DebugVer = 0b0110 (Armv8.0 debug), PMUVer 1 as on QEMU's cortex-a57.
const DFR0_BASE: u64 = 0x0000_0000_0000_0106;

/// A software model of the self-hosted debug unit of one core.
pub struct EmulatedDebug {
    id_aa64dfr0: u64,
    breakpoints: u8,
    watchpoints: u8,
    bvr: [Cell<u64>; MAX_COMPARATORS],
    bcr: [Cell<u64>; MAX_COMPARATORS],
    wvr: [Cell<u64>; MAX_COMPARATORS],
    wcr: [Cell<u64>; MAX_COMPARATORS],
    mdscr: Cell<u64>,
    os_locked: Cell<bool>,
    pstate_d: Cell<bool>,
}

impl EmulatedDebug {
    /// A debug unit with `breakpoints` (1..=16) and `watchpoints` (1..=16) comparators, of which
    /// `context_aware` (1..=breakpoints) can compare contexts; values outside those ranges are
    /// clamped into them (ID_AA64DFR0_EL1 cannot describe others).
    pub fn new(breakpoints: u8, watchpoints: u8, context_aware: u8) -> Self {
        let breakpoints = breakpoints.clamp(1, MAX_COMPARATORS as u8);
        let watchpoints = watchpoints.clamp(1, MAX_COMPARATORS as u8);
        let context_aware = context_aware.clamp(1, breakpoints);
        let id_aa64dfr0 = DFR0_BASE
            | (u64::from(breakpoints - 1) << 12)
            | (u64::from(watchpoints - 1) << 20)
            | (u64::from(context_aware - 1) << 28);
        Self {
            id_aa64dfr0,
            breakpoints,
            watchpoints,
            bvr: [const { Cell::new(0) }; MAX_COMPARATORS],
            bcr: [const { Cell::new(0) }; MAX_COMPARATORS],
            wvr: [const { Cell::new(0) }; MAX_COMPARATORS],
            wcr: [const { Cell::new(0) }; MAX_COMPARATORS],
            mdscr: Cell::new(0),
            os_locked: Cell::new(true),
            pstate_d: Cell::new(false),
        }
    }

    /// QEMU's cortex-a57: 6 breakpoints (2 context-aware) and 4 watchpoints.
    pub fn qemu_cortex_a57() -> Self {
        Self::new(6, 4, 2)
    }

    /// Sets PSTATE.D, the debug exception mask of the (modelled) code running at EL1.
    pub fn set_debug_masked(&self, masked: bool) {
        self.pstate_d.set(masked);
    }

    /// Whether breakpoint and watchpoint exceptions can be taken from EL1 at all.
    pub fn debug_exceptions_enabled(&self) -> bool {
        let mdscr = LocalRegisterCopy::<u64, MDSCR_EL1::Register>::new(self.mdscr.get());
        !self.os_locked.get()
            && !self.pstate_d.get()
            && mdscr.is_set(MDSCR_EL1::MDE)
            && mdscr.is_set(MDSCR_EL1::KDE)
    }

    /// Whether software step is armed (MDSCR_EL1.SS), with debug exceptions enabled.
    pub fn software_step_armed(&self) -> bool {
        let mdscr = LocalRegisterCopy::<u64, MDSCR_EL1::Register>::new(self.mdscr.get());
        // Software step needs KDE at EL1 and the OS lock unlocked, but not MDE.
        !self.os_locked.get()
            && !self.pstate_d.get()
            && mdscr.is_set(MDSCR_EL1::SS)
            && mdscr.is_set(MDSCR_EL1::KDE)
    }

    /// The lowest-numbered breakpoint that fires when EL1 executes the instruction at `pc`.
    pub fn breakpoint_hit(&self, pc: u64) -> Option<u8> {
        if !self.debug_exceptions_enabled() {
            return None;
        }
        (0..self.breakpoints).find(|&n| {
            let index = usize::from(n);
            let (Some(bcr), Some(bvr)) = (self.bcr.get(index), self.bvr.get(index)) else {
                return false;
            };
            let bcr = LocalRegisterCopy::<u64, DBGBCR_EL1::Register>::new(bcr.get());
            bcr.is_set(DBGBCR_EL1::E)
                && bcr.read(DBGBCR_EL1::BT) == 0
                && bcr.read(DBGBCR_EL1::BAS) == 0b1111
                && bcr.read(DBGBCR_EL1::PMC) & 0b01 != 0
                && bvr.get() & !3 == pc & !3
        })
    }

    /// The lowest-numbered watchpoint that fires when EL1 makes a `size`-byte access at
    /// `address` (a store when `write`).
    pub fn watchpoint_hit(&self, address: u64, size: u64, write: bool) -> Option<u8> {
        if !self.debug_exceptions_enabled() {
            return None;
        }
        (0..self.watchpoints).find(|&n| {
            let index = usize::from(n);
            let (Some(wcr), Some(wvr)) = (self.wcr.get(index), self.wvr.get(index)) else {
                return false;
            };
            let wcr = LocalRegisterCopy::<u64, DBGWCR_EL1::Register>::new(wcr.get());
            let lsc = wcr.read(DBGWCR_EL1::LSC);
            let kind_matches = if write {
                lsc & 0b10 != 0
            } else {
                lsc & 0b01 != 0
            };
            wcr.is_set(DBGWCR_EL1::E)
                && wcr.read(DBGWCR_EL1::PAC) & 0b01 != 0
                && kind_matches
                && Self::watch_matches(wcr, wvr.get(), address, size)
        })
    }

    fn watch_matches(
        wcr: LocalRegisterCopy<u64, DBGWCR_EL1::Register>,
        wvr: u64,
        address: u64,
        size: u64,
    ) -> bool {
        let mask = wcr.read(DBGWCR_EL1::MASK);
        let size = size.max(1);
        if mask >= 3 {
            let block = !((1u64 << mask) - 1);
            let last = address.saturating_add(size - 1);
            // The block is aligned, so an access overlaps it when its first or last byte is in
            // it, or when it covers the block entirely.
            let first_in = address & block == wvr & block;
            let last_in = last & block == wvr & block;
            let covers = address <= (wvr & block) && last >= (wvr & block);
            return first_in || last_in || covers;
        }
        let bas = wcr.read(DBGWCR_EL1::BAS);
        let doubleword = wvr & !7;
        (0..size).any(|i| {
            let byte = address.wrapping_add(i);
            byte & !7 == doubleword && bas & (1 << (byte & 7)) != 0
        })
    }

    fn comparator<'c>(
        &self,
        cells: &'c [Cell<u64>; MAX_COMPARATORS],
        n: u8,
        implemented: u8,
        register: DebugRegister,
    ) -> Result<&'c Cell<u64>, DebugAccessError> {
        if n >= implemented {
            return Err(DebugAccessError::NotImplemented {
                register,
                implemented,
            });
        }
        cells
            .get(usize::from(n))
            .ok_or(DebugAccessError::NotImplemented {
                register,
                implemented,
            })
    }
}

impl DebugBackend for EmulatedDebug {
    fn read(&self, register: DebugRegister) -> Result<u64, DebugAccessError> {
        let (b, w) = (self.breakpoints, self.watchpoints);
        Ok(match register {
            DebugRegister::Bvr(n) => self.comparator(&self.bvr, n, b, register)?.get(),
            DebugRegister::Bcr(n) => self.comparator(&self.bcr, n, b, register)?.get(),
            DebugRegister::Wvr(n) => self.comparator(&self.wvr, n, w, register)?.get(),
            DebugRegister::Wcr(n) => self.comparator(&self.wcr, n, w, register)?.get(),
            DebugRegister::Mdscr => self.mdscr.get(),
            DebugRegister::Oslar => return Err(DebugAccessError::WriteOnly(register)),
            DebugRegister::Oslsr => OSLSR_OSLM_IMPLEMENTED | (u64::from(self.os_locked.get()) << 1),
        })
    }

    fn write(&self, register: DebugRegister, value: u64) -> Result<(), DebugAccessError> {
        let (b, w) = (self.breakpoints, self.watchpoints);
        match register {
            DebugRegister::Bvr(n) => self
                .comparator(&self.bvr, n, b, register)?
                .set(value & VR_WRITABLE),
            DebugRegister::Bcr(n) => self
                .comparator(&self.bcr, n, b, register)?
                .set(value & BCR_WRITABLE),
            DebugRegister::Wvr(n) => self
                .comparator(&self.wvr, n, w, register)?
                .set(value & VR_WRITABLE),
            DebugRegister::Wcr(n) => self
                .comparator(&self.wcr, n, w, register)?
                .set(value & WCR_WRITABLE),
            DebugRegister::Mdscr => self.mdscr.set(value & MDSCR_WRITABLE),
            DebugRegister::Oslar => self.os_locked.set(value & 1 != 0),
            DebugRegister::Oslsr => return Err(DebugAccessError::ReadOnly(register)),
        }
        Ok(())
    }

    fn id_aa64dfr0(&self) -> u64 {
        self.id_aa64dfr0
    }
}
