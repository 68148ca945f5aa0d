//! The register fields the emulated PMU reads and writes, as masks: PMCR_EL0's bits, the EL
//! filter bits that PMEVTYPER, PMCCFILTR and PMICFILTR share, PMEVTYPER.evtCount and PMSELR.SEL.
#![forbid(unsafe_code)]

use crate::pmu::regs::{PMEVTYPER_EL0, PMSELR_EL0, field_bits};

/// PMCR_EL0 bits used by the model.
pub(super) mod pmcr {
    use crate::pmu::regs::{PMCR_EL0, field_bits};

    pub const E: u64 = field_bits(PMCR_EL0::E);
    pub const P: u64 = field_bits(PMCR_EL0::P);
    pub const C: u64 = field_bits(PMCR_EL0::C);
    pub const D: u64 = field_bits(PMCR_EL0::D);
    pub const X: u64 = field_bits(PMCR_EL0::X);
    pub const DP: u64 = field_bits(PMCR_EL0::DP);
    pub const LC: u64 = field_bits(PMCR_EL0::LC);
    pub const LP: u64 = field_bits(PMCR_EL0::LP);
    pub const FZO: u64 = field_bits(PMCR_EL0::FZO);
}

/// EL filter bits of PMEVTYPER / PMCCFILTR / PMICFILTR (one layout for all three).
pub(super) mod filter {
    use crate::pmu::regs::{PMEVTYPER_EL0, field_bits};

    pub const P: u64 = field_bits(PMEVTYPER_EL0::P);
    pub const U: u64 = field_bits(PMEVTYPER_EL0::U);
    pub const NSH: u64 = field_bits(PMEVTYPER_EL0::NSH);
}

/// PMEVTYPER.evtCount: the event number of an event counter.
pub(super) const EVTCOUNT: u64 = field_bits(PMEVTYPER_EL0::evtCount);
/// PMSELR.SEL.
pub(super) const SEL: u64 = field_bits(PMSELR_EL0::SEL);
