//! The SPU model's cycles in top-down level 1, checked against its own cycle accounting on the
//! SPU programs of `spu/programs/`: the four categories add up to the total cycles exactly, and
//! each is the sum of the statistics that docs/pmu.md ("Top-down level 1", the SPU table)
//! assigns to it.

mod spu_pipeline_support;

use pmprobe::pmu::topdown::Category;
use pmprobe::spu::isa::IClass;
use pmprobe::spu::pipeline::{Config, FetchKind};
use pmprobe::spu::probes::StallReason;
use pmprobe::spu::unit::Mode;
use spu_pipeline_support::{run_to_stop, unit_with};

/// The programs that run to their `stop` on their own (the channel pair needs a partner; the
/// two bench loads run for tens of millions of cycles).
const PROGRAMS: [&str; 8] = [
    "demo_saxpy.s",
    "demo_chain.s",
    "demo_dp.s",
    "hinted_loop.s",
    "loop.s",
    "dot.s",
    "call.s",
    "memcpy.s",
];

#[test]
fn every_stall_reason_has_the_documented_category() {
    use Category::*;
    let table = [
        (StallReason::Initialisation, FrontendBound),
        (StallReason::BranchMiss, BadSpeculation),
        (StallReason::PrefetchMiss, FrontendBound),
        (StallReason::FpResource, BackendBound),
        (StallReason::HintTarget, FrontendBound),
        (StallReason::DpPipeline, BackendBound),
        (StallReason::Channel, BackendBound),
    ];
    for (reason, category) in table {
        assert_eq!(reason.topdown_category(), category, "{reason:?}");
    }
    for class in IClass::ALL {
        assert_eq!(
            StallReason::Dependency(class).topdown_category(),
            BackendBound
        );
    }
}

#[test]
fn the_four_categories_add_up_to_the_spus_cycles_on_real_programs() {
    let mut seen = [0u64; 4];
    for file in PROGRAMS {
        let source = std::fs::read_to_string(format!("spu/programs/{file}")).unwrap();
        for fetch in [FetchKind::Ideal, FetchKind::Real] {
            let mut unit = unit_with(&source, Config::default(), Mode::Pipeline);
            unit.set_fetch(fetch).unwrap();
            let (outcome, _) = run_to_stop(&mut unit, 5_000_000);
            let stats = *unit.stats();
            stats.check_identities().unwrap();
            let topdown = stats.topdown();
            assert_eq!(topdown.total(), stats.cycles, "{file} {fetch:?}");
            assert_eq!(topdown.total(), outcome.cycles, "{file} {fetch:?}");
            // The table of docs/pmu.md, written out in the statistics' own terms.
            assert_eq!(
                topdown.retiring,
                stats.single_cycles + stats.dual_cycles + stats.nop_cycles,
                "{file}"
            );
            assert_eq!(topdown.bad_speculation, stats.branch_miss_stalls, "{file}");
            assert_eq!(
                topdown.frontend_bound,
                stats.initialisation_cycles + stats.prefetch_miss_stalls + stats.hint_target_stalls,
                "{file}"
            );
            assert_eq!(
                topdown.backend_bound,
                stats.dependency_stalls
                    + stats.fp_resource_stalls
                    + stats.dp_pipeline_stalls
                    + stats.channel_stalls,
                "{file}"
            );
            let shares = topdown.shares();
            let sum: f64 = Category::ALL
                .iter()
                .map(|c| shares.get(*c).value().unwrap())
                .sum();
            assert!((sum - 100.0).abs() < 1e-9, "{file}: {sum}");
            for (total, category) in seen.iter_mut().zip(Category::ALL) {
                *total += topdown.get(category);
            }
        }
    }
    assert!(
        seen.iter().all(|cycles| *cycles > 0),
        "the programs exercise every category: {seen:?}"
    );
}
