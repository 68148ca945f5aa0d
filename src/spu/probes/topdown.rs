//! The SPU's stall classes in the four categories of top-down level 1.
#![forbid(unsafe_code)]

use super::stall::StallReason;
use crate::pmu::topdown::Category;

impl StallReason {
    /// The top-down category of a cycle in which nothing issued for this reason. Unlike
    /// [`pmu_event`](Self::pmu_event), which follows what the issue stage sees (STALL_FRONTEND
    /// counts every cycle in which no instruction was there to issue), this follows the
    /// cause, as the top-down method does (Yasin, "A Top-Down Method for Performance Analysis
    /// and Counters Architecture", ISPASS 2014; Arm's Neoverse methodology):
    ///
    /// | reason | category | why |
    /// |---|---|---|
    /// | `BranchMiss` | bad speculation | the refetch after a misprediction: cycles lost to a wrong guess (Arm's V1 and N2 formulas move `4 × BR_MIS_PRED` cycles from frontend bound to bad speculation for the same reason) |
    /// | `Initialisation`, `PrefetchMiss`, `HintTarget` | frontend bound | fetch has not delivered the instructions yet |
    /// | `Dependency(_)`, `FpResource`, `DpPipeline` | backend bound | operands or execution resources are not ready |
    /// | `Channel` | backend bound | a channel instruction (or `stop`) holds fetch until it completes: a serializing operation, which the top-down tree puts under backend (core) bound, and a wait for data from outside |
    /// | `ChannelWait`, `DmaLocalStore` | backend bound | waiting on the MFC (a DMA's data, an atomic, a tag group) or for the LS port DMA holds: memory bound, the top-down tree's backend branch |
    ///
    /// The match is exhaustive on purpose: a new stall reason does not compile until it has a
    /// category.
    pub const fn topdown_category(self) -> Category {
        match self {
            Self::BranchMiss => Category::BadSpeculation,
            Self::Initialisation | Self::PrefetchMiss | Self::HintTarget => Category::FrontendBound,
            Self::Dependency(_)
            | Self::FpResource
            | Self::DpPipeline
            | Self::Channel
            | Self::ChannelWait
            | Self::DmaLocalStore => Category::BackendBound,
        }
    }
}
