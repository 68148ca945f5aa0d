//! Benchmark (prints figures; not a timed test): instructions the driver spends to start, to
//! stop, and to read a snapshot of the cycle counter + 6 event counters, next to hand-written
//! `msr`/`mrs` sequences doing the same (the limit). Run under QEMU `-icount shift=0`.
//!
//! Two instruments:
//! - INST_RETIRED-exact (PMCCNTR with 1 cycle = 1 instruction, counting on): `mrs` before and
//!   after the operation; the difference minus that of two back-to-back reads. Usable for
//!   start (counting already on, the driver's path does not depend on the state) and snapshot.
//!   It cannot see past the `msr` that stops counting, so it does not measure stop.
//! - The icount virtual clock: CNTVCT_EL0 advances 1 tick per 16 ns = 16 instructions at
//!   62.5 MHz; N calls in a loop, minus the same loop without the call, times 16 / N. Used for
//!   all three (and cross-checks the first instrument).
#![no_std]
#![no_main]

use core::arch::asm;
use core::hint::black_box;

use pmprobe::pmu::driver::{Counter, Pmu, Snapshot};
use pmprobe::pmu::event::Event;
use pmprobe::pmu::sysreg::SysRegPmu;

pmprobe::entry!(main);

const PMCR_LC: u64 = 1 << 6;
const PMCR_E: u64 = 1;
const LOOPS: u64 = 4096;

#[inline(always)]
fn pmccntr() -> u64 {
    let v: u64;
    // SAFETY: reading the cycle counter has no side effect.
    unsafe { asm!("mrs {v}, pmccntr_el0", v = out(reg) v, options(nostack, preserves_flags)) };
    v
}

#[inline(always)]
fn cntvct() -> u64 {
    let v: u64;
    // SAFETY: reading the virtual counter has no side effect.
    unsafe {
        asm!("isb", "mrs {v}, cntvct_el0", v = out(reg) v, options(nostack, preserves_flags))
    };
    v
}

fn cntfrq() -> u64 {
    let v: u64;
    // SAFETY: reading the counter frequency has no side effect.
    unsafe {
        asm!("mrs {v}, cntfrq_el0", v = out(reg) v, options(nostack, nomem, preserves_flags))
    };
    v
}

#[inline(never)]
fn hand_pmcr(value: u64) {
    // SAFETY: writes PMCR_EL0 only.
    unsafe {
        asm!("msr pmcr_el0, {v}", "isb", v = in(reg) value, options(nostack, preserves_flags))
    };
}

#[inline(never)]
fn hand_snapshot(out: &mut [u64; 7]) {
    // SAFETY: reads of PMU counters into the caller's array.
    unsafe {
        asm!(
            "isb",
            "mrs {a}, pmccntr_el0",
            "mrs {b}, pmevcntr0_el0",
            "mrs {c}, pmevcntr1_el0",
            "mrs {d}, pmevcntr2_el0",
            "mrs {e}, pmevcntr3_el0",
            "mrs {f}, pmevcntr4_el0",
            "mrs {g}, pmevcntr5_el0",
            "stp {a}, {b}, [{p}]",
            "stp {c}, {d}, [{p}, #16]",
            "stp {e}, {f}, [{p}, #32]",
            "str {g}, [{p}, #48]",
            p = in(reg) out.as_mut_ptr(),
            a = out(reg) _, b = out(reg) _, c = out(reg) _, d = out(reg) _,
            e = out(reg) _, f = out(reg) _, g = out(reg) _,
            options(nostack, preserves_flags),
        );
    }
}

/// Instructions of `f` by the PMCCNTR instrument (counting must be on).
fn exact(mut f: impl FnMut()) -> u64 {
    let empty = {
        let a = pmccntr();
        let b = pmccntr();
        b - a
    };
    let a = pmccntr();
    f();
    let b = pmccntr();
    (b - a).saturating_sub(empty)
}

/// Instructions per call of `f` by the virtual-clock instrument, in 1/100 instruction.
fn by_clock(instructions_per_tick: u64, mut f: impl FnMut()) -> u64 {
    let t0 = cntvct();
    for i in 0..LOOPS {
        black_box(i);
    }
    let t1 = cntvct();
    for i in 0..LOOPS {
        black_box(i);
        f();
    }
    let t2 = cntvct();
    let empty = t1 - t0;
    let full = t2 - t1;
    full.saturating_sub(empty) * instructions_per_tick * 100 / LOOPS
}

fn hundredths(v: u64) -> (u64, u64) {
    (v / 100, v % 100)
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("pmu_bench");
    let Ok(mut pmu) = Pmu::new(SysRegPmu::new()) else {
        t.check("detect", false);
        return t.finish();
    };
    // Cycle counter + 6 event counters.
    let events = [
        Event::CPU_CYCLES,
        Event::INST_RETIRED,
        Event::INST_RETIRED,
        Event::SW_INCR,
        Event::SW_INCR,
        Event::CPU_CYCLES,
        Event::INST_RETIRED,
    ];
    let programmed = events.iter().all(|e| pmu.program(*e).is_ok());
    t.check("programmed_cycle_counter_and_6_event_counters", programmed);
    t.check_eq(
        "cycle_counter_programmed",
        pmu.event_of(Counter::Cycle),
        Some(Event::CPU_CYCLES),
    );
    let freq = cntfrq();
    let per_tick = 1_000_000_000 / freq;
    t.check_eq("virtual_clock_16_ns_per_tick", per_tick, 16);

    let _ = pmu.start();
    // Exact figures (counting on).
    let start_exact = exact(|| {
        let _ = black_box(&mut pmu).start();
    });
    let mut snap = Snapshot::new();
    let snapshot_exact = exact(|| {
        if let Ok(s) = black_box(&mut pmu).snapshot() {
            snap = s;
        }
    });
    t.check_eq("snapshot_has_7_counters", snap.len(), 7);
    let mut reused = Snapshot::new();
    let snapshot_into_exact = exact(|| {
        let _ = black_box(&mut pmu).snapshot_into(black_box(&mut reused));
    });
    t.check_eq("snapshot_into_has_7_counters", reused.len(), 7);
    let hand_start_exact = exact(|| hand_pmcr(black_box(PMCR_LC | PMCR_E)));
    let mut raw = [0u64; 7];
    let hand_snapshot_exact = exact(|| hand_snapshot(black_box(&mut raw)));

    // Clock figures.
    let start_clock = by_clock(per_tick, || {
        let _ = black_box(&mut pmu).start();
    });
    let stop_clock = by_clock(per_tick, || {
        let _ = black_box(&mut pmu).stop();
    });
    let _ = pmu.start();
    let snapshot_clock = by_clock(per_tick, || {
        if let Ok(s) = black_box(&mut pmu).snapshot() {
            snap = s;
        }
    });
    let snapshot_into_clock = by_clock(per_tick, || {
        let _ = black_box(&mut pmu).snapshot_into(black_box(&mut reused));
    });
    let hand_start_clock = by_clock(per_tick, || hand_pmcr(black_box(PMCR_LC | PMCR_E)));
    let hand_stop_clock = by_clock(per_tick, || hand_pmcr(black_box(PMCR_LC)));
    let hand_snapshot_clock = by_clock(per_tick, || hand_snapshot(black_box(&mut raw)));
    let _ = pmu.stop();

    pmprobe::println!("PMU driver cost, instructions (QEMU cortex-a57, -icount shift=0)");
    pmprobe::println!(
        "operation                      | driver exact | driver clock | hand exact | hand clock"
    );
    let row = |name: &str, de: Option<u64>, dc: u64, he: Option<u64>, hc: u64| {
        let (dci, dcf) = hundredths(dc);
        let (hci, hcf) = hundredths(hc);
        let show = |v: Option<u64>| v.map_or(-1i64, |v| v as i64);
        pmprobe::println!(
            "{name:<30} | {:>12} | {dci:>9}.{dcf:02} | {:>10} | {hci:>7}.{hcf:02}",
            show(de),
            show(he)
        );
    };
    row(
        "start",
        Some(start_exact),
        start_clock,
        Some(hand_start_exact),
        hand_start_clock,
    );
    row("stop", None, stop_clock, None, hand_stop_clock);
    row(
        "snapshot_into (PMCCNTR + 6)",
        Some(snapshot_into_exact),
        snapshot_into_clock,
        Some(hand_snapshot_exact),
        hand_snapshot_clock,
    );
    row(
        "snapshot() by value (+ 6)",
        Some(snapshot_exact),
        snapshot_clock,
        Some(hand_snapshot_exact),
        hand_snapshot_clock,
    );
    pmprobe::println!(
        "(-1: not measurable with that instrument; clock figures include the call/return of a non-inlined closure;"
    );
    pmprobe::println!(
        " snapshot() returns a 328-byte Snapshot by value: memset + memcpy, and the two call sites inline differently)"
    );
    // The two instruments must agree within the clock's resolution and the loop's call overhead.
    // Tolerance: the clock loop adds a closure call/return and loop overhead per call.
    let close = |exact: u64, clock: u64| {
        let slack = 8 + exact / 4;
        clock / 100 + slack >= exact && exact + slack >= clock / 100
    };
    t.check(
        "instruments_agree_on_start",
        close(start_exact, start_clock),
    );
    t.check(
        "instruments_agree_on_snapshot_into",
        close(snapshot_into_exact, snapshot_into_clock),
    );
    t.check(
        "hand_snapshot_is_the_limit",
        hand_snapshot_exact <= snapshot_exact,
    );
    t.finish()
}
