//! `--list-events`: the running core's events, `perf list` style (the name and number; the
//! descriptions stay out of the firmware image), and nothing else.

use crate::demo::shared::output::outln;
use pmprobe::pmu::catalogue::{EventInfo, for_midr};
use pmprobe::pmu::{PmuBackend, SysRegPmu, detect};

/// Prints the common events this core's PMCEID announces, then the core's own table's events
/// PMCEID cannot describe; 0, or 1 when the core has no usable PMU.
pub fn print() -> i32 {
    let real = SysRegPmu::new();
    let core = for_midr(real.midr());
    let info = match detect(&real) {
        Ok(info) => info,
        Err(e) => {
            outln!("list-events: {e}");
            return 1;
        }
    };
    outln!(
        "Events of {} (MIDR_EL1 0x{:08x}) that PMCEID announces:",
        core.name(),
        real.midr()
    );
    core.announced(info.events).for_each(print_event);
    if core.has_core_table() {
        outln!();
        outln!(
            "Events {} lists that PMCEID cannot describe (0x40 and up):",
            core.name()
        );
        core.beyond_pmceid().for_each(print_event);
    }
    0
}

fn print_event(event: &EventInfo) {
    outln!("  {:<32} [0x{:04x}]", event.name(), event.number());
    // Bare-metal builds carry no descriptions (image size); the host build prints them.
    if !event.description().is_empty() {
        outln!("       [{}]", event.description());
    }
}
