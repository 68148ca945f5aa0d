//! QEMU tests of the PMU driver on QEMU's real (TCG) PMUv3, `-icount shift=0`: the guest
//! programs tests/guest/src/bin/pmu_*.rs.
mod common;

use common::qemu::{Options, run_guest};

#[test]
fn driver_on_cortex_a57_real_pmu() {
    let run = run_guest("pmu_real", &Options::default());
    run.assert_passed();
    for check in [
        "detect_version_pmuv3",
        "detect_counters_6",
        "detect_events_exactly_sw_incr_inst_retired_cpu_cycles",
        "inst_retired_exact_over_asm_block",
        "sw_incr_counts_pmswinc_writes",
        "p_c_reset_counters_read_0",
        "overflow_flag_set_for_pmevcntr0",
        "driver_64_bit_count_across_wrap",
        "l1d_cache_not_implemented",
    ] {
        assert_eq!(run.check(check), Some(true), "{check}");
    }
}

#[test]
fn driver_on_cpu_max_reports_pmuv3p5() {
    let run = run_guest(
        "pmu_max",
        &Options {
            cpu: "max",
            ..Options::default()
        },
    );
    run.assert_passed();
    assert_eq!(run.check("detect_version_pmuv3p5"), Some(true));
    assert!(run.stdout.contains("PMU: PMUv3p5"), "{}", run.stdout);
}

#[test]
fn real_and_emulated_pmu_read_the_same_values() {
    let run = run_guest("pmu_diff", &Options::default());
    run.assert_passed();
    assert_eq!(run.check("every_value_equal"), Some(true));
}

#[test]
fn benchmark_program_runs() {
    let run = run_guest("pmu_bench", &Options::default());
    run.assert_passed();
    println!("{}", run.stdout);
}

/// The multiplexer's cost in instructions (BENCHMARKS.md, "Multiplexing and interval mode").
#[test]
fn multiplexer_benchmark_runs() {
    let run = run_guest("mux_bench", &Options::default());
    run.assert_passed();
    println!("{}", run.stdout);
}

/// Multiplexing on the real PMU rotated on a generic-timer tick (every 4 ms, perf's default):
/// with a uniform workload every scaled estimate is within 0.5 % of the pinned exact count, and
/// the five counters left beside the pinned group are busy all the time.
#[test]
fn multiplexer_rotated_on_the_generic_timer_tick_estimates_a_uniform_workload() {
    let run = run_guest("mux_timer", &Options::default());
    run.assert_passed();
    println!("{}", run.stdout);
    for check in [
        "rotated_on_every_tick",
        "estimates_within_half_a_percent",
        "time_running_is_5_counters_x_enabled",
    ] {
        assert_eq!(run.check(check), Some(true), "{check}");
    }
}

#[test]
fn overflow_interrupt_follows_pminten() {
    run_guest("pmu_irq", &Options::default()).assert_passed();
}

/// QEMU 7.2 implements no CHAIN (its event table has none): not in PMCEID0, and an odd
/// counter programmed with 0x1E counts nothing while the even counter below it overflows.
fn chain_checks(cpu: &'static str) -> common::qemu::GuestRun {
    let run = run_guest(
        "pmu_chain",
        &Options {
            cpu,
            ..Options::default()
        },
    );
    run.assert_passed();
    println!("{}", run.stdout);
    for check in [
        "chain_not_in_pmceid0",
        "chain_evtyper_kept",
        "sw_incr_even_counter_wrapped",
        "sw_incr_even_overflow_flagged",
        "chain_odd_counter_counts_nothing",
        "inst_retired_even_overflow_flagged",
        "inst_retired_chain_odd_counter_counts_nothing",
    ] {
        assert_eq!(run.check(check), Some(true), "{cpu}: {check}");
    }
    run
}

#[test]
fn chain_on_cortex_a57_counts_nothing_and_the_driver_refuses_a_pair() {
    let run = chain_checks("cortex-a57");
    assert_eq!(run.check("long_event_refused_without_chain"), Some(true));
    assert_eq!(run.check("long_cycles_on_pmccntr"), Some(true));
}

#[test]
fn chain_on_cpu_max_counts_nothing_and_long_events_need_no_pair() {
    let run = chain_checks("max");
    for check in [
        "long_event_is_one_counter",
        "long_event_not_chained",
        "long_count_exact_across_bit_32",
        "no_overflow_flag_with_lp",
    ] {
        assert_eq!(run.check(check), Some(true), "max: {check}");
    }
}
