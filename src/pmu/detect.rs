//! Detecting the PMU: what it is and what it counts.
#![forbid(unsafe_code)]

use tock_registers::LocalRegisterCopy;

use super::backend::{PmuBackend, PmuRegister};
use super::error::Error;
use super::event::EventSet;
use super::info::{CpuId, PmuVersion, decode_midr};
use super::regs::{ID_AA64DFR1_EL1, MAX_EVENT_COUNTERS, PMCR_EL0};

/// What [`detect`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PmuInfo {
    /// ID_AA64DFR0_EL1.PMUVer.
    pub version: PmuVersion,
    /// PMCR_EL0.N: number of event counters.
    pub counters: u8,
    /// Implemented common events (PMCEID0/1).
    pub events: EventSet,
    /// PMCR_EL0.IMP.
    pub implementer: u8,
    /// PMCR_EL0.IDCODE.
    pub idcode: u8,
    /// MIDR_EL1, decoded.
    pub cpu: CpuId,
    /// 64-bit event counters, PMCR.LP (FEAT_PMUv3p5).
    pub long_event_counters: bool,
    /// Freeze on overflow, PMCR.FZO (FEAT_PMUv3p7).
    pub freeze_on_overflow: bool,
    /// PMICNTR_EL0 (FEAT_PMUv3_ICNTR, ID_AA64DFR1_EL1.PMICNTR).
    pub instruction_counter: bool,
}

/// Probes the PMU the way Linux does: PMUVer from ID_AA64DFR0_EL1 (0 or 0xF: no usable PMU),
/// N, IMP and IDCODE from PMCR_EL0, implemented events from PMCEID0/1_EL0.
pub fn detect<B: PmuBackend>(backend: &B) -> Result<PmuInfo, Error> {
    let version = PmuVersion::from_id_aa64dfr0(backend.id_aa64dfr0());
    if !version.is_pmuv3() {
        return Err(Error::NoPmu(version));
    }
    let pmcr: LocalRegisterCopy<u64, PMCR_EL0::Register> =
        LocalRegisterCopy::new(backend.read(PmuRegister::Pmcr)?);
    let events = EventSet::from_pmceid(
        backend.read(PmuRegister::Ceid0)?,
        backend.read(PmuRegister::Ceid1)?,
    );
    let counters = (pmcr.read(PMCR_EL0::N) as u8).min(MAX_EVENT_COUNTERS);
    Ok(PmuInfo {
        version,
        counters,
        events,
        implementer: pmcr.read(PMCR_EL0::IMP) as u8,
        idcode: pmcr.read(PMCR_EL0::IDCODE) as u8,
        cpu: decode_midr(backend.midr()),
        long_event_counters: version.at_least(PmuVersion::V3p5),
        freeze_on_overflow: version.at_least(PmuVersion::V3p7),
        instruction_counter: has_instruction_counter(backend.id_aa64dfr1()),
    })
}

/// Whether an ID_AA64DFR1_EL1 value announces FEAT_PMUv3_ICNTR (PMICNTR_EL0).
pub(super) fn has_instruction_counter(id_aa64dfr1: u64) -> bool {
    let dfr1: LocalRegisterCopy<u64, ID_AA64DFR1_EL1::Register> =
        LocalRegisterCopy::new(id_aa64dfr1);
    dfr1.read(ID_AA64DFR1_EL1::PMICNTR) != 0
}
