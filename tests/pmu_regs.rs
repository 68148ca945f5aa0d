//! The masks derived from the `register_bitfields!` declarations in `pmu::regs` against the
//! bit positions the Arm ARM gives (D-profile, "The Performance Monitors Extension"): a typo in
//! a declaration moves every derived mask, and this catches it.

use pmprobe::pmu::regs::{
    COUNTER_32_MAX, CYCLE_COUNTER_BIT, EVENT_COUNTER_BITS, FILTER_MASK, ID_AA64DFR1_EL1,
    INSTRUCTION_COUNTER_BIT, MAX_EVENT_COUNTERS, PMCR_EL0, PMEVTYPER_EL0, PMSELR_EL0,
    SEL_CYCLE_COUNTER, USERENR_MASK, field_bits,
};

#[test]
fn counter_bits_and_counts_match_the_architecture() {
    assert_eq!(CYCLE_COUNTER_BIT, 31);
    assert_eq!(INSTRUCTION_COUNTER_BIT, 32);
    assert_eq!(MAX_EVENT_COUNTERS, 31);
    assert_eq!(EVENT_COUNTER_BITS, 0x7FFF_FFFF);
    assert_eq!(SEL_CYCLE_COUNTER, 31);
    assert_eq!(COUNTER_32_MAX, 0xFFFF_FFFF);
}

#[test]
fn pmcr_bits_match_the_architecture() {
    let bits = [
        (field_bits(PMCR_EL0::E), 1 << 0),
        (field_bits(PMCR_EL0::P), 1 << 1),
        (field_bits(PMCR_EL0::C), 1 << 2),
        (field_bits(PMCR_EL0::D), 1 << 3),
        (field_bits(PMCR_EL0::X), 1 << 4),
        (field_bits(PMCR_EL0::DP), 1 << 5),
        (field_bits(PMCR_EL0::LC), 1 << 6),
        (field_bits(PMCR_EL0::LP), 1 << 7),
        (field_bits(PMCR_EL0::FZO), 1 << 9),
        (field_bits(PMCR_EL0::N), 0x1F << 11),
        (field_bits(PMCR_EL0::IDCODE), 0xFF << 16),
        (field_bits(PMCR_EL0::IMP), 0xFF << 24),
    ];
    for (index, (derived, architecture)) in bits.into_iter().enumerate() {
        assert_eq!(derived, architecture, "PMCR field {index}");
    }
}

#[test]
fn filter_event_selection_and_id_fields_match_the_architecture() {
    assert_eq!(FILTER_MASK, 0xFC00_0000);
    assert_eq!(field_bits(PMEVTYPER_EL0::NSH), 1 << 27);
    assert_eq!(field_bits(PMEVTYPER_EL0::evtCount), 0xFFFF);
    assert_eq!(field_bits(PMEVTYPER_EL0::evtCount_v3), 0x3FF);
    assert_eq!(field_bits(PMSELR_EL0::SEL), 0x1F);
    assert_eq!(USERENR_MASK, 0b10_1111);
    assert_eq!(field_bits(ID_AA64DFR1_EL1::PMICNTR), 0xF << 36);
}
