//! The CHAIN event (0x1E) of the emulated PMUv3, one test per rule.
//!
//! Expected values come from the Arm ARM: its pseudocode (`AArch64.IncrementEventCounter`,
//! `AArch64.PMUCycle`, `CountPMUEvents`, `PMUEvent`, quoted by name), the CHAIN event's
//! definition ("for an odd-numbered counter, increment when an overflow occurs on the preceding
//! even-numbered counter; for even-numbered counters, does not count"), the rule ITLHSZ for
//! freeze-on-overflow, and the figures kvm-unit-tests' `arm/pmu.c` expects of real and KVM
//! PMUs (`test_chained_counters`, `test_chained_sw_incr`, `test_chain_promotion`,
//! `test_overflow_interrupt`), written out here.

use pmprobe::pmu::{EmulatedConfig, EmulatedPmu, ExceptionLevel, PmuBackend, PmuRegister};

use PmuRegister::*;

const SW_INCR: u16 = 0x00;
const L1D_CACHE: u16 = 0x04;
const MEM_ACCESS: u16 = 0x13;
const CPU_CYCLES: u16 = 0x11;
const CHAIN: u64 = 0x1E;
const E: u64 = 1;
const LC: u64 = 1 << 6;
const LP: u64 = 1 << 7;
const FZO: u64 = 1 << 9;
/// PMEVTYPER.P: do not count at EL1. PMEVTYPER.U: do not count at EL0.
const EXCLUDE_EL1: u64 = 1 << 31;
const EXCLUDE_EL0: u64 = 1 << 30;
/// kvm-unit-tests' PRE_OVERFLOW_32 and ALL_SET_32.
const PRE_OVERFLOW_32: u64 = 0xFFFF_FFF0;
const ALL_SET_32: u64 = 0xFFFF_FFFF;

/// A PMUv3 core with 32-bit event counters (no FEAT_PMUv3p5) that implements CHAIN, the
/// events kvm-unit-tests uses, and `n` counters.
fn chaining_core(n: u8) -> EmulatedPmu {
    EmulatedPmu::new(EmulatedConfig {
        counters: n,
        ceid0: 1 << SW_INCR | 1 << L1D_CACHE | 1 << MEM_ACCESS | 1 << CPU_CYCLES | 1 << CHAIN,
        ..EmulatedConfig::qemu_cortex_a57()
    })
}

fn rd(pmu: &EmulatedPmu, r: PmuRegister) -> u64 {
    pmu.read(r).unwrap()
}
fn wr(pmu: &EmulatedPmu, r: PmuRegister, v: u64) {
    pmu.write(r, v).unwrap()
}

/// Counter 0 counts `event`, counter 1 counts CHAIN, both excluding EL0 as kvm-unit-tests
/// programs them; the odd counter is enabled first, as its `enable_chain_counter` does.
fn chained_pair(pmu: &EmulatedPmu, event: u16, pmcr: u64) {
    wr(pmu, EvTyper(0), u64::from(event) | EXCLUDE_EL0);
    wr(pmu, EvTyper(1), CHAIN | EXCLUDE_EL0);
    wr(pmu, CntenSet, 0b10);
    wr(pmu, CntenSet, 0b01);
    wr(pmu, Pmcr, E | pmcr);
}

fn swinc(pmu: &EmulatedPmu, bits: u64, times: u32) {
    for _ in 0..times {
        wr(pmu, Swinc, bits);
    }
}

#[test]
fn increment_event_counter_an_even_overflow_counts_once_on_the_odd_counter_sw_incr() {
    // test_chained_sw_incr: PRE_OVERFLOW_32 + 100 SW_INCR: #0 wraps, #1 = 1, only #0 overflowed.
    let pmu = chaining_core(6);
    chained_pair(&pmu, SW_INCR, 0);
    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    swinc(&pmu, 0b1, 100);
    assert_eq!(rd(&pmu, EvCntr(1)), 1);
    assert_eq!(rd(&pmu, OvsClr), 0b01);
    assert_eq!(rd(&pmu, EvCntr(0)), (PRE_OVERFLOW_32 + 100) & ALL_SET_32);
}

#[test]
fn increment_event_counter_the_odd_counter_overflows_at_32_bits_too() {
    // test_chained_sw_incr, 64-bit part: #1 = ALL_SET_32 wraps to 0, both flags set.
    let pmu = chaining_core(6);
    chained_pair(&pmu, SW_INCR, 0);
    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    wr(&pmu, EvCntr(1), ALL_SET_32);
    swinc(&pmu, 0b1, 100);
    assert_eq!(rd(&pmu, EvCntr(0)), 0x54);
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
    assert_eq!(rd(&pmu, OvsClr), 0b11);
}

#[test]
fn increment_event_counter_chains_cpu_cycles_as_test_chained_counters_expects() {
    let pmu = chaining_core(6);
    chained_pair(&pmu, CPU_CYCLES, 0);
    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    pmu.tick_cycles(22);
    assert_eq!(rd(&pmu, EvCntr(1)), 1, "CHAIN counter #1 incremented");
    assert_eq!(
        rd(&pmu, OvsClr),
        0b01,
        "overflow recorded for chained incr #1"
    );

    wr(&pmu, OvsClr, 0b11);
    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    wr(&pmu, EvCntr(1), 1);
    pmu.tick_cycles(22);
    assert_eq!(rd(&pmu, EvCntr(1)), 2, "CHAIN counter #1 set to 2");
    assert_eq!(rd(&pmu, OvsClr), 0b01);

    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    wr(&pmu, EvCntr(1), ALL_SET_32);
    pmu.tick_cycles(22);
    assert_eq!(rd(&pmu, EvCntr(1)), 0, "CHAIN counter #1 wrapped");
    assert_eq!(rd(&pmu, OvsClr), 0b11, "overflow on even and odd counters");
}

#[test]
fn increment_event_counter_one_chain_event_per_wrap_of_a_large_count() {
    // Counting 2^33 + 5 events one by one wraps a counter at 0 twice.
    let pmu = chaining_core(6);
    chained_pair(&pmu, L1D_CACHE, 0);
    pmu.count(L1D_CACHE, (1 << 33) + 5);
    assert_eq!(rd(&pmu, EvCntr(0)), 5);
    assert_eq!(rd(&pmu, EvCntr(1)), 2);
}

#[test]
fn pmu_event_chain_is_generated_for_one_counter_and_never_fed_from_outside() {
    // PMUEvent(PMU_EVENT_CHAIN, 1, idx + 1) names the odd counter; nothing else produces CHAIN.
    let pmu = chaining_core(6);
    for i in 0..6 {
        wr(&pmu, EvTyper(i), CHAIN);
    }
    wr(&pmu, CntenSet, 0b11_1111);
    wr(&pmu, Pmcr, E);
    pmu.count(0x1E, 1000);
    let input = pmu.event_input(0x1E).unwrap();
    input.add(1000);
    for i in 0..6 {
        assert_eq!(rd(&pmu, EvCntr(i)), 0, "counter {i}");
    }
    assert_eq!(rd(&pmu, OvsClr), 0);
}

#[test]
fn chain_on_an_even_counter_counts_nothing() {
    // Counter 1 overflows; counter 2 counts CHAIN: odd counters generate no CHAIN event.
    let pmu = chaining_core(6);
    wr(&pmu, EvTyper(1), u64::from(SW_INCR));
    wr(&pmu, EvTyper(2), CHAIN);
    wr(&pmu, CntenSet, 0b110);
    wr(&pmu, Pmcr, E);
    wr(&pmu, EvCntr(1), ALL_SET_32);
    swinc(&pmu, 0b10, 1);
    assert_eq!(rd(&pmu, OvsClr), 0b10);
    assert_eq!(rd(&pmu, EvCntr(2)), 0);
}

#[test]
fn increment_event_counter_the_highest_counter_of_an_odd_n_has_no_partner() {
    // idx + 1 < NUM_PMU_COUNTERS: with N = 5 counter 4 chains into nothing, and the RAZ/WI
    // counter 5 stays 0.
    let pmu = chaining_core(5);
    wr(&pmu, EvTyper(4), u64::from(SW_INCR));
    wr(&pmu, EvTyper(5), CHAIN);
    wr(&pmu, CntenSet, 0b11_0000);
    wr(&pmu, Pmcr, E);
    wr(&pmu, EvCntr(4), ALL_SET_32);
    swinc(&pmu, 0b1_0000, 1);
    assert_eq!(rd(&pmu, OvsClr), 0b1_0000);
    assert_eq!(rd(&pmu, EvCntr(5)), 0);
    assert_eq!(rd(&pmu, Ccntr), 0);
}

#[test]
fn increment_event_counter_counter_30_does_not_chain_into_the_cycle_counter() {
    // N = 31: counter 30 is even and its partner index 31 is the cycle counter's bit.
    let pmu = chaining_core(31);
    wr(&pmu, EvTyper(30), u64::from(SW_INCR));
    wr(&pmu, CntenSet, 1 << 30 | 1 << 31);
    wr(&pmu, Pmcr, E);
    wr(&pmu, EvCntr(30), ALL_SET_32);
    swinc(&pmu, 1 << 30, 1);
    assert_eq!(rd(&pmu, OvsClr), 1 << 30);
    assert_eq!(rd(&pmu, Ccntr), 0);
}

#[test]
fn increment_cycle_counter_generates_no_chain_whatever_pmcr_lc_holds() {
    // AArch64.IncrementCycleCounter sets PMOVSSET.C and nothing else.
    for lc in [0, LC] {
        let pmu = chaining_core(6);
        wr(&pmu, EvTyper(1), CHAIN);
        wr(&pmu, CntenSet, 0b10 | 1 << 31);
        wr(&pmu, Pmcr, E | lc);
        let near = if lc == 0 { ALL_SET_32 } else { u64::MAX };
        wr(&pmu, Ccntr, near);
        pmu.tick_cycles(1);
        assert_eq!(rd(&pmu, OvsClr), 1 << 31, "LC {lc:#x}");
        assert_eq!(rd(&pmu, EvCntr(1)), 0, "LC {lc:#x}");
    }
}

#[test]
fn pmcr_lc_does_not_change_event_counter_chaining() {
    for lc in [0, LC] {
        let pmu = chaining_core(6);
        chained_pair(&pmu, SW_INCR, lc);
        wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
        swinc(&pmu, 0b1, 100);
        assert_eq!(rd(&pmu, EvCntr(1)), 1, "LC {lc:#x}");
    }
}

#[test]
fn count_pmu_events_an_even_counter_that_is_disabled_generates_nothing() {
    // test_chain_promotion subtest 1: only the CHAIN counter enabled.
    let pmu = chaining_core(6);
    wr(&pmu, EvTyper(0), u64::from(MEM_ACCESS) | EXCLUDE_EL0);
    wr(&pmu, EvTyper(1), CHAIN | EXCLUDE_EL0);
    wr(&pmu, EvCntr(0), ALL_SET_32);
    wr(&pmu, CntenSet, 0b10);
    wr(&pmu, Pmcr, E);
    pmu.count(MEM_ACCESS, 250);
    assert_eq!(rd(&pmu, EvCntr(0)), ALL_SET_32);
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
    assert_eq!(rd(&pmu, OvsClr), 0);
}

#[test]
fn count_pmu_events_a_disabled_odd_counter_does_not_count_the_overflow_it_still_flags() {
    // test_chain_promotion subtest 2: only the even counter enabled.
    let pmu = chaining_core(6);
    wr(&pmu, EvTyper(0), u64::from(MEM_ACCESS) | EXCLUDE_EL0);
    wr(&pmu, EvTyper(1), CHAIN | EXCLUDE_EL0);
    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    wr(&pmu, CntenSet, 0b01);
    wr(&pmu, Pmcr, E);
    pmu.count(MEM_ACCESS, 250);
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
    assert_eq!(rd(&pmu, OvsClr), 0b01);
}

#[test]
fn count_pmu_events_enabling_the_odd_counter_later_chains_the_next_overflow() {
    // test_chain_promotion subtest 4: 250 events unchained from PRE_OVERFLOW2_32, then the
    // pair enabled for 250 more: the overflow falls in the second run and counts once.
    let pre_overflow2 = ALL_SET_32 - 250 - 100;
    let pmu = chaining_core(6);
    wr(&pmu, EvTyper(0), u64::from(MEM_ACCESS) | EXCLUDE_EL0);
    wr(&pmu, EvTyper(1), CHAIN | EXCLUDE_EL0);
    wr(&pmu, CntenSet, 0b01);
    wr(&pmu, EvCntr(0), pre_overflow2);
    wr(&pmu, Pmcr, E);
    pmu.count(MEM_ACCESS, 250);
    wr(&pmu, CntenClr, 0b01);
    wr(&pmu, CntenSet, 0b10);
    wr(&pmu, CntenSet, 0b01);
    pmu.count(MEM_ACCESS, 250);
    assert_eq!(rd(&pmu, EvCntr(1)), 1);
    assert_eq!(rd(&pmu, OvsClr), 0b01);
}

#[test]
fn count_pmu_events_the_odd_counters_own_el_filter_decides() {
    // The overflow happens at EL1. The odd counter excludes EL1: it does not count, though the
    // even counter (which counts at EL1) overflowed.
    let pmu = chaining_core(6);
    wr(&pmu, EvTyper(0), u64::from(L1D_CACHE));
    wr(&pmu, EvTyper(1), CHAIN | EXCLUDE_EL1);
    wr(&pmu, CntenSet, 0b11);
    wr(&pmu, Pmcr, E);
    wr(&pmu, EvCntr(0), ALL_SET_32);
    pmu.count(L1D_CACHE, 1);
    assert_eq!(rd(&pmu, OvsClr), 0b01);
    assert_eq!(rd(&pmu, EvCntr(1)), 0);

    // At EL0 the same odd counter counts (P excludes EL1 only).
    wr(&pmu, OvsClr, 0b11);
    wr(&pmu, EvCntr(0), ALL_SET_32);
    pmu.set_el(ExceptionLevel::El0);
    pmu.count(L1D_CACHE, 1);
    pmu.set_el(ExceptionLevel::El1);
    assert_eq!(rd(&pmu, EvCntr(1)), 1);
}

#[test]
fn count_pmu_events_a_filtered_even_counter_does_not_overflow_nor_chain() {
    let pmu = chaining_core(6);
    wr(&pmu, EvTyper(0), u64::from(L1D_CACHE) | EXCLUDE_EL1);
    wr(&pmu, EvTyper(1), CHAIN);
    wr(&pmu, CntenSet, 0b11);
    wr(&pmu, Pmcr, E);
    wr(&pmu, EvCntr(0), ALL_SET_32);
    pmu.count(L1D_CACHE, 10);
    assert_eq!(rd(&pmu, OvsClr), 0);
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
}

#[test]
fn count_pmu_events_pmcr_e_clear_stops_the_pair() {
    let pmu = chaining_core(6);
    chained_pair(&pmu, SW_INCR, 0);
    wr(&pmu, EvCntr(0), ALL_SET_32);
    wr(&pmu, Pmcr, 0);
    swinc(&pmu, 0b1, 5);
    assert_eq!(rd(&pmu, EvCntr(0)), ALL_SET_32);
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
}

#[test]
fn increment_event_counter_pmcr_lp_set_means_no_chain_event() {
    // lp == '1': the even counter overflows at 64 bits and generates no CHAIN; kvm-unit-tests'
    // test_overflow_interrupt with 64-bit overflow: "Odd counter did not change".
    let pmu = EmulatedPmu::neoverse_v1_like();
    chained_pair(&pmu, L1D_CACHE, LP);
    wr(&pmu, EvCntr(0), 0xFFFF_FFFF_FFFF_FFF0);
    wr(&pmu, EvCntr(1), ALL_SET_32);
    pmu.count(L1D_CACHE, 1000);
    assert_eq!(rd(&pmu, OvsClr), 0b01);
    assert_eq!(rd(&pmu, EvCntr(1)), ALL_SET_32);
    // A 32-bit wrap with LP = 1 is no overflow and no CHAIN either.
    wr(&pmu, OvsClr, 0b11);
    wr(&pmu, EvCntr(0), ALL_SET_32);
    pmu.count(L1D_CACHE, 1);
    assert_eq!(rd(&pmu, EvCntr(0)), 1 << 32);
    assert_eq!(rd(&pmu, OvsClr), 0);
    assert_eq!(rd(&pmu, EvCntr(1)), ALL_SET_32);
}

#[test]
fn increment_event_counter_pmuv3p5_with_lp_clear_chains_and_keeps_64_bits() {
    // FEAT_PMUv3p5: PMEVCNTR keeps new_value<63:0>; with LP = 0 the overflow is at bit 31 and
    // generates CHAIN.
    let pmu = EmulatedPmu::neoverse_v1_like();
    chained_pair(&pmu, L1D_CACHE, 0);
    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    pmu.count(L1D_CACHE, 0x20);
    assert_eq!(rd(&pmu, EvCntr(0)), 0x1_0000_0010);
    assert_eq!(rd(&pmu, EvCntr(1)), 1);
    assert_eq!(rd(&pmu, OvsClr), 0b01);
}

#[test]
fn itlhsz_with_fzo_the_freezing_overflow_is_not_seen_by_chain() {
    // Rule ITLHSZ leaves it CONSTRAINED UNPREDICTABLE whether CHAIN observes an overflow that
    // freezes the counters (FZO = 1, LP = 0); the model takes the pseudocode's order: the flag
    // is set first, so the odd counter is frozen when CHAIN reaches it.
    let pmu = EmulatedPmu::neoverse_v1_like();
    chained_pair(&pmu, L1D_CACHE, FZO);
    wr(&pmu, EvCntr(0), ALL_SET_32);
    pmu.count(L1D_CACHE, 10);
    assert_eq!(rd(&pmu, OvsClr), 0b01);
    assert_eq!(
        rd(&pmu, EvCntr(0)),
        1 << 32,
        "frozen right after the overflow"
    );
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
}

#[test]
fn the_odd_counters_overflow_raises_the_interrupt_of_the_pair() {
    // PMINTENSET on the odd counter only: the line rises when the 64-bit pair wraps, not at
    // each 32-bit wrap of the even counter.
    let pmu = chaining_core(6);
    chained_pair(&pmu, L1D_CACHE, 0);
    wr(&pmu, IntenSet, 0b10);
    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    wr(&pmu, EvCntr(1), ALL_SET_32 - 1);
    pmu.count(L1D_CACHE, 0x10);
    assert!(!pmu.irq_line(), "one even wrap: odd at ALL_SET_32");
    pmu.count(L1D_CACHE, 1 << 32);
    assert!(pmu.irq_line(), "the pair wrapped past 2^64");
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
    assert_eq!(rd(&pmu, OvsClr), 0b11);
}

#[test]
fn chaining_through_an_event_input_matches_counting_on_arrival() {
    let eager = chaining_core(6);
    let lazy = chaining_core(6);
    for pmu in [&eager, &lazy] {
        chained_pair(pmu, L1D_CACHE, 0);
        wr(pmu, EvCntr(0), PRE_OVERFLOW_32);
        wr(pmu, IntenSet, 0b11);
    }
    let input = lazy.event_input(L1D_CACHE).unwrap();
    for step in 0..40 {
        eager.count(L1D_CACHE, 1);
        input.add(1);
        assert_eq!(lazy.irq_line(), eager.irq_line(), "step {step}");
    }
    for r in [EvCntr(0), EvCntr(1), OvsClr] {
        assert_eq!(rd(&lazy, r), rd(&eager, r), "{r}");
    }
    assert_eq!(rd(&eager, EvCntr(1)), 1);
}

#[test]
fn the_qemu_a57_preset_does_not_implement_chain_as_qemu_7_2_does_not() {
    // QEMU 7.2's PMU has no CHAIN (PMCEID0 bit 30 clear); its odd counters never count one.
    let pmu = EmulatedPmu::qemu_cortex_a57();
    assert_eq!(rd(&pmu, Ceid0) & 1 << CHAIN, 0);
    chained_pair(&pmu, SW_INCR, 0);
    wr(&pmu, EvCntr(0), PRE_OVERFLOW_32);
    swinc(&pmu, 0b1, 100);
    assert_eq!(rd(&pmu, OvsClr), 0b01);
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
}
