//! CHAIN (event 0x1E) on QEMU's real (TCG) PMUv3, `-cpu cortex-a57` or `-cpu max`, and the
//! driver's 64-bit counts there.
//!
//! QEMU 7.2 does not implement CHAIN: its event table (target/arm/helper.c `pm_events`) has
//! SW_INCR, INST_RETIRED, CPU_CYCLES and, from PMUv3p1/p4, STALL_FRONTEND, STALL_BACKEND and
//! STALL; PMCEID0 bit 30 is clear on both CPUs, and a counter programmed with 0x1E counts
//! nothing, even when the even counter below it overflows. So on cortex-a57 (32-bit counters)
//! the driver refuses a chained pair, and on max (PMUv3p5) it needs none: PMCR.LP makes every
//! event counter 64 bits wide.
#![no_std]
#![no_main]

#[path = "../pmu_blocks.rs"]
mod pmu_blocks;

use pmprobe::pmu::{Counter, Error, Event, PmuBackend, PmuRegister, PmuVersion};
use pmu_blocks::*;

use PmuRegister::*;

pmprobe::entry!(main);

/// PMEVTYPER.U: do not count at EL0 (the guest runs at EL1), as kvm-unit-tests programs it.
const EXCLUDE_EL0: u64 = 1 << 30;
const CHAIN: u64 = 0x1E;
/// kvm-unit-tests' PRE_OVERFLOW_32.
const PRE_OVERFLOW_32: u64 = 0xFFFF_FFF0;

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("pmu_chain");
    let Some(mut pmu) = detect_real_pmu(&mut t) else {
        return t.finish();
    };
    let info = *pmu.info();
    let p5 = info.version.at_least(PmuVersion::V3p5);
    pmprobe::println!("PMCEID0_EL0 = {:#x}", info.events.pmceid0());
    t.check("chain_not_in_pmceid0", !info.events.contains(Event::CHAIN));

    // kvm-unit-tests' test_chained_sw_incr, register by register, PMCR.LP = 0: counter 0
    // counts SW_INCR from PRE_OVERFLOW_32, counter 1 counts CHAIN, odd counter enabled first.
    let b = pmu.backend();
    let w = |r, v| b.write(r, v).is_ok();
    let mut ok = w(EvTyper(0), EXCLUDE_EL0);
    ok &= w(EvTyper(1), CHAIN | EXCLUDE_EL0);
    ok &= w(EvCntr(0), PRE_OVERFLOW_32);
    ok &= w(EvCntr(1), 0);
    ok &= w(CntenSet, 0b10);
    ok &= w(CntenSet, 0b01);
    ok &= w(Pmcr, PMCR_LC | PMCR_E);
    for _ in 0..100 {
        ok &= w(Swinc, 0b1);
    }
    ok &= w(Pmcr, PMCR_LC);
    t.check("sw_incr_chain_programmed", ok);
    let even = b.read(EvCntr(0)).unwrap_or(u64::MAX);
    let odd = b.read(EvCntr(1)).unwrap_or(u64::MAX);
    let flags = b.read(OvsSet).unwrap_or(u64::MAX);
    pmprobe::println!("SW_INCR/CHAIN: #0 = {even:#x}, #1 = {odd:#x}, PMOVSSET = {flags:#x}");
    t.check_eq(
        "chain_evtyper_kept",
        b.read(EvTyper(1)).map(|v| v & 0xFFFF),
        Ok(CHAIN),
    );
    // PMUv3p5 keeps all 64 bits of the counter; before it, bits [63:32] are RES0.
    let wrapped = (PRE_OVERFLOW_32 + 100) & if p5 { u64::MAX } else { 0xFFFF_FFFF };
    t.check_eq("sw_incr_even_counter_wrapped", even, wrapped);
    t.check_eq("sw_incr_even_overflow_flagged", flags & 0b11, 0b01);
    t.check_eq("chain_odd_counter_counts_nothing", odd, 0);

    // The same with INST_RETIRED on the even counter across a gated block.
    let mut ok = w(CntenClr, 0b11);
    ok &= w(OvsClr, 0b11);
    ok &= w(EvTyper(0), 0x08 | EXCLUDE_EL0);
    ok &= w(EvCntr(0), 0xFFFF_FFF8);
    ok &= w(EvCntr(1), 0);
    ok &= w(CntenSet, 0b10);
    ok &= w(CntenSet, 0b01);
    t.check("inst_retired_chain_programmed", ok);
    gated_block(PMCR_LC, 0);
    let odd = b.read(EvCntr(1)).unwrap_or(u64::MAX);
    let flags = b.read(OvsSet).unwrap_or(u64::MAX);
    t.check_eq("inst_retired_even_overflow_flagged", flags & 0b11, 0b01);
    t.check_eq("inst_retired_chain_odd_counter_counts_nothing", odd, 0);

    // The driver's 64-bit counts.
    t.check("reset", pmu.reset().is_ok());
    if p5 {
        let long = pmu.program_long(Event::INST_RETIRED);
        t.check_eq("long_event_is_one_counter", long, Ok(Counter::Event(0)));
        t.check("long_event_not_chained", !pmu.is_chained(Counter::Event(0)));
        let preload = 0xFFFF_FFF8;
        t.check("preload", pmu.preload(Counter::Event(0), preload).is_ok());
        gated_block(PMCR_LC | PMCR_LP, 0);
        t.check_eq(
            "long_count_exact_across_bit_32",
            pmu.read(Counter::Event(0)),
            Ok(preload + GATED_BLOCK_INSTRUCTIONS),
        );
        t.check_eq(
            "no_overflow_flag_with_lp",
            pmu.overflow_flags().map(|f| f & 1),
            Ok(0),
        );
    } else {
        t.check_eq(
            "long_event_refused_without_chain",
            pmu.program_long(Event::INST_RETIRED),
            Err(Error::EventNotImplemented(Event::CHAIN)),
        );
        t.check_eq(
            "long_cycles_on_pmccntr",
            pmu.program_long(Event::CPU_CYCLES),
            Ok(Counter::Cycle),
        );
    }
    t.finish()
}
