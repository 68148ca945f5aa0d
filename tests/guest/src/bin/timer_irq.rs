//! Timer interrupts are taken and returned from, and the interrupted code's integer and FP/SIMD
//! state survives them (the vector code saves x0-x30, q0-q31, FPSR, FPCR).
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicU32, Ordering};
use pmprobe::rt::{irq, timer};

pmprobe::entry!(main);

static TICKS: AtomicU32 = AtomicU32::new(0);
const PERIOD: u32 = 200;

fn on_timer(_intid: u32) {
    // Touch FP registers inside the handler so a missing save would corrupt the main loop.
    let x = black_box(3.0f64) * black_box(7.0f64);
    black_box(x);
    if TICKS.fetch_add(1, Ordering::Relaxed) + 1 < 50 {
        timer::arm(PERIOD);
    } else {
        timer::disarm();
    }
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("timer_irq");
    t.check(
        "irq_enable",
        irq::enable(timer::PHYSICAL_TIMER_INTID, on_timer).is_ok(),
    );
    let lines = irq::lines().unwrap_or(0);
    t.check(
        "irq_past_the_gic_rejected",
        matches!(
            irq::enable(lines, on_timer),
            Err(irq::IrqError::OutOfRange { .. })
        ),
    );
    t.check(
        "irq_special_intid_rejected",
        matches!(
            irq::enable(1023, on_timer),
            Err(irq::IrqError::OutOfRange { .. })
        ),
    );
    timer::arm(PERIOD);
    // SAFETY: not inside a critical section; the handler is installed.
    unsafe { irq::unmask() };
    // Sum 1.0 + 2.0 + ... exactly in f64 while interrupts arrive.
    let mut sum = 0.0f64;
    let mut int_sum = 0u64;
    let mut i = 0u64;
    while TICKS.load(Ordering::Relaxed) < 50 && i < 50_000_000 {
        i += 1;
        sum += black_box(i as f64);
        int_sum += i;
    }
    irq::mask();
    t.check_with(
        "fifty_interrupts_taken",
        TICKS.load(Ordering::Relaxed) >= 50,
        format_args!("ticks = {}", TICKS.load(Ordering::Relaxed)),
    );
    t.check_eq(
        "fp_state_survives_interrupts",
        sum,
        (i * (i + 1) / 2) as f64,
    );
    t.check_eq("int_state_survives_interrupts", int_sum, i * (i + 1) / 2);
    t.finish()
}
