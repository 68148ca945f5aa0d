//! The real PMUv3 system registers through `mrs`/`msr` (aarch64 only).
//!
//! The indexed registers PMEVCNTR&lt;n&gt;_EL0 / PMEVTYPER&lt;n&gt;_EL0 are reached through a match with one
//! `mrs`/`msr` per n (the register number is part of the instruction encoding), never through
//! PMSELR_EL0, so an access does not disturb the selection an interrupted context may rely on.
//!
//! Ordering: a write to a PMU control register takes effect for later instructions only after a
//! context synchronization event, so the driver calls [`PmuBackend::isb`] where order matters
//! (Linux's sequences); reads of counters are preceded by an `isb` in the driver so they do not
//! drift. At EL0 the back end checks PMUSERENR_EL0 first and returns
//! [`AccessError`] instead of executing an access that would trap.
//!
//! The only module of `pmu` with `unsafe` code: `unsafe_code` is denied for the whole of `pmu`
//! and allowed here, statement by statement, on the `asm!` blocks.

use core::arch::asm;

use aarch64_cpu::registers::{CurrentEL, ID_AA64DFR0_EL1, ID_AA64DFR1_EL1, MIDR_EL1};
use tock_registers::interfaces::Readable;

use super::backend::el0_access_check;
use super::backend::{AccessError, ExceptionLevel, PmuBackend, PmuRegister, RegisterAccess};
use super::detect::has_instruction_counter;

/// The PMU of the CPU this code runs on.
#[derive(Debug, Clone, Copy)]
pub struct SysRegPmu {
    el: ExceptionLevel,
}

macro_rules! mrs {
    ($name:expr) => {{
        let value: u64;
        #[allow(unsafe_code)] // The module's reason to exist: system registers need `asm`.
        // SAFETY: reading a PMU/ID system register has no side effect; the caller checked that
        // the access is permitted at the current Exception level.
        unsafe { asm!(concat!("mrs {v}, ", $name), v = out(reg) value, options(nomem, nostack, preserves_flags)) };
        value
    }};
}

macro_rules! msr {
    ($name:expr, $value:expr) => {{
        let value: u64 = $value;
        #[allow(unsafe_code)] // The module's reason to exist: system registers need `asm`.
        // SAFETY: PMU register writes only change PMU state (counters, enables, filters);
        // the caller checked that the access is permitted at the current Exception level.
        unsafe { asm!(concat!("msr ", $name, ", {v}"), v = in(reg) value, options(nomem, nostack, preserves_flags)) };
    }};
}

/// A `match n` with one `mrs` (or `msr`) per indexed register `<prefix><n>_el0`, n = 0..=30.
macro_rules! indexed {
    (read $n:expr, $prefix:literal, $otherwise:expr) => {
        indexed!(@read $n, $prefix, $otherwise,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30)
    };
    (write $n:expr, $prefix:literal, $value:expr, $otherwise:expr) => {
        indexed!(@write $n, $prefix, $value, $otherwise,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30)
    };
    (@read $n:expr, $prefix:literal, $otherwise:expr, $($i:literal)*) => {
        match $n {
            $( $i => mrs!(concat!($prefix, $i, "_el0")), )*
            _ => $otherwise,
        }
    };
    (@write $n:expr, $prefix:literal, $value:expr, $otherwise:expr, $($i:literal)*) => {
        match $n {
            $( $i => msr!(concat!($prefix, $i, "_el0"), $value), )*
            _ => $otherwise,
        }
    };
}

impl SysRegPmu {
    /// A handle to the real PMU; reads CurrentEL once (the handle belongs to one EL).
    pub fn new() -> Self {
        Self {
            el: ExceptionLevel::from_bits(CurrentEL.read(CurrentEL::EL)),
        }
    }

    // Always inlined: with a constant register the whole match folds to one `mrs`.
    #[inline(always)]
    fn read_checked(&self, register: PmuRegister) -> Result<u64, AccessError> {
        Ok(match register {
            PmuRegister::Pmcr => mrs!("pmcr_el0"),
            PmuRegister::CntenSet => mrs!("pmcntenset_el0"),
            PmuRegister::CntenClr => mrs!("pmcntenclr_el0"),
            PmuRegister::OvsSet => mrs!("pmovsset_el0"),
            PmuRegister::OvsClr => mrs!("pmovsclr_el0"),
            PmuRegister::IntenSet => mrs!("pmintenset_el1"),
            PmuRegister::IntenClr => mrs!("pmintenclr_el1"),
            PmuRegister::Swinc => return Err(AccessError::WriteOnly(register)),
            PmuRegister::Selr => mrs!("pmselr_el0"),
            PmuRegister::XevTyper => mrs!("pmxevtyper_el0"),
            PmuRegister::XevCntr => mrs!("pmxevcntr_el0"),
            PmuRegister::EvTyper(n) => indexed!(read n, "pmevtyper",
                return Err(AccessError::NoSuchRegister(register))),
            PmuRegister::EvCntr(n) => indexed!(read n, "pmevcntr",
                return Err(AccessError::NoSuchRegister(register))),
            PmuRegister::Ccntr => mrs!("pmccntr_el0"),
            PmuRegister::Ccfiltr => mrs!("pmccfiltr_el0"),
            PmuRegister::Userenr => mrs!("pmuserenr_el0"),
            PmuRegister::Ceid0 => mrs!("pmceid0_el0"),
            PmuRegister::Ceid1 => mrs!("pmceid1_el0"),
            PmuRegister::Icntr | PmuRegister::Icfiltr if !self.has_icntr() => {
                return Err(AccessError::NotImplemented(register));
            }
            // PMICNTR_EL0 / PMICFILTR_EL0 by encoding: assemblers without FEAT_PMUv3_ICNTR
            // do not know the names.
            PmuRegister::Icntr => mrs!("s3_3_c9_c4_0"),
            PmuRegister::Icfiltr => mrs!("s3_3_c9_c6_0"),
        })
    }

    #[inline(always)]
    fn write_checked(&self, register: PmuRegister, value: u64) -> Result<(), AccessError> {
        match register {
            PmuRegister::Pmcr => msr!("pmcr_el0", value),
            PmuRegister::CntenSet => msr!("pmcntenset_el0", value),
            PmuRegister::CntenClr => msr!("pmcntenclr_el0", value),
            PmuRegister::OvsSet => msr!("pmovsset_el0", value),
            PmuRegister::OvsClr => msr!("pmovsclr_el0", value),
            PmuRegister::IntenSet => msr!("pmintenset_el1", value),
            PmuRegister::IntenClr => msr!("pmintenclr_el1", value),
            PmuRegister::Swinc => msr!("pmswinc_el0", value),
            PmuRegister::Selr => msr!("pmselr_el0", value),
            PmuRegister::XevTyper => msr!("pmxevtyper_el0", value),
            PmuRegister::XevCntr => msr!("pmxevcntr_el0", value),
            PmuRegister::EvTyper(n) => indexed!(write n, "pmevtyper", value,
                return Err(AccessError::NoSuchRegister(register))),
            PmuRegister::EvCntr(n) => indexed!(write n, "pmevcntr", value,
                return Err(AccessError::NoSuchRegister(register))),
            PmuRegister::Ccntr => msr!("pmccntr_el0", value),
            PmuRegister::Ccfiltr => msr!("pmccfiltr_el0", value),
            PmuRegister::Userenr => msr!("pmuserenr_el0", value),
            PmuRegister::Ceid0 | PmuRegister::Ceid1 => return Err(AccessError::ReadOnly(register)),
            PmuRegister::Icntr | PmuRegister::Icfiltr if !self.has_icntr() => {
                return Err(AccessError::NotImplemented(register));
            }
            PmuRegister::Icntr => msr!("s3_3_c9_c4_0", value),
            PmuRegister::Icfiltr => msr!("s3_3_c9_c6_0", value),
        }
        Ok(())
    }

    fn has_icntr(&self) -> bool {
        has_instruction_counter(self.id_aa64dfr1())
    }
}

impl Default for SysRegPmu {
    fn default() -> Self {
        Self::new()
    }
}

impl PmuBackend for SysRegPmu {
    #[inline(always)]
    fn read(&self, register: PmuRegister) -> Result<u64, AccessError> {
        if self.el == ExceptionLevel::El0 {
            el0_access_check(
                self.el,
                mrs!("pmuserenr_el0"),
                register,
                RegisterAccess::Read,
            )?;
        }
        self.read_checked(register)
    }

    #[inline(always)]
    fn write(&self, register: PmuRegister, value: u64) -> Result<(), AccessError> {
        if self.el == ExceptionLevel::El0 {
            el0_access_check(
                self.el,
                mrs!("pmuserenr_el0"),
                register,
                RegisterAccess::Write,
            )?;
        }
        self.write_checked(register, value)
    }

    /// The access was checked when the caller prepared it (at EL1 and above nothing needs
    /// checking; at EL0 PMUSERENR_EL0 cannot change under EL0 code).
    #[inline(always)]
    fn read_prepared(&self, register: PmuRegister) -> Result<u64, AccessError> {
        self.read_checked(register)
    }

    fn current_el(&self) -> ExceptionLevel {
        self.el
    }

    fn id_aa64dfr0(&self) -> u64 {
        if self.el == ExceptionLevel::El0 {
            // ID registers trap at EL0 unless the OS emulates them; report "no PMU".
            return 0;
        }
        ID_AA64DFR0_EL1.get()
    }

    fn id_aa64dfr1(&self) -> u64 {
        if self.el == ExceptionLevel::El0 {
            return 0;
        }
        ID_AA64DFR1_EL1.get()
    }

    fn midr(&self) -> u64 {
        if self.el == ExceptionLevel::El0 {
            return 0;
        }
        MIDR_EL1.get()
    }

    #[inline]
    fn isb(&self) {
        #[allow(unsafe_code)] // `isb` has no Rust intrinsic on stable.
        // SAFETY: `isb` only synchronizes the instruction stream.
        unsafe {
            asm!("isb", options(nomem, nostack, preserves_flags))
        };
    }
}
