//! Why nothing issued in a cycle, and the PMUv3 stall event each reason feeds. A leaf: the
//! observer trait, the PMU feed and the top-down categories (`topdown.rs`) all name it.
#![forbid(unsafe_code)]

use crate::pmu::Event;
use crate::spu::isa::IClass;

/// Why nothing issued in a cycle (the simulator's stall categories).
///
/// `repr(u8)` with `Initialisation` first: a reset pipeline's stages carry it, and a reset
/// pipeline is all-zero bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum StallReason {
    /// The pipeline is filling after the SPU started.
    Initialisation,
    /// Waiting for the corrected path after a mispredicted branch.
    BranchMiss,
    /// The predicted path buffer could not be filled.
    PrefetchMiss,
    /// A source register is the unreleased target of this class's instruction.
    Dependency(IClass),
    /// An SP instruction would use the shared FP unit in the cycle an FP7/FPD one uses it.
    FpResource,
    /// A hinted branch waits for its target to arrive.
    HintTarget,
    /// The issue stall after a class with a non-zero `stall` (FPD: the DP pipeline).
    DpPipeline,
    /// Fetch waits for a serializing instruction (channel access, `stop`, halt) to complete.
    Channel,
    /// A channel instruction waits for the MFC or an event (tag status, atomic status, a
    /// list stall, a full command queue, the decrementer): the SPU is blocked on a channel.
    ChannelWait,
    /// A load or store waits for the local-store port, which DMA data has this cycle.
    DmaLocalStore,
}

impl StallReason {
    /// The PMUv3 stall event this reason feeds: waiting on operands, execution resources, the
    /// MFC or the local-store port is a back-end stall (STALL_BACKEND, 0x24); waiting for
    /// instructions (mispredict, prefetch miss, hint target, a serializing instruction,
    /// start-up) is a front-end stall (STALL_FRONTEND, 0x23).
    pub const fn pmu_event(self) -> Event {
        match self {
            // Waiting on the MFC is waiting on memory, the back end's.
            Self::Dependency(_)
            | Self::FpResource
            | Self::DpPipeline
            | Self::ChannelWait
            | Self::DmaLocalStore => Event::STALL_BACKEND,
            Self::BranchMiss
            | Self::PrefetchMiss
            | Self::HintTarget
            | Self::Channel
            | Self::Initialisation => Event::STALL_FRONTEND,
        }
    }
}
