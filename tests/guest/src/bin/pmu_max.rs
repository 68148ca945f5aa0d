//! The PMU driver on QEMU `-cpu max`: the version QEMU 7.2 reports (PMUVer 6, PMUv3p5), 64-bit
//! event counters with PMCR.LP, and the larger implemented event set.
#![no_std]
#![no_main]

#[path = "../pmu_blocks.rs"]
mod pmu_blocks;

use pmprobe::pmu::Counter;
use pmprobe::pmu::Event;
use pmprobe::pmu::PmuVersion;
use pmprobe::pmu::{PmuBackend, PmuRegister};
use pmu_blocks::*;

pmprobe::entry!(main);

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("pmu_max");
    let Some(mut pmu) = detect_real_pmu(&mut t) else {
        return t.finish();
    };
    let info = *pmu.info();
    t.check_eq("detect_version_pmuv3p5", info.version, PmuVersion::V3p5);
    t.check_eq("detect_counters_6", info.counters, 6);
    t.check("detect_long_event_counters", info.long_event_counters);
    t.check("detect_no_freeze_on_overflow", !info.freeze_on_overflow);
    for (name, e) in [
        ("sw_incr_implemented", Event::SW_INCR),
        ("inst_retired_implemented", Event::INST_RETIRED),
        ("cpu_cycles_implemented", Event::CPU_CYCLES),
        ("stall_frontend_implemented", Event::STALL_FRONTEND),
        ("stall_backend_implemented", Event::STALL_BACKEND),
        ("stall_implemented", Event::STALL),
    ] {
        t.check(name, info.events.contains(e));
    }
    t.check(
        "l1d_cache_not_implemented",
        !info.events.contains(Event::L1D_CACHE),
    );
    t.check_eq("midr_implementer_0", info.cpu.implementer, 0);

    // The driver sets LP on PMUv3p5: event counters are 64-bit, no overflow at bit 31.
    let pmcr = pmu.backend().read(PmuRegister::Pmcr).unwrap_or(0);
    t.check_eq(
        "pmcr_lc_lp_set",
        pmcr & (PMCR_LC | PMCR_LP),
        PMCR_LC | PMCR_LP,
    );
    let ins = pmu.program(Event::INST_RETIRED);
    t.check_eq("program_inst_retired", ins, Ok(Counter::Event(0)));
    let preload = 0xFFFF_FFF8u64;
    t.check("preload", pmu.preload(Counter::Event(0), preload).is_ok());
    gated_block(PMCR_LC | PMCR_LP, 0);
    t.check_eq(
        "no_overflow_at_bit_31_with_lp",
        pmu.overflow_flags().map(|f| f & 1),
        Ok(0),
    );
    t.check_eq(
        "hardware_counter_is_64_bit",
        pmu.backend().read(PmuRegister::EvCntr(0)),
        Ok(preload + GATED_BLOCK_INSTRUCTIONS),
    );
    t.check_eq(
        "driver_count",
        pmu.read(Counter::Event(0)),
        Ok(preload + GATED_BLOCK_INSTRUCTIONS),
    );
    // Overflow at bit 63.
    t.check(
        "preload_near_2_64",
        pmu.preload(Counter::Event(0), u64::MAX - 3).is_ok(),
    );
    gated_block(PMCR_LC | PMCR_LP, 0);
    t.check_eq(
        "overflow_at_bit_63",
        pmu.overflow_flags().map(|f| f & 1),
        Ok(1),
    );
    t.check_eq(
        "wrapped_value",
        pmu.read(Counter::Event(0)),
        Ok(GATED_BLOCK_INSTRUCTIONS - 4),
    );
    t.finish()
}
