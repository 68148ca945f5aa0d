//! The PMU driver on QEMU's real (TCG) PMUv3, `-cpu cortex-a57 -icount shift=0`: detection,
//! exact INST_RETIRED over fixed asm blocks, SW_INCR, P/C reset, overflow with the 64-bit
//! software extension, indexed registers without PMSELR, and the not-implemented error.
#![no_std]
#![no_main]

#[path = "../pmu_blocks.rs"]
mod pmu_blocks;

use aarch64_cpu::registers::Readable;
use pmprobe::pmu::PmuVersion;
use pmprobe::pmu::regs::PMCR_EL0;
use pmprobe::pmu::{Counter, Error};
use pmprobe::pmu::{Event, EventSet};
use pmprobe::pmu::{PmuBackend, PmuRegister};
use pmu_blocks::*;

pmprobe::entry!(main);

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("pmu_real");
    let Some(mut pmu) = detect_real_pmu(&mut t) else {
        return t.finish();
    };
    let info = *pmu.info();
    t.check_eq("detect_version_pmuv3", info.version, PmuVersion::V3);
    t.check_eq("detect_counters_6", info.counters, 6);
    t.check_eq(
        "detect_events_exactly_sw_incr_inst_retired_cpu_cycles",
        info.events,
        EventSet::from_pmceid(1 << 0x00 | 1 << 0x08 | 1 << 0x11, 0),
    );
    t.check_eq("detect_no_long_counters", info.long_event_counters, false);
    let pmcr_base = PMCR_LC;
    // tock-registers field operations on the system-register back end.
    let pmcr_view = pmu.backend().pmcr();
    t.check_eq("tock_view_pmcr_n", pmcr_view.read(PMCR_EL0::N), 6);
    t.check_eq("tock_view_pmcr_imp", pmcr_view.read(PMCR_EL0::IMP), 0x41);
    t.check(
        "tock_view_pmcr_lc_set_by_reset",
        pmcr_view.is_set(PMCR_EL0::LC),
    );
    t.check("tock_view_no_fault", pmcr_view.fault().is_none());

    // INST_RETIRED (and, 1 instruction = 1 cycle, CPU_CYCLES) over a fixed block.
    let ins = pmu.program(Event::INST_RETIRED);
    let cyc = pmu.program(Event::CPU_CYCLES);
    t.check_eq(
        "program_inst_retired_on_pmevcntr0",
        ins,
        Ok(Counter::Event(0)),
    );
    t.check_eq("program_cpu_cycles_on_pmccntr", cyc, Ok(Counter::Cycle));
    t.check("start", pmu.start().is_ok());
    let (inst_delta, cycle_delta) = read_around_block();
    t.check_eq(
        "inst_retired_exact_over_asm_block",
        inst_delta,
        READ_BLOCK_BETWEEN + 1,
    );
    t.check_eq(
        "cpu_cycles_exact_over_asm_block",
        cycle_delta,
        READ_BLOCK_BETWEEN + 1,
    );
    t.check("stop", pmu.stop().is_ok());

    // Through the driver: counting gated inside the block only.
    t.check("reset_counts", pmu.reset_counts().is_ok());
    gated_block(pmcr_base, 0);
    t.check_eq(
        "driver_reads_gated_block_inst",
        pmu.read(Counter::Event(0)),
        Ok(GATED_BLOCK_INSTRUCTIONS),
    );
    t.check_eq(
        "driver_reads_gated_block_cycles",
        pmu.read(Counter::Cycle),
        Ok(GATED_BLOCK_INSTRUCTIONS),
    );

    // SW_INCR counts PMSWINC writes (only for counters programmed with SW_INCR).
    let sw = pmu.program(Event::SW_INCR);
    t.check_eq("program_sw_incr", sw, Ok(Counter::Event(1)));
    t.check("start_for_swinc", pmu.start().is_ok());
    for _ in 0..5 {
        let _ = pmu.backend().write(PmuRegister::Swinc, 0b11);
    }
    t.check("stop_after_swinc", pmu.stop().is_ok());
    t.check_eq(
        "sw_incr_counts_pmswinc_writes",
        pmu.read(Counter::Event(1)),
        Ok(5),
    );
    gated_block(pmcr_base, 0b10);
    t.check_eq(
        "sw_incr_counts_block_pmswinc_writes",
        pmu.read(Counter::Event(1)),
        Ok(5 + GATED_BLOCK_SW_INCREMENTS),
    );

    // P/C reset: all counters read 0 and PMCR reads P and C as 0.
    let before = pmu.snapshot().ok();
    t.check(
        "counters_nonzero_before_reset",
        before.is_some_and(|s| s.iter().all(|(_, _, n)| n > 0)),
    );
    t.check("reset_counts_again", pmu.reset_counts().is_ok());
    let after = pmu.snapshot().ok();
    t.check(
        "p_c_reset_counters_read_0",
        after.is_some_and(|s| s.len() == 3 && s.iter().all(|(_, _, n)| n == 0)),
    );
    let pmcr = pmu.backend().read(PmuRegister::Pmcr).unwrap_or(u64::MAX);
    t.check_eq("pmcr_p_c_read_as_0", pmcr & 0b110, 0);

    // Overflow: a counter preloaded near 0xFFFF_FFFF wraps, sets its flag, and the driver's
    // 64-bit count continues past 2^32.
    let preload = 0xFFFF_FFF8u64;
    t.check("preload", pmu.preload(Counter::Event(0), preload).is_ok());
    gated_block(pmcr_base, 0);
    let flags = pmu.overflow_flags().unwrap_or(0);
    t.check_eq("overflow_flag_set_for_pmevcntr0", flags & 1, 1);
    t.check_eq("overflow_flag_clear_for_cycles", flags & (1 << 31), 0);
    let raw = pmu
        .backend()
        .read(PmuRegister::EvCntr(0))
        .unwrap_or(u64::MAX);
    t.check_eq(
        "hardware_counter_wrapped",
        raw,
        (preload + GATED_BLOCK_INSTRUCTIONS) & 0xFFFF_FFFF,
    );
    t.check_eq(
        "driver_64_bit_count_across_wrap",
        pmu.read(Counter::Event(0)),
        Ok(preload + GATED_BLOCK_INSTRUCTIONS),
    );
    t.check_eq(
        "overflow_flag_taken_by_driver",
        pmu.overflow_flags().map(|f| f & 1),
        Ok(0),
    );
    gated_block(pmcr_base, 0);
    t.check_eq(
        "driver_64_bit_count_keeps_counting",
        pmu.read(Counter::Event(0)),
        Ok(preload + 2 * GATED_BLOCK_INSTRUCTIONS),
    );

    // Indexed registers are reached without PMSELR: the selection survives programming.
    let _ = pmu.backend().write(PmuRegister::Selr, 3);
    let on5 = pmu.program_on(Counter::Event(5), Event::INST_RETIRED, false);
    t.check("program_on_counter_5", on5.is_ok());
    t.check_eq(
        "pmselr_untouched",
        pmu.backend().read(PmuRegister::Selr),
        Ok(3),
    );
    let _ = pmu.backend().write(PmuRegister::Selr, 5);
    t.check_eq(
        "pmevtyper5_matches_pmxevtyper",
        pmu.backend().read(PmuRegister::EvTyper(5)),
        pmu.backend().read(PmuRegister::XevTyper),
    );
    t.check_eq(
        "pmevtyper5_event",
        pmu.backend()
            .read(PmuRegister::EvTyper(5))
            .map(|v| v & 0xFFFF),
        Ok(0x08),
    );
    gated_block(pmcr_base, 0);
    t.check_eq(
        "pmevcntr5_counts",
        pmu.read(Counter::Event(5)),
        Ok(GATED_BLOCK_INSTRUCTIONS),
    );

    // Errors.
    t.check_eq(
        "l1d_cache_not_implemented",
        pmu.program(Event::L1D_CACHE),
        Err(Error::EventNotImplemented(Event::L1D_CACHE)),
    );
    t.check_eq(
        "br_mis_pred_not_implemented",
        pmu.program(Event::BR_MIS_PRED),
        Err(Error::EventNotImplemented(Event::BR_MIS_PRED)),
    );
    t.check_eq(
        "event_0xc001_too_wide_for_pmuv3",
        pmu.program(Event::raw(0xC001)),
        Err(Error::EventTooWide {
            event: Event::raw(0xC001),
            bits: 10,
        }),
    );
    t.check_eq(
        "counter_6_out_of_range",
        pmu.program_on(Counter::Event(6), Event::INST_RETIRED, false),
        Err(Error::CounterOutOfRange(6)),
    );
    t.finish()
}
