//! What an emulated PMU implements: its identity, counters and optional features.
#![forbid(unsafe_code)]

use super::fields::{EVTCOUNT, pmcr};
use crate::pmu::regs::{
    CYCLE_COUNTER_BIT, INSTRUCTION_COUNTER_BIT, MAX_EVENT_COUNTERS, PMEVTYPER_EL0, field_bits,
};

/// What the emulated PMU implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmulatedConfig {
    /// ID_AA64DFR0_EL1.PMUVer (1 = PMUv3, 4 = v3p1, 5 = v3p4, 6 = v3p5, 7 = v3p7, ...).
    pub pmu_version: u8,
    /// PMCR.N: number of event counters (0..=31; larger values are clamped to 31).
    pub counters: u8,
    /// PMCR.IMP.
    pub implementer: u8,
    /// PMCR.IDCODE.
    pub idcode: u8,
    /// MIDR_EL1 reported by the model.
    pub midr: u64,
    /// PMCEID0_EL0 (events 0x00..0x1F, and 0x4000..0x401F in the upper half).
    pub ceid0: u64,
    /// PMCEID1_EL0 (events 0x20..0x3F, and 0x4020..0x403F in the upper half).
    pub ceid1: u64,
    /// 64-bit event counters and PMCR.LP (FEAT_PMUv3p5).
    pub long_event_counters: bool,
    /// PMCR.FZO freeze-on-overflow (FEAT_PMUv3p7).
    pub freeze_on_overflow: bool,
    /// PMICNTR_EL0 / PMICFILTR_EL0 and the F0 bits (FEAT_PMUv3_ICNTR).
    pub instruction_counter: bool,
    /// EL2 is implemented (PMEVTYPER.NSH counts at EL2).
    pub el2: bool,
}

impl EmulatedConfig {
    /// What QEMU 7.2 reports for `-cpu cortex-a57`: PMUv3, N = 6, PMCR = 0x41013000,
    /// PMCEID0 = 0x20101 (SW_INCR, INST_RETIRED, CPU_CYCLES), PMCEID1 = 0.
    pub const fn qemu_cortex_a57() -> Self {
        Self {
            pmu_version: 1,
            counters: 6,
            implementer: 0x41,
            idcode: 0x01,
            midr: 0x411F_D070,
            ceid0: 0x2_0101,
            ceid1: 0,
            long_event_counters: false,
            freeze_on_overflow: false,
            instruction_counter: false,
            el2: true,
        }
    }

    /// A Neoverse-V1-like core: PMUv3p5 with the PMUv3p7 freeze-on-overflow, N = 6, the common
    /// events such a core implements (cache, TLB, branch, memory, stall events).
    pub const fn neoverse_v1_like() -> Self {
        Self {
            pmu_version: 7,
            counters: 6,
            implementer: 0x41,
            idcode: 0x40,
            midr: 0x410F_D402,
            // All of 0x00..=0x1F.
            ceid0: 0xFFFF_FFFF,
            // 0x20..=0x26, 0x29..=0x2B, 0x2D, 0x2F, 0x31, 0x34..=0x37, 0x39..=0x3F.
            ceid1: 0xFEF2_AE7F,
            long_event_counters: true,
            freeze_on_overflow: true,
            instruction_counter: false,
            el2: true,
        }
    }

    pub(super) fn n(&self) -> u8 {
        if self.counters > MAX_EVENT_COUNTERS {
            MAX_EVENT_COUNTERS
        } else {
            self.counters
        }
    }

    /// Bits of PMCNTEN/PMOVS/PMINTEN that exist: P[N-1:0], C, and F0 with ICNTR.
    pub(super) fn counter_mask(&self) -> u64 {
        let events = (1u64 << self.n()) - 1;
        let icntr = if self.instruction_counter {
            1u64 << INSTRUCTION_COUNTER_BIT
        } else {
            0
        };
        events | (1u64 << CYCLE_COUNTER_BIT) | icntr
    }

    pub(super) fn pmcr_writable(&self) -> u64 {
        let mut mask = pmcr::E | pmcr::D | pmcr::X | pmcr::DP | pmcr::LC;
        if self.long_event_counters {
            mask |= pmcr::LP;
        }
        if self.freeze_on_overflow {
            mask |= pmcr::FZO;
        }
        mask
    }

    pub(super) fn evtcount_mask(&self) -> u64 {
        // PMUv3 (v1) has evtCount[9:0]; PMUv3p1 widened it to [15:0].
        if self.pmu_version == 1 {
            field_bits(PMEVTYPER_EL0::evtCount_v3)
        } else {
            EVTCOUNT
        }
    }
}
