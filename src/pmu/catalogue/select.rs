//! Choosing a core's catalogue by MIDR_EL1.
#![forbid(unsafe_code)]

use super::core_catalogue::CoreCatalogue;
use super::cores::CORES;
use crate::pmu::info::decode_midr;

/// The catalogue of a core without a table of its own: the architecture's events only.
static COMMON_ONLY: CoreCatalogue = CoreCatalogue::new("common events (Armv8/Armv9)", 0, 0, &[], 0);

/// The catalogue for the core `midr` (MIDR_EL1) names, by Implementer and PartNum; a core
/// without a table of its own gets the architecture's events only.
pub fn for_midr(midr: u64) -> &'static CoreCatalogue {
    let id = decode_midr(midr);
    CORES
        .iter()
        .find(|core| core.has_core_table() && core.midr_match() == (id.implementer, id.part))
        .unwrap_or(&COMMON_ONLY)
}

/// The catalogue of the architecture's events alone (what an unknown core gets).
pub fn common_only() -> &'static CoreCatalogue {
    &COMMON_ONLY
}
