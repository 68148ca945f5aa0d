//! What executing an instruction did, and why an SPU stopped.

use super::profile::ProfileCheckpoint;
use crate::probe::listeners::AccessKind;
use crate::spu::mfc::DmaErrorKind;

/// The local-store data access of a load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LsAccess {
    /// The 16-byte aligned, wrapped LS address.
    pub address: u32,
    /// Access size in bytes (always 16 on the SPU).
    pub size: u32,
    /// Read (a load) or write (a store); never an instruction fetch.
    pub kind: AccessKind,
}

/// Why an SPU faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FaultKind {
    /// The word is not an SPU instruction.
    IllegalInstruction,
    /// `rdch`/`wrch`/`rchcnt` on a channel the model lacks (or the wrong direction).
    UnsupportedChannel {
        /// Channel number.
        channel: u8,
        /// What the instruction tried.
        access: ChannelOperation,
    },
    /// The MFC refused a DMA command (written to `MFC_Cmd`, or a list element it reached);
    /// [`SpuState::dma_fault`](super::SpuState::dma_fault) has the command, tag, LSA, EA and
    /// size.
    Dma(DmaErrorKind),
}

/// The channel instruction that faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ChannelOperation {
    /// `rdch`.
    Read,
    /// `wrch`.
    Write,
    /// `rchcnt`.
    Count,
}

/// A fault: the SPU stops with the faulting PC and instruction word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Fault {
    /// Address of the faulting instruction.
    pub pc: u32,
    /// The instruction word.
    pub word: u32,
    /// What went wrong.
    pub kind: FaultKind,
}

impl core::fmt::Display for Fault {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.kind {
            FaultKind::IllegalInstruction => write!(
                f,
                "illegal instruction {:#010x} at pc {:#07x}",
                self.word, self.pc
            ),
            FaultKind::UnsupportedChannel { channel, access } => {
                let verb = match access {
                    ChannelOperation::Read => "rdch",
                    ChannelOperation::Write => "wrch",
                    ChannelOperation::Count => "rchcnt",
                };
                write!(
                    f,
                    "{verb} on unsupported channel {channel} (word {:#010x}) at pc {:#07x}",
                    self.word, self.pc
                )
            }
            FaultKind::Dma(kind) => write!(
                f,
                "DMA error: {} (word {:#010x}) at pc {:#07x}",
                kind.description(),
                self.word,
                self.pc
            ),
        }
    }
}

impl core::error::Error for Fault {}

/// Why an SPU stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StopReason {
    /// `stop`/`stopd` with its 14-bit signal code, at `pc`.
    Stop {
        /// Address of the stop instruction.
        pc: u32,
        /// The signal code (`word & 0x3fff`).
        signal: u16,
    },
    /// A halt instruction (`heq`, `hgt`, `hlgt` and immediate forms) whose condition held.
    Halt {
        /// Address of the halt instruction.
        pc: u32,
    },
    /// An illegal instruction or an unsupported channel.
    Fault(Fault),
}

impl StopReason {
    /// Address of the instruction that stopped the SPU.
    pub fn pc(&self) -> u32 {
        match *self {
            StopReason::Stop { pc, .. } | StopReason::Halt { pc } => pc,
            StopReason::Fault(fault) => fault.pc,
        }
    }
}

impl core::fmt::Display for StopReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            StopReason::Stop { signal, .. } => write!(f, "stop {signal:#06x}"),
            StopReason::Halt { .. } => f.write_str("halt"),
            StopReason::Fault(fault) => write!(f, "fault: {fault}"),
        }
    }
}

/// Execution state of an SPU.
///
/// `repr(u8)` so that `Running`, the first variant, is tag 0: a reset SPU is all-zero bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Status {
    /// Ready to execute the instruction at the PC.
    Running,
    /// The instruction at the PC waits on a channel (empty inbound / full outbound mailbox);
    /// stepping retries it.
    Blocked {
        /// The channel waited on.
        channel: u8,
    },
    /// Stopped; `step` does nothing until [`resume`](super::SpuState::resume).
    Stopped(StopReason),
}

/// Effect of executing one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Executed {
    /// Address of the instruction.
    pub pc: u32,
    /// The instruction word.
    pub word: u32,
    /// Address of the next instruction (the PC after this one).
    pub next_pc: u32,
    /// A branch was taken (`next_pc` is its target).
    pub branch_taken: bool,
    /// The LS data access of a load or store.
    pub access: Option<LsAccess>,
    /// The profiling checkpoint if the instruction was `prof_cpN`.
    pub profile: Option<ProfileCheckpoint>,
    /// The instruction counts as a NOP for the non-NOP statistics.
    pub is_nop: bool,
    /// The instruction completed (retired). False when the SPU was already stopped, when the
    /// instruction faulted, or when it blocked on a channel.
    pub retired: bool,
    /// SPU status after the instruction.
    pub status: Status,
}

impl Executed {
    /// The report of an instruction at `pc` that retired and left the SPU running (no
    /// profiling checkpoint).
    #[inline(always)]
    pub fn retired_running(
        pc: u32,
        word: u32,
        next_pc: u32,
        branch_taken: bool,
        access: Option<LsAccess>,
        is_nop: bool,
    ) -> Self {
        Executed {
            pc,
            word,
            next_pc,
            branch_taken,
            access,
            profile: None,
            is_nop,
            retired: true,
            status: Status::Running,
        }
    }
}

/// Why a run returned: instruction mode's [`SpuState::run`](super::SpuState::run), the pipeline's
/// [`Pipeline::run`](crate::spu::pipeline::Pipeline::run) and
/// [`SpuUnit::run`](crate::spu::unit::SpuUnit::run) in either mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RunEnd {
    /// The SPU stopped (`stop`, halt, fault).
    Stopped(StopReason),
    /// The SPU waits on a channel; service the mailbox and run again.
    Blocked {
        /// The channel waited on.
        channel: u8,
    },
    /// The run's budget of cycles is used up while the SPU still runs. In instruction mode
    /// every instruction takes one cycle, so there the budget counts instructions.
    CycleLimit,
}

/// Result of a run (see [`RunEnd`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RunOutcome {
    /// Why the run ended.
    pub end: RunEnd,
    /// Cycles simulated in this call (instruction mode: instructions attempted, including
    /// one that waited on a channel).
    pub cycles: u64,
    /// Instructions completed (retired) in this call.
    pub instructions: u64,
    /// The PC when the run ended (after a stop, the next instruction's address).
    pub pc: u32,
}
