//! The cost of one breakpoint hit and one watchpoint hit, in instructions from the trap to the
//! resumed code (exception entry, the monitor, the step past the instruction and its own
//! exception, the returns), counted by the real PMU's INST_RETIRED around the same code with
//! and without the comparator (exact under QEMU's `-icount shift=0`). BENCHMARKS.md quotes
//! the figures.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicU64, Ordering};

use pmprobe::hwdebug::WatchKind;
use pmprobe::pmu::{Counter, Event, Pmu, SysRegPmu};
use pmprobe::rt::debug_exceptions;

pmprobe::entry!(main);

/// Hits measured per figure (the mean is printed).
const HITS: u64 = 100;

#[inline(never)]
fn target(x: u64) -> u64 {
    black_box(x) + 1
}

static WATCHED: AtomicU64 = AtomicU64::new(0);

#[inline(never)]
fn write_watched(x: u64) {
    WATCHED.store(black_box(x), Ordering::Relaxed);
}

/// Instructions retired by `HITS` calls of `work`.
fn instructions(pmu: &mut Pmu<SysRegPmu>, counter: Counter, work: impl Fn(u64)) -> u64 {
    let before = pmu.read(counter).unwrap_or(0);
    for i in 0..HITS {
        work(i);
    }
    pmu.read(counter).unwrap_or(0) - before
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("breakpoint_watchpoint_cost");
    let Ok(mut pmu) = Pmu::new(SysRegPmu::new()) else {
        t.check("pmu", false);
        return t.finish();
    };
    let Ok(counter) = pmu.program(Event::INST_RETIRED) else {
        t.check("program", false);
        return t.finish();
    };
    t.check("pmu_started", pmu.start().is_ok());
    t.check("debug_enabled", debug_exceptions::enable().is_ok());

    let call = |i| {
        black_box(target(i));
    };
    let plain = instructions(&mut pmu, counter, call);
    let breakpoint =
        debug_exceptions::with_monitor(|m| m.install_breakpoint(target as *const () as u64));
    let with_breakpoint = instructions(&mut pmu, counter, call);
    if let Ok(Ok(breakpoint)) = breakpoint {
        let hits = debug_exceptions::with_monitor(|m| m.breakpoint_hits(breakpoint));
        t.check_eq("breakpoint_hits", hits, Ok(HITS));
        let _ = debug_exceptions::with_monitor(|m| m.remove_breakpoint(breakpoint));
    }
    let per_breakpoint = (with_breakpoint - plain) / HITS;
    pmprobe::println!(
        "one breakpoint hit: {per_breakpoint} instructions ({plain} for {HITS} calls without, {with_breakpoint} with)"
    );

    let store = |i| write_watched(i);
    let plain = instructions(&mut pmu, counter, store);
    let watchpoint = debug_exceptions::with_monitor(|m| {
        m.install_watchpoint(WATCHED.as_ptr() as u64, 8, WatchKind::Write)
    });
    let with_watchpoint = instructions(&mut pmu, counter, store);
    if let Ok(Ok(watchpoint)) = watchpoint {
        let hits = debug_exceptions::with_monitor(|m| m.watchpoint_hits(watchpoint));
        t.check_eq("watchpoint_hits", hits, Ok(HITS));
        let _ = debug_exceptions::with_monitor(|m| m.remove_watchpoint(watchpoint));
    }
    let per_watchpoint = (with_watchpoint - plain) / HITS;
    pmprobe::println!(
        "one watchpoint hit: {per_watchpoint} instructions ({plain} for {HITS} stores without, {with_watchpoint} with)"
    );
    // A hit is two exceptions (the comparator, then the step) with the monitor in between:
    // hundreds of instructions, far from free and far from a millisecond.
    t.check_with(
        "hit_costs_measured",
        per_breakpoint > 50 && per_watchpoint > 50 && per_breakpoint < 20_000,
        format_args!("{per_breakpoint} / {per_watchpoint}"),
    );
    t.finish()
}
