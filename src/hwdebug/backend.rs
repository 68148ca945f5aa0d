//! The back-end interface the debug-register driver is generic over.
//!
//! A back end reads and writes the self-hosted debug registers by identity ([`DebugRegister`]),
//! including the indexed comparator registers, reports ID_AA64DFR0_EL1 (the comparator counts),
//! and reports an access the real CPU would treat as UNDEFINED as a typed [`DebugAccessError`].
//! [`DebugRegisterView`] implements tock-registers' `Readable`/`Writeable` for one register so
//! the layouts of [`super::regs`] work with `read`, `write`, `modify` and `is_set`.

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;

use tock_registers::RegisterLongName;
use tock_registers::interfaces::{Readable, Writeable};

use super::regs::ID_AA64DFR0_EL1;

/// The most comparators of one kind an ID_AA64DFR0_EL1 field can describe (BRPs/WRPs + 1).
pub const MAX_COMPARATORS: usize = 16;

/// Identity of one self-hosted debug register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DebugRegister {
    /// DBGBVR&lt;n&gt;_EL1, n = 0..=15.
    Bvr(u8),
    /// DBGBCR&lt;n&gt;_EL1, n = 0..=15.
    Bcr(u8),
    /// DBGWVR&lt;n&gt;_EL1, n = 0..=15.
    Wvr(u8),
    /// DBGWCR&lt;n&gt;_EL1, n = 0..=15.
    Wcr(u8),
    /// MDSCR_EL1.
    Mdscr,
    /// OSLAR_EL1 (write-only).
    Oslar,
    /// OSLSR_EL1 (read-only).
    Oslsr,
}

impl fmt::Display for DebugRegister {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bvr(n) => write!(f, "DBGBVR{n}_EL1"),
            Self::Bcr(n) => write!(f, "DBGBCR{n}_EL1"),
            Self::Wvr(n) => write!(f, "DBGWVR{n}_EL1"),
            Self::Wcr(n) => write!(f, "DBGWCR{n}_EL1"),
            Self::Mdscr => f.write_str("MDSCR_EL1"),
            Self::Oslar => f.write_str("OSLAR_EL1"),
            Self::Oslsr => f.write_str("OSLSR_EL1"),
        }
    }
}

/// A debug-register access the architecture does not allow; the real CPU would take an
/// UNDEFINED exception, the back ends report it instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DebugAccessError {
    /// A comparator register past the number implemented (ID_AA64DFR0_EL1.BRPs / WRPs).
    NotImplemented {
        /// The register.
        register: DebugRegister,
        /// How many comparators of that kind exist.
        implemented: u8,
    },
    /// Write to a read-only register (OSLSR_EL1).
    ReadOnly(DebugRegister),
    /// Read of a write-only register (OSLAR_EL1).
    WriteOnly(DebugRegister),
}

impl fmt::Display for DebugAccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotImplemented {
                register,
                implemented,
            } => write!(
                f,
                "{register} is not implemented (this core has {implemented} of that kind)"
            ),
            Self::ReadOnly(r) => write!(f, "{r} is read-only"),
            Self::WriteOnly(r) => write!(f, "{r} is write-only"),
        }
    }
}

/// The comparator counts of ID_AA64DFR0_EL1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ComparatorCounts {
    /// Breakpoint comparators (BRPs + 1).
    pub breakpoints: u8,
    /// Watchpoint comparators (WRPs + 1).
    pub watchpoints: u8,
    /// Breakpoints that can also compare a context (CTX_CMPs + 1), the highest-numbered ones.
    pub context_aware: u8,
}

impl ComparatorCounts {
    /// Decodes the BRPs, WRPs and CTX_CMPs fields of an ID_AA64DFR0_EL1 value.
    pub fn from_id_aa64dfr0(value: u64) -> Self {
        let field = |f: tock_registers::fields::Field<u64, ID_AA64DFR0_EL1::Register>| {
            // A 4-bit field plus one: at most 16, always fits a u8.
            (f.read(value) as u8).saturating_add(1)
        };
        Self {
            breakpoints: field(ID_AA64DFR0_EL1::BRPs),
            watchpoints: field(ID_AA64DFR0_EL1::WRPs),
            context_aware: field(ID_AA64DFR0_EL1::CTX_CMPs),
        }
    }
}

/// Register access for the debug driver: the real system registers or an emulated debug unit.
///
/// Accesses take `&self`: a back end is a handle to hardware state (the emulated one uses
/// interior mutability), which is what lets [`DebugRegisterView`] implement tock-registers'
/// traits.
pub trait DebugBackend {
    /// Reads a debug register; `Err` where the real CPU would take an UNDEFINED exception.
    fn read(&self, register: DebugRegister) -> Result<u64, DebugAccessError>;
    /// Writes a debug register; `Err` where the real CPU would take an UNDEFINED exception.
    fn write(&self, register: DebugRegister, value: u64) -> Result<(), DebugAccessError>;
    /// ID_AA64DFR0_EL1 (BRPs \[15:12\], WRPs \[23:20\], CTX_CMPs \[31:28\]).
    fn id_aa64dfr0(&self) -> u64;
    /// Context synchronization (`isb`) so that written debug registers take effect.
    fn isb(&self) {}

    /// The comparator counts, decoded from [`id_aa64dfr0`](Self::id_aa64dfr0).
    fn counts(&self) -> ComparatorCounts {
        ComparatorCounts::from_id_aa64dfr0(self.id_aa64dfr0())
    }

    /// A tock-registers view of one register, e.g.
    /// `backend.view::<DBGBCR_EL1::Register>(DebugRegister::Bcr(0))`.
    fn view<R: RegisterLongName>(&self, register: DebugRegister) -> DebugRegisterView<'_, Self, R>
    where
        Self: Sized,
    {
        DebugRegisterView::new(self, register)
    }
}

impl<B: DebugBackend> DebugBackend for &B {
    fn read(&self, register: DebugRegister) -> Result<u64, DebugAccessError> {
        (**self).read(register)
    }
    fn write(&self, register: DebugRegister, value: u64) -> Result<(), DebugAccessError> {
        (**self).write(register, value)
    }
    fn id_aa64dfr0(&self) -> u64 {
        (**self).id_aa64dfr0()
    }
    fn isb(&self) {
        (**self).isb()
    }
}

/// One register of a back end seen through tock-registers' `Readable`/`Writeable`.
///
/// `get`/`set` cannot return errors, so a refused access reads as 0 / is not performed and the
/// first error is latched: [`DebugRegisterView::fault`] returns it.
pub struct DebugRegisterView<'a, B: DebugBackend, R: RegisterLongName> {
    backend: &'a B,
    register: DebugRegister,
    fault: Cell<Option<DebugAccessError>>,
    _layout: PhantomData<R>,
}

impl<'a, B: DebugBackend, R: RegisterLongName> DebugRegisterView<'a, B, R> {
    /// A view of `register` of `backend` with layout `R`.
    pub fn new(backend: &'a B, register: DebugRegister) -> Self {
        Self {
            backend,
            register,
            fault: Cell::new(None),
            _layout: PhantomData,
        }
    }

    /// The first access error met through this view, if any.
    pub fn fault(&self) -> Option<DebugAccessError> {
        self.fault.get()
    }

    fn latch(&self, error: DebugAccessError) {
        if self.fault.get().is_none() {
            self.fault.set(Some(error));
        }
    }
}

impl<B: DebugBackend, R: RegisterLongName> Readable for DebugRegisterView<'_, B, R> {
    type T = u64;
    type R = R;
    fn get(&self) -> u64 {
        self.backend.read(self.register).unwrap_or_else(|e| {
            self.latch(e);
            0
        })
    }
}

impl<B: DebugBackend, R: RegisterLongName> Writeable for DebugRegisterView<'_, B, R> {
    type T = u64;
    type R = R;
    fn set(&self, value: u64) {
        if let Err(e) = self.backend.write(self.register, value) {
            self.latch(e);
        }
    }
}

impl core::error::Error for DebugAccessError {}
