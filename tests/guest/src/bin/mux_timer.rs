//! Multiplexing on the real PMU, rotated on a generic-timer tick as perf rotates on its timer
//! (every 4 ms by default), with time in generic-timer ticks: the estimates of a uniform
//! workload must come out at what the pinned counter counted exactly.
//!
//! The timer interrupt marks a rotation due and re-arms; the workload loop rotates at its next
//! check (the interrupt handler cannot reach the multiplexer the loop holds, so the rotation is
//! deferred by at most one loop iteration, as a bottom half). QEMU's cortex-a57 PMU has six
//! counters and counts SW_INCR, INST_RETIRED and CPU_CYCLES: a pinned group (CPU_CYCLES on
//! PMCCNTR, INST_RETIRED) and three flexible groups of five INST_RETIRED counters take turns.
//! Under `-icount shift=0` a tick is 16 instructions, so time running is proportional to the
//! instructions each group saw, and the estimate of each must match the pinned count to within
//! the rotations' own instructions.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use pmprobe::pmu::{Event, GroupKind, Multiplexer, Pmu, SysRegPmu};
use pmprobe::rt::{irq, timer};

pmprobe::entry!(main);

/// 4 ms of the 62.5 MHz generic timer: perf's default rotation interval.
const PERIOD: u32 = 250_000;
/// Timer ticks to run the workload for: 40 rotation periods.
const TICKS: u64 = 40 * PERIOD as u64;

static DUE: AtomicBool = AtomicBool::new(false);
static INTERRUPTS: AtomicU32 = AtomicU32::new(0);

fn on_timer(_intid: u32) {
    DUE.store(true, Ordering::Relaxed);
    INTERRUPTS.fetch_add(1, Ordering::Relaxed);
    timer::arm(PERIOD);
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("mux_timer");
    let Ok(mut pmu) = Pmu::new(SysRegPmu::new()) else {
        t.check("detect", false);
        return t.finish();
    };
    let mut mux = Multiplexer::<_, 17, 4>::new(&mut pmu);
    let pinned = mux.add_group(&[Event::CPU_CYCLES, Event::INST_RETIRED], GroupKind::Pinned);
    let flexible = [(); 3].map(|()| mux.add_group(&[Event::INST_RETIRED; 5], GroupKind::Flexible));
    t.check(
        "groups_added",
        pinned.is_ok() && flexible.iter().all(Result::is_ok),
    );
    t.check(
        "irq_enable",
        irq::enable(timer::PHYSICAL_TIMER_INTID, on_timer).is_ok(),
    );
    let start = timer::now();
    t.check("started", mux.start(start).is_ok());
    timer::arm(PERIOD);
    // SAFETY: not inside a critical section; the handler is installed.
    unsafe { irq::unmask() };
    let mut rotations = 0u32;
    let mut work = 0u64;
    let mut now = start;
    while now.wrapping_sub(start) < TICKS {
        // Uniform work between two checks.
        for i in 0..64u64 {
            work = work.wrapping_add(black_box(i));
        }
        now = timer::now();
        if DUE.swap(false, Ordering::Relaxed) {
            rotations += u32::from(mux.rotate(now).is_ok());
        }
    }
    irq::mask();
    timer::disarm();
    black_box(work);
    let stopped = mux.stop(now).is_ok();
    t.check("stopped", stopped);
    let Ok(readings) = mux.read(now) else {
        t.check("read", false);
        return t.finish();
    };
    t.check_with(
        "rotated_on_every_tick",
        rotations >= 38 && rotations == INTERRUPTS.load(Ordering::Relaxed),
        format_args!(
            "{rotations} rotations, {} interrupts",
            INTERRUPTS.load(Ordering::Relaxed)
        ),
    );
    let exact = readings.exact(Event::INST_RETIRED).unwrap_or(0);
    let enabled = readings.iter().next().map_or(0, |r| r.enabled);
    let mut worst = 0.0f64;
    let mut running = 0;
    for reading in readings.iter().skip(2) {
        running += reading.running;
        let estimate = reading.estimate().unwrap_or(0) as f64;
        let error = (estimate - exact as f64).abs() / exact as f64;
        worst = worst.max(error);
    }
    pmprobe::println!(
        "mux_timer: {rotations} rotations in {enabled} ticks; pinned INST_RETIRED {exact}; worst estimate error {:.4} %",
        worst * 100.0
    );
    t.check_with(
        "estimates_within_half_a_percent",
        exact > 10_000_000 && worst < 0.005,
        format_args!("worst {:.4} %", worst * 100.0),
    );
    // Fifteen flexible events, five counters at every moment.
    t.check_eq("time_running_is_5_counters_x_enabled", running, 5 * enabled);
    t.finish()
}
