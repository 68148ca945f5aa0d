//! The PMU overflow interrupt on QEMU (INTID 23, PPI 7): raised only for a counter whose
//! PMINTENSET bit is set when it overflows with PMCR.E set; the handler lowers the line and the
//! driver still takes the overflow into its 64-bit count.
//!
//! Observed on QEMU 7.2 TCG with `-icount shift=0`: the overflow of a counter is only noticed
//! (flag set, line raised) at the next PMU register access, here the `msr pmcr_el0` of
//! `stop()`, not while the loop runs (the same for INST_RETIRED and CPU_CYCLES). The Arm ARM
//! does not bound the latency, so the program reports it and checks only that the interrupt
//! arrives once, and only for the counter whose PMINTENSET bit is set.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use pmprobe::pmu::Event;
use pmprobe::pmu::SysRegPmu;
use pmprobe::pmu::{Counter, Pmu};
use pmprobe::pmu::{PmuBackend, PmuRegister};
use pmprobe::rt::irq;

pmprobe::entry!(main);

const PMU_INTID: u32 = 23;
static TAKEN: AtomicU32 = AtomicU32::new(0);
static FLAGS: AtomicU64 = AtomicU64::new(0);

fn on_pmu_overflow(_intid: u32) {
    let pmu = SysRegPmu::new();
    let flags = pmu.read(PmuRegister::OvsSet).unwrap_or(0);
    FLAGS.fetch_or(flags, Ordering::Relaxed);
    TAKEN.fetch_add(1, Ordering::Relaxed);
    // Lower the level-triggered line by disabling the interrupt; the flag stays for the driver.
    let _ = pmu.write(PmuRegister::IntenClr, flags);
    pmu.isb();
}

/// Runs up to `n` loop iterations with counting on, stopping early once an interrupt was
/// taken; returns the iterations run.
fn spin(pmu: &mut Pmu<SysRegPmu>, n: u64) -> u64 {
    let _ = pmu.start();
    let mut i = 0;
    while i < n && TAKEN.load(Ordering::Relaxed) == 0 {
        i = black_box(i + 1);
    }
    let before_stop = TAKEN.load(Ordering::Relaxed);
    let _ = pmu.stop();
    pmprobe::println!(
        "interrupts taken before stop(): {before_stop}, after: {}",
        TAKEN.load(Ordering::Relaxed)
    );
    i
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("pmu_irq");
    let Ok(mut pmu) = Pmu::new(SysRegPmu::new()) else {
        t.check("detect", false);
        return t.finish();
    };
    t.check(
        "irq_enable_23",
        irq::enable(PMU_INTID, on_pmu_overflow).is_ok(),
    );
    // SAFETY: not inside a critical section; the handler is installed.
    unsafe { irq::unmask() };

    // Overflow without PMINTEN: flag only, no interrupt.
    t.check(
        "program_quiet",
        pmu.program_on(Counter::Event(2), Event::INST_RETIRED, false)
            .is_ok(),
    );
    let _ = pmu.preload(Counter::Event(2), 0xFFFF_FF00);
    spin(&mut pmu, 2000);
    t.check_eq(
        "quiet_counter_flag_set",
        pmu.overflow_flags().map(|f| f & (1 << 2)),
        Ok(1 << 2),
    );
    t.check_eq(
        "no_interrupt_without_pminten",
        TAKEN.load(Ordering::Relaxed),
        0,
    );
    let quiet = pmu.read(Counter::Event(2)).unwrap_or(0);
    t.check_with(
        "quiet_counter_64_bit",
        quiet > 0xFFFF_FFFF && quiet < 0x1_0001_0000,
        format_args!("{quiet:#x}"),
    );
    let _ = pmu.release(Counter::Event(2));

    // Overflow with PMINTEN: the interrupt is taken once.
    t.check(
        "program_with_interrupt",
        pmu.program_on(Counter::Event(0), Event::INST_RETIRED, true)
            .is_ok(),
    );
    t.check_eq(
        "pmintenset_bit",
        pmu.backend().read(PmuRegister::IntenSet).map(|v| v & 1),
        Ok(1),
    );
    let _ = pmu.preload(Counter::Event(0), 0xFFFF_FF00);
    let iterations = spin(&mut pmu, 100_000);
    irq::mask();
    // The Arm ARM does not bound the interrupt latency; report it.
    pmprobe::println!("overflow interrupt after {iterations} of 100000 loop iterations");
    t.check_eq("interrupt_taken_once", TAKEN.load(Ordering::Relaxed), 1);
    t.check_eq(
        "handler_saw_counter_0_flag",
        FLAGS.load(Ordering::Relaxed) & 1,
        1,
    );
    let n = pmu.read(Counter::Event(0)).unwrap_or(0);
    // The loop body is a handful of instructions: 100000 iterations stay far below 2^32 + 2^21.
    t.check_with(
        "count_continues_past_2_32",
        n > 0xFFFF_FFFF && n < 0x1_0020_0000,
        format_args!("{n:#x}"),
    );
    t.finish()
}
