//! The real self-hosted debug registers through `mrs`/`msr` (aarch64 only, EL1).
//!
//! The comparator number is part of the instruction encoding of DBGBVR&lt;n&gt;_EL1 and friends,
//! so an indexed access is a `match n` with one `mrs`/`msr` per n (a jump table). The number of
//! comparators is read from ID_AA64DFR0_EL1 once, at construction; an access past it is refused
//! with [`DebugAccessError::NotImplemented`] instead of executing an UNDEFINED instruction.
//!
//! Writes take effect after a context synchronization event: the driver calls
//! [`DebugBackend::isb`] after changing comparators or MDSCR_EL1.

use core::arch::asm;

use aarch64_cpu::registers::ID_AA64DFR0_EL1;
use tock_registers::interfaces::Readable;

use super::backend::{ComparatorCounts, DebugAccessError, DebugBackend, DebugRegister};

/// The debug registers of the core this code runs on. Must be used at EL1.
#[derive(Debug, Clone, Copy)]
pub struct SysRegDebug {
    id_aa64dfr0: u64,
    counts: ComparatorCounts,
}

macro_rules! mrs {
    ($name:expr) => {{
        let value: u64;
        #[allow(unsafe_code)] // The module's reason to exist: debug registers need `asm`.
        // SAFETY: reading a debug system register at EL1 has no side effect; the caller checked
        // that the register is implemented.
        unsafe { asm!(concat!("mrs {v}, ", $name), v = out(reg) value, options(nomem, nostack, preserves_flags)) };
        value
    }};
}

macro_rules! msr {
    ($name:expr, $value:expr) => {{
        let value: u64 = $value;
        #[allow(unsafe_code)] // The module's reason to exist: debug registers need `asm`.
        // SAFETY: debug register writes only change which addresses raise debug exceptions and
        // how (comparators, MDSCR, OS lock); they touch no memory. The caller checked that the
        // register is implemented.
        unsafe { asm!(concat!("msr ", $name, ", {v}"), v = in(reg) value, options(nomem, nostack, preserves_flags)) };
    }};
}

/// A `match n` with one `mrs` (or `msr`) per indexed register `<prefix><n>_el1`, n = 0..=15.
macro_rules! indexed {
    (read $n:expr, $prefix:literal) => {
        indexed!(@read $n, $prefix, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (write $n:expr, $prefix:literal, $value:expr) => {
        indexed!(@write $n, $prefix, $value, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@read $n:expr, $prefix:literal, $($i:literal)*) => {
        match $n {
            $( $i => Some(mrs!(concat!($prefix, $i, "_el1"))), )*
            _ => None,
        }
    };
    (@write $n:expr, $prefix:literal, $value:expr, $($i:literal)*) => {
        match $n {
            $( $i => { msr!(concat!($prefix, $i, "_el1"), $value); true } )*
            _ => false,
        }
    };
}

impl SysRegDebug {
    /// A handle to the real debug registers; reads ID_AA64DFR0_EL1 once.
    pub fn new() -> Self {
        let id_aa64dfr0 = ID_AA64DFR0_EL1.get();
        Self {
            id_aa64dfr0,
            counts: ComparatorCounts::from_id_aa64dfr0(id_aa64dfr0),
        }
    }

    fn check(&self, register: DebugRegister) -> Result<(), DebugAccessError> {
        let (n, implemented) = match register {
            DebugRegister::Bvr(n) | DebugRegister::Bcr(n) => (n, self.counts.breakpoints),
            DebugRegister::Wvr(n) | DebugRegister::Wcr(n) => (n, self.counts.watchpoints),
            _ => return Ok(()),
        };
        if n < implemented {
            Ok(())
        } else {
            Err(DebugAccessError::NotImplemented {
                register,
                implemented,
            })
        }
    }
}

impl Default for SysRegDebug {
    fn default() -> Self {
        Self::new()
    }
}

impl DebugBackend for SysRegDebug {
    fn read(&self, register: DebugRegister) -> Result<u64, DebugAccessError> {
        self.check(register)?;
        let value = match register {
            DebugRegister::Bvr(n) => indexed!(read n, "dbgbvr"),
            DebugRegister::Bcr(n) => indexed!(read n, "dbgbcr"),
            DebugRegister::Wvr(n) => indexed!(read n, "dbgwvr"),
            DebugRegister::Wcr(n) => indexed!(read n, "dbgwcr"),
            DebugRegister::Mdscr => Some(mrs!("mdscr_el1")),
            DebugRegister::Oslsr => Some(mrs!("oslsr_el1")),
            DebugRegister::Oslar => return Err(DebugAccessError::WriteOnly(register)),
        };
        value.ok_or(DebugAccessError::NotImplemented {
            register,
            implemented: 16,
        })
    }

    fn write(&self, register: DebugRegister, value: u64) -> Result<(), DebugAccessError> {
        self.check(register)?;
        let done = match register {
            DebugRegister::Bvr(n) => indexed!(write n, "dbgbvr", value),
            DebugRegister::Bcr(n) => indexed!(write n, "dbgbcr", value),
            DebugRegister::Wvr(n) => indexed!(write n, "dbgwvr", value),
            DebugRegister::Wcr(n) => indexed!(write n, "dbgwcr", value),
            DebugRegister::Mdscr => {
                msr!("mdscr_el1", value);
                true
            }
            DebugRegister::Oslar => {
                msr!("oslar_el1", value);
                true
            }
            DebugRegister::Oslsr => return Err(DebugAccessError::ReadOnly(register)),
        };
        if done {
            Ok(())
        } else {
            Err(DebugAccessError::NotImplemented {
                register,
                implemented: 16,
            })
        }
    }

    fn id_aa64dfr0(&self) -> u64 {
        self.id_aa64dfr0
    }

    fn isb(&self) {
        #[allow(unsafe_code)] // `isb` has no Rust intrinsic on stable.
        // SAFETY: `isb` only synchronizes the instruction stream.
        unsafe {
            asm!("isb", options(nomem, nostack, preserves_flags))
        };
    }
}
