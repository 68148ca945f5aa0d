//! The pipeline's cycle accounting as top-down level 1.
#![forbid(unsafe_code)]

use super::stats::Statistics;
use crate::pmu::topdown::{Category, CycleBreakdown};
use crate::spu::isa::IClass;
use crate::spu::probes::StallReason;

impl Statistics {
    /// Every cycle in one of the four top-down categories: a cycle in which instructions
    /// issued (single, dual, or only `nop`/`lnop`) is retiring, since the SPU issues in order
    /// and never issues down a wrong path; a cycle in which nothing issued goes where its
    /// [`StallReason`] says ([`StallReason::topdown_category`]); the initialisation cycles are
    /// [`StallReason::Initialisation`]'s. The four add up to [`cycles`](Self::cycles) whenever
    /// [`check_identities`](Self::check_identities) holds.
    ///
    /// The statistics are taken apart field by field: a counter added to them does not compile
    /// here until it is placed (or said to be no cycle category).
    pub fn topdown(&self) -> CycleBreakdown {
        let Statistics {
            cycles: _,
            instructions: _,
            non_nop_instructions: _,
            branches_taken: _,
            branches_not_taken: _,
            hints: _,
            hint_hits: _,
            ls_contention: _,
            single_cycles,
            dual_cycles,
            nop_cycles,
            branch_miss_stalls,
            prefetch_miss_stalls,
            // Taken by class below.
            dependency_stalls: _,
            fp_resource_stalls,
            hint_target_stalls,
            dp_pipeline_stalls,
            channel_stalls,
            channel_wait_stalls,
            dma_local_store_stalls,
            initialisation_cycles,
            dependency_by_class,
            sp_issue_block: _,
            dp_issue_block: _,
            cross_issue_cycles: _,
            src0_dep_cycles: _,
            registers_used: _,
        } = *self;
        let mut breakdown = CycleBreakdown::default();
        for issued in [single_cycles, dual_cycles, nop_cycles] {
            breakdown.add(Category::Retiring, issued);
        }
        for (reason, cycles) in [
            (StallReason::Initialisation, initialisation_cycles),
            (StallReason::BranchMiss, branch_miss_stalls),
            (StallReason::PrefetchMiss, prefetch_miss_stalls),
            (StallReason::FpResource, fp_resource_stalls),
            (StallReason::HintTarget, hint_target_stalls),
            (StallReason::DpPipeline, dp_pipeline_stalls),
            (StallReason::Channel, channel_stalls),
            (StallReason::ChannelWait, channel_wait_stalls),
            (StallReason::DmaLocalStore, dma_local_store_stalls),
        ] {
            breakdown.add(reason.topdown_category(), cycles);
        }
        for (class, cycles) in IClass::ALL.into_iter().zip(dependency_by_class) {
            breakdown.add(StallReason::Dependency(class).topdown_category(), cycles);
        }
        breakdown
    }
}
