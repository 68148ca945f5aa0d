//! PSCI (the Arm Power State Coordination Interface) through the `smccc` crate: version, system
//! off and reset, and the core power calls that SMP bring-up uses (`CPU_ON`, `CPU_OFF`,
//! `AFFINITY_INFO`).
//!
//! # Conduit
//! PSCI firmware is reached with `hvc` (a hypervisor, or QEMU's built-in PSCI when the guest
//! starts at EL1) or `smc` (secure firmware such as Arm Trusted Firmware, or QEMU's when the guest
//! starts at EL2). [`Conduit::default_for_this_core`] picks `hvc` at EL1 and `smc` at EL2, which
//! is what QEMU `virt` does; a board's device tree says which one it uses.
//!
//! # No firmware
//! An `hvc` or `smc` that nothing answers is an undefined instruction. Every call here is made
//! with the runtime's fault probe armed: the exception handler skips the faulting `hvc`/`smc` and
//! the call reports [`PsciError::NotAnswering`] instead of crashing or hanging.
use super::fault_probe::{Expect, Faulted, guarded};
use core::fmt;
use smccc::{Hvc, Smc, psci};

pub use smccc::psci::{AffinityState, LowestAffinityLevel, Version};

/// The affinity fields of an MPIDR (Aff3, Aff2, Aff1, Aff0): what PSCI's target arguments hold.
const AFFINITY: u64 = 0xFF_00FF_FFFF;

/// How PSCI calls reach the firmware.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conduit {
    /// `hvc #0`.
    Hvc,
    /// `smc #0`.
    Smc,
}

impl Conduit {
    /// `hvc` at EL1, `smc` at EL2 (QEMU `virt`'s choice).
    pub fn default_for_this_core() -> Self {
        use aarch64_cpu::registers::{CurrentEL, Readable};
        if CurrentEL.read(CurrentEL::EL) >= 2 {
            Self::Smc
        } else {
            Self::Hvc
        }
    }
}

impl fmt::Display for Conduit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Hvc => "hvc",
            Self::Smc => "smc",
        })
    }
}

/// A PSCI call that did not succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PsciError {
    /// Nothing answered the conduit: the instruction was undefined (no firmware there).
    NotAnswering(Conduit),
    /// The firmware answered with an error.
    Call(psci::Error),
}

impl fmt::Display for PsciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnswering(conduit) => {
                write!(f, "no PSCI firmware answers `{conduit}` on this core")
            }
            Self::Call(e) => write!(f, "PSCI call failed: {e}"),
        }
    }
}

impl core::error::Error for PsciError {}

/// PSCI through one conduit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Psci {
    conduit: Conduit,
}

impl Default for Psci {
    fn default() -> Self {
        Self::new(Conduit::default_for_this_core())
    }
}

/// Calls `smccc::psci::$function` through the conduit.
macro_rules! call {
    ($self:ident, $function:ident $(, $arg:expr)*) => {
        $self.guarded(|| match $self.conduit {
            Conduit::Hvc => psci::$function::<Hvc>($($arg),*),
            Conduit::Smc => psci::$function::<Smc>($($arg),*),
        })
    };
}

impl Psci {
    /// PSCI through `conduit`.
    pub const fn new(conduit: Conduit) -> Self {
        Self { conduit }
    }

    /// The conduit in use.
    pub fn conduit(&self) -> Conduit {
        self.conduit
    }

    /// PSCI_VERSION: also the way to find out whether PSCI firmware is there at all.
    pub fn version(&self) -> Result<Version, PsciError> {
        call!(self, version)
    }

    /// SYSTEM_OFF: returns only when it failed.
    pub fn system_off(&self) -> PsciError {
        match call!(self, system_off) {
            Err(e) => e,
            // The call returned without an error code: report it as the firmware's refusal.
            Ok(()) => PsciError::Call(psci::Error::Denied),
        }
    }

    /// SYSTEM_RESET: returns only when it failed.
    pub fn system_reset(&self) -> PsciError {
        match call!(self, system_reset) {
            Err(e) => e,
            Ok(()) => PsciError::Call(psci::Error::Denied),
        }
    }

    /// CPU_OFF: powers the calling core off; returns only when it failed.
    pub fn cpu_off(&self) -> PsciError {
        match call!(self, cpu_off) {
            Err(e) => e,
            Ok(()) => PsciError::Call(psci::Error::Denied),
        }
    }

    /// AFFINITY_INFO for the core `mpidr`: on, off or on its way. Only the affinity fields of
    /// `mpidr` count (an MPIDR_EL1 value as read, with its RES1 bit 31, is accepted).
    pub fn affinity_info(&self, mpidr: u64) -> Result<AffinityState, PsciError> {
        call!(
            self,
            affinity_info,
            mpidr & AFFINITY,
            LowestAffinityLevel::All
        )
    }

    /// CPU_ON: starts the core `mpidr` at `entry_point` (a physical address, MMU off, at this EL)
    /// with `context_id` in x0.
    ///
    /// This is the raw call. A core started this way runs whatever is at `entry_point` on no
    /// stack; Rust code on a core of its own is started with [`aarch64_rt::start_core`], which
    /// gives it a stack and this runtime's MMU set-up and vectors.
    pub fn cpu_on(&self, mpidr: u64, entry_point: u64, context_id: u64) -> Result<(), PsciError> {
        call!(self, cpu_on, mpidr & AFFINITY, entry_point, context_id)
    }

    /// Runs one SMCCC call with the fault probe armed.
    fn guarded<R>(&self, call: impl FnOnce() -> Result<R, psci::Error>) -> Result<R, PsciError> {
        match guarded(Expect::UnansweredCall, call) {
            Ok(result) => result.map_err(PsciError::Call),
            Err(Faulted) => Err(PsciError::NotAnswering(self.conduit)),
        }
    }
}
