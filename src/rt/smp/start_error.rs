//! Why a core did not start: shared by the bring-up and the rounds of work, so it is a leaf
//! that both import.

use core::fmt;

use crate::rt::core_id::{CoreId, MAX_CORES};
use crate::rt::psci::PsciError;

/// Why a core did not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartFailure {
    /// PSCI `CPU_ON` failed (no such core, a core already on, no firmware, ...).
    Psci(PsciError),
    /// Every core number (0..[`MAX_CORES`]) is taken.
    NoCoreNumberLeft,
    /// The core is still on from an earlier round (or never powered off).
    StillOn,
    /// The core finished its work but did not power off (PSCI `CPU_OFF` refused).
    DidNotPowerOff,
}

impl fmt::Display for StartFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Psci(e) => write!(f, "{e}"),
            Self::NoCoreNumberLeft => write!(f, "all {MAX_CORES} core numbers are taken"),
            Self::StillOn => f.write_str("it is still on from an earlier round"),
            Self::DidNotPowerOff => f.write_str("it finished but did not power off (CPU_OFF)"),
        }
    }
}

impl core::error::Error for StartFailure {}

/// A core that did not start (or stop), named by its MPIDR and, once it has one, its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartError {
    /// The MPIDR asked for.
    pub mpidr: u64,
    /// Its number, for a core that had one.
    pub core: Option<CoreId>,
    /// What went wrong.
    pub reason: StartFailure,
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the core with MPIDR {:#x}", self.mpidr)?;
        if let Some(core) = self.core {
            write!(f, " ({core})")?;
        }
        write!(f, " did not start: {}", self.reason)
    }
}

impl core::error::Error for StartError {}
