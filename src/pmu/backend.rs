//! The back-end interface the PMU driver is generic over.
//!
//! A back end gives access to the PMUv3 registers by register identity ([`PmuRegister`]),
//! including the indexed event counters, reports the Exception level the accesses are made from,
//! and reports an access the real CPU would trap as a typed [`AccessError`]. On top of that,
//! [`RegisterView`] implements tock-registers' `Readable`/`Writeable` for one register so the
//! layouts of [`super::regs`] can be used with `read`, `write`, `modify` and `is_set`.
#![forbid(unsafe_code)]

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;

use tock_registers::interfaces::{Readable, Writeable};
use tock_registers::{LocalRegisterCopy, RegisterLongName};

use super::regs;
use super::regs::PMUSERENR_EL0;

/// Identity of one PMUv3 system register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PmuRegister {
    /// PMCR_EL0.
    Pmcr,
    /// PMCNTENSET_EL0.
    CntenSet,
    /// PMCNTENCLR_EL0.
    CntenClr,
    /// PMOVSSET_EL0.
    OvsSet,
    /// PMOVSCLR_EL0.
    OvsClr,
    /// PMINTENSET_EL1.
    IntenSet,
    /// PMINTENCLR_EL1.
    IntenClr,
    /// PMSWINC_EL0 (write-only).
    Swinc,
    /// PMSELR_EL0.
    Selr,
    /// PMXEVTYPER_EL0.
    XevTyper,
    /// PMXEVCNTR_EL0.
    XevCntr,
    /// PMEVTYPER&lt;n&gt;_EL0, n = 0..=30.
    EvTyper(u8),
    /// PMEVCNTR&lt;n&gt;_EL0, n = 0..=30.
    EvCntr(u8),
    /// PMCCNTR_EL0.
    Ccntr,
    /// PMCCFILTR_EL0.
    Ccfiltr,
    /// PMUSERENR_EL0.
    Userenr,
    /// PMCEID0_EL0 (read-only).
    Ceid0,
    /// PMCEID1_EL0 (read-only).
    Ceid1,
    /// PMICNTR_EL0 (FEAT_PMUv3_ICNTR).
    Icntr,
    /// PMICFILTR_EL0 (FEAT_PMUv3_ICNTR).
    Icfiltr,
}

impl PmuRegister {
    /// The architectural name, e.g. `PMEVCNTR<n>_EL0` for the indexed registers.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Pmcr => "PMCR_EL0",
            Self::CntenSet => "PMCNTENSET_EL0",
            Self::CntenClr => "PMCNTENCLR_EL0",
            Self::OvsSet => "PMOVSSET_EL0",
            Self::OvsClr => "PMOVSCLR_EL0",
            Self::IntenSet => "PMINTENSET_EL1",
            Self::IntenClr => "PMINTENCLR_EL1",
            Self::Swinc => "PMSWINC_EL0",
            Self::Selr => "PMSELR_EL0",
            Self::XevTyper => "PMXEVTYPER_EL0",
            Self::XevCntr => "PMXEVCNTR_EL0",
            Self::EvTyper(_) => "PMEVTYPER<n>_EL0",
            Self::EvCntr(_) => "PMEVCNTR<n>_EL0",
            Self::Ccntr => "PMCCNTR_EL0",
            Self::Ccfiltr => "PMCCFILTR_EL0",
            Self::Userenr => "PMUSERENR_EL0",
            Self::Ceid0 => "PMCEID0_EL0",
            Self::Ceid1 => "PMCEID1_EL0",
            Self::Icntr => "PMICNTR_EL0",
            Self::Icfiltr => "PMICFILTR_EL0",
        }
    }
}

impl fmt::Display for PmuRegister {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::EvTyper(n) => write!(f, "PMEVTYPER{n}_EL0"),
            Self::EvCntr(n) => write!(f, "PMEVCNTR{n}_EL0"),
            other => f.write_str(other.name()),
        }
    }
}

/// Exception level the PMU is accessed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ExceptionLevel {
    /// EL0 (application).
    El0,
    /// EL1 (kernel).
    El1,
    /// EL2 (hypervisor).
    El2,
    /// EL3 (secure monitor).
    El3,
}

impl ExceptionLevel {
    /// From the CurrentEL.EL field value (0..=3; higher bits ignored).
    pub const fn from_bits(el: u64) -> Self {
        match el & 3 {
            0 => Self::El0,
            1 => Self::El1,
            2 => Self::El2,
            _ => Self::El3,
        }
    }
}

impl core::fmt::Display for ExceptionLevel {
    /// `EL0` .. `EL3`, as the Arm ARM writes them.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let n = match self {
            Self::El0 => 0,
            Self::El1 => 1,
            Self::El2 => 2,
            Self::El3 => 3,
        };
        write!(f, "EL{n}")
    }
}

/// Direction of a system-register access: `mrs` reads, `msr` writes. (Not to be confused with
/// the kind of a memory access that probe listeners see.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RegisterAccess {
    /// `mrs`.
    Read,
    /// `msr`.
    Write,
}

/// A register access that the architecture does not allow; the real CPU would take an
/// exception (UNDEFINED or a trap to EL1), the back ends report it instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AccessError {
    /// EL0 access that PMUSERENR_EL0 does not enable (trapped to EL1).
    TrappedAtEl0 {
        /// The register.
        register: PmuRegister,
        /// Read or write.
        access: RegisterAccess,
    },
    /// The register does not exist at the current Exception level (PMINTEN*_EL1 at EL0).
    UndefinedAtEl0(PmuRegister),
    /// Write to a read-only register (PMCEID0/1, PMUSERENR at EL0).
    ReadOnly(PmuRegister),
    /// Read of a write-only register (PMSWINC).
    WriteOnly(PmuRegister),
    /// An indexed register with n > 30 (no such register encoding).
    NoSuchRegister(PmuRegister),
    /// FEAT_PMUv3_ICNTR registers on a PMU without it.
    NotImplemented(PmuRegister),
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TrappedAtEl0 { register, access } => {
                let what = match access {
                    RegisterAccess::Read => "read of",
                    RegisterAccess::Write => "write to",
                };
                write!(
                    f,
                    "{what} {register} at EL0 traps (not enabled by PMUSERENR_EL0)"
                )
            }
            Self::UndefinedAtEl0(r) => write!(f, "{r} is UNDEFINED at EL0"),
            Self::ReadOnly(r) => write!(f, "{r} is read-only"),
            Self::WriteOnly(r) => write!(f, "{r} is write-only"),
            Self::NoSuchRegister(r) => write!(f, "{r}: no such register (n > 30)"),
            Self::NotImplemented(r) => write!(f, "{r} is not implemented (no FEAT_PMUv3_ICNTR)"),
        }
    }
}

impl core::error::Error for AccessError {}

/// Decides whether an access from `el` to `register` is permitted by PMUSERENR_EL0 (`userenr`),
/// following the Arm ARM's EL0 access rules. Used by both back ends.
pub fn el0_access_check(
    el: ExceptionLevel,
    userenr: u64,
    register: PmuRegister,
    access: RegisterAccess,
) -> Result<(), AccessError> {
    if el != ExceptionLevel::El0 {
        return Ok(());
    }
    let userenr: LocalRegisterCopy<u64, PMUSERENR_EL0::Register> = LocalRegisterCopy::new(userenr);
    let en = userenr.is_set(PMUSERENR_EL0::EN);
    let sw = userenr.is_set(PMUSERENR_EL0::SW);
    let cr = userenr.is_set(PMUSERENR_EL0::CR);
    let er = userenr.is_set(PMUSERENR_EL0::ER);
    let ir = userenr.is_set(PMUSERENR_EL0::IR);
    let allowed = match (register, access) {
        (PmuRegister::IntenSet | PmuRegister::IntenClr, _) => {
            return Err(AccessError::UndefinedAtEl0(register));
        }
        (PmuRegister::Userenr, RegisterAccess::Read) => true,
        (PmuRegister::Userenr, RegisterAccess::Write) => {
            return Err(AccessError::ReadOnly(register));
        }
        (PmuRegister::Swinc, RegisterAccess::Write) => en || sw,
        (PmuRegister::Ccntr, RegisterAccess::Read) => en || cr,
        (PmuRegister::EvCntr(_) | PmuRegister::XevCntr, RegisterAccess::Read) => en || er,
        (PmuRegister::Selr, _) => en || er,
        (PmuRegister::Icntr, RegisterAccess::Read) => en || ir,
        _ => en,
    };
    if allowed {
        Ok(())
    } else {
        Err(AccessError::TrappedAtEl0 { register, access })
    }
}

/// Register access for the PMU driver: the real system registers or an emulated PMUv3.
///
/// Accesses take `&self`: a back end is a handle to hardware state (the emulated one uses
/// interior mutability), which is what lets [`RegisterView`] implement tock-registers' traits.
pub trait PmuBackend {
    /// Reads a PMU register; `Err` where the real CPU would trap or the access is UNDEFINED.
    fn read(&self, register: PmuRegister) -> Result<u64, AccessError>;
    /// Writes a PMU register; `Err` where the real CPU would trap or the access is UNDEFINED.
    fn write(&self, register: PmuRegister, value: u64) -> Result<(), AccessError>;
    /// The Exception level the accesses are made from.
    fn current_el(&self) -> ExceptionLevel;
    /// ID_AA64DFR0_EL1 (PMUVer in bits \[11:8\]).
    fn id_aa64dfr0(&self) -> u64;
    /// ID_AA64DFR1_EL1 (PMICNTR in bits \[39:36\] for FEAT_PMUv3_ICNTR).
    fn id_aa64dfr1(&self) -> u64;
    /// MIDR_EL1.
    fn midr(&self) -> u64;
    /// Context synchronization (`isb`) between register writes whose order matters.
    fn isb(&self) {}
    /// Reads a register whose access at the current Exception level the caller has already
    /// checked, as a [`CounterGroup`](super::CounterGroup) does once when it is created. The
    /// default is [`read`](Self::read); the system-register back end skips its per-access
    /// PMUSERENR_EL0 re-check, so that a constant register compiles to one `mrs`.
    fn read_prepared(&self, register: PmuRegister) -> Result<u64, AccessError> {
        self.read(register)
    }

    /// A tock-registers view of one register, e.g. `backend.view::<PMCR_EL0::Register>(PmuRegister::Pmcr)`.
    fn view<R: RegisterLongName>(&self, register: PmuRegister) -> RegisterView<'_, Self, R>
    where
        Self: Sized,
    {
        RegisterView::new(self, register)
    }
    /// PMCR_EL0 as a tock-registers view.
    fn pmcr(&self) -> RegisterView<'_, Self, regs::PMCR_EL0::Register>
    where
        Self: Sized,
    {
        RegisterView::new(self, PmuRegister::Pmcr)
    }
}

/// One register of a back end seen through tock-registers' `Readable`/`Writeable`.
///
/// `get`/`set` cannot return errors, so an access the back end refuses reads as 0 / is not
/// performed and the error is latched: [`RegisterView::fault`] returns it. Use the
/// [`PmuBackend`] methods directly where every access must be checked.
pub struct RegisterView<'a, B: PmuBackend, R: RegisterLongName> {
    backend: &'a B,
    register: PmuRegister,
    fault: Cell<Option<AccessError>>,
    _layout: PhantomData<R>,
}

impl<'a, B: PmuBackend, R: RegisterLongName> RegisterView<'a, B, R> {
    /// A view of `register` of `backend` with layout `R`.
    pub fn new(backend: &'a B, register: PmuRegister) -> Self {
        Self {
            backend,
            register,
            fault: Cell::new(None),
            _layout: PhantomData,
        }
    }
    /// The first access error met through this view, if any.
    pub fn fault(&self) -> Option<AccessError> {
        self.fault.get()
    }
    fn latch(&self, e: AccessError) {
        if self.fault.get().is_none() {
            self.fault.set(Some(e));
        }
    }
}

impl<B: PmuBackend, R: RegisterLongName> Readable for RegisterView<'_, B, R> {
    type T = u64;
    type R = R;
    fn get(&self) -> u64 {
        match self.backend.read(self.register) {
            Ok(v) => v,
            Err(e) => {
                self.latch(e);
                0
            }
        }
    }
}

impl<B: PmuBackend, R: RegisterLongName> Writeable for RegisterView<'_, B, R> {
    type T = u64;
    type R = R;
    fn set(&self, value: u64) {
        if let Err(e) = self.backend.write(self.register, value) {
            self.latch(e);
        }
    }
}

impl<B: PmuBackend> PmuBackend for &B {
    fn read(&self, register: PmuRegister) -> Result<u64, AccessError> {
        (**self).read(register)
    }
    fn write(&self, register: PmuRegister, value: u64) -> Result<(), AccessError> {
        (**self).write(register, value)
    }
    fn current_el(&self) -> ExceptionLevel {
        (**self).current_el()
    }
    fn id_aa64dfr0(&self) -> u64 {
        (**self).id_aa64dfr0()
    }
    fn id_aa64dfr1(&self) -> u64 {
        (**self).id_aa64dfr1()
    }
    fn midr(&self) -> u64 {
        (**self).midr()
    }
    fn isb(&self) {
        (**self).isb()
    }
    #[inline(always)]
    fn read_prepared(&self, register: PmuRegister) -> Result<u64, AccessError> {
        (**self).read_prepared(register)
    }
}
