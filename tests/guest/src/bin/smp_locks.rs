//! SMP bring-up and the multi-core primitives, hammered from every core (run on `-smp 4`):
//!
//! - bring-up numbers every core once, each with its own MPIDR, and names the cores that do not
//!   start (an MPIDR that does not exist, the boot core, which is already on);
//! - an `IrqSpinMutex` counter updated with a slow read-modify-write from every core, and from
//!   each core's timer interrupt handler at the same time, loses no update;
//! - the fault probe works on every core at once (an unanswered `smc` on each);
//! - console lines built from several `print!` calls on every core at once come out whole (the
//!   host test reads them back: `smp-line <core> <seq> <core repeated>`).
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use pmprobe::rt::psci::{Conduit, Psci, PsciError};
use pmprobe::rt::smp::{self, CoreId, MAX_CORES};
use pmprobe::rt::{irq, timer};
use pmprobe::sync::IrqSpinMutex;

pmprobe::entry!(main);

/// Lock rounds per core (main program).
const ROUNDS: u64 = 2_000;
/// Console lines per core.
const LINES: u32 = 40;
/// Timer interrupts per core.
const TICKS: u32 = 20;
const PERIOD: u32 = 500;

static COUNTER: IrqSpinMutex<u64> = IrqSpinMutex::new(0);
/// Updates made from interrupt handlers, all cores together.
static HANDLER_UPDATES: AtomicU64 = AtomicU64::new(0);
/// Timer interrupts taken, by core number.
static TICKS_TAKEN: [AtomicU32; MAX_CORES] = [const { AtomicU32::new(0) }; MAX_CORES];
/// Per core: 1 + the number it was given, as `this_core` reads it.
static SEEN_NUMBER: [AtomicU32; MAX_CORES] = [const { AtomicU32::new(0) }; MAX_CORES];
/// Per core: the fault probe reported the unanswered `smc` (1) or something else (2).
static PROBED: [AtomicU32; MAX_CORES] = [const { AtomicU32::new(0) }; MAX_CORES];
/// Per core: its timer interrupt could be enabled.
static IRQ_READY: [AtomicU32; MAX_CORES] = [const { AtomicU32::new(0) }; MAX_CORES];

fn slow_increment(value: &mut u64) {
    let seen = *value;
    for _ in 0..10 {
        core::hint::spin_loop();
    }
    *value = black_box(seen) + 1;
}

fn on_timer(_intid: u32) {
    COUNTER.lock(slow_increment);
    HANDLER_UPDATES.fetch_add(1, Ordering::Relaxed);
    let core = smp::this_core().index();
    let taken = TICKS_TAKEN
        .get(core)
        .map_or(TICKS, |ticks| ticks.fetch_add(1, Ordering::Relaxed) + 1);
    if taken < TICKS {
        timer::arm(PERIOD);
    } else {
        timer::disarm();
    }
}

fn hammer(core: CoreId) {
    let index = core.index();
    if let Some(seen) = SEEN_NUMBER.get(index) {
        seen.store(smp::this_core().index() as u32 + 1, Ordering::Relaxed);
    }
    let probed = match Psci::new(Conduit::Smc).version() {
        Err(PsciError::NotAnswering(Conduit::Smc)) => 1,
        _ => 2,
    };
    if let Some(slot) = PROBED.get(index) {
        slot.store(probed, Ordering::Relaxed);
    }
    let irq_ready = irq::enable(timer::PHYSICAL_TIMER_INTID, on_timer).is_ok();
    if let Some(slot) = IRQ_READY.get(index) {
        slot.store(u32::from(irq_ready), Ordering::Relaxed);
    }
    if irq_ready {
        timer::arm(PERIOD);
        // SAFETY: not inside a critical section; the handler is installed.
        unsafe { irq::unmask() };
    }
    for round in 0..ROUNDS {
        COUNTER.lock(slow_increment);
        if round % (ROUNDS / u64::from(LINES)) == 0 {
            let seq = round / (ROUNDS / u64::from(LINES));
            // One line from three print! calls: other cores print between them.
            pmprobe::print!("smp-line {index} ");
            pmprobe::print!("{seq} ");
            pmprobe::println!("{}", DigitRun(index));
        }
    }
    // Let the remaining timer interrupts arrive.
    let ticks = || {
        TICKS_TAKEN
            .get(index)
            .map_or(TICKS, |t| t.load(Ordering::Relaxed))
    };
    let mut waited = 0u32;
    while irq_ready && ticks() < TICKS && waited < 50_000_000 {
        waited += 1;
        core::hint::spin_loop();
    }
    irq::mask();
    timer::disarm();
}

/// The core's digit, 40 times: a line that another core's text could only cut into visibly.
struct DigitRun(usize);

impl core::fmt::Display for DigitRun {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for _ in 0..40 {
            write!(f, "{}", self.0 % 10)?;
        }
        Ok(())
    }
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("smp_locks");
    let boot = smp::mpidr(smp::this_core()).unwrap_or(0);
    let report = smp::bring_up(&[0x7f, boot]);
    let cores = smp::online();
    pmprobe::println!("bring-up: {cores} cores, {} started", report.started);
    for core in smp::cores() {
        pmprobe::println!("  {core}: MPIDR {:#x}", smp::mpidr(core).unwrap_or(0));
    }
    for failure in &report.failures {
        pmprobe::println!("  {failure}");
    }
    t.check_eq("four_cores_numbered", cores, 4);
    t.check_eq("three_started", report.started, 3);
    let distinct = smp::cores().all(|a| {
        smp::cores()
            .filter(|&b| smp::mpidr(a) == smp::mpidr(b))
            .count()
            == 1
    });
    t.check("every_core_has_its_own_mpidr", distinct);
    t.check_eq("two_named_failures", report.failures.len(), 2);

    let errors = smp::on_each_core(&hammer);
    t.check_eq("every_core_started_for_the_round", errors.len(), 0);
    let expected = cores as u64 * ROUNDS + HANDLER_UPDATES.load(Ordering::Relaxed);
    t.check_eq("no_update_lost", COUNTER.lock(|value| *value), expected);
    t.check_eq(
        "every_timer_interrupt_updated",
        HANDLER_UPDATES.load(Ordering::Relaxed),
        cores as u64 * u64::from(TICKS),
    );
    for core in smp::cores() {
        let index = core.index();
        let load =
            |table: &[AtomicU32; MAX_CORES]| table.get(index).map(|v| v.load(Ordering::Relaxed));
        t.check_eq(
            "this_core_reads_its_number",
            load(&SEEN_NUMBER),
            Some(index as u32 + 1),
        );
        t.check_eq("fault_probe_on_every_core", load(&PROBED), Some(1));
        t.check_eq("timer_irq_on_every_core", load(&IRQ_READY), Some(1));
    }
    // A second round: the cores powered off after the first one and start again.
    let again = smp::on_each_core(&|_| {
        COUNTER.lock(|value| *value += 1);
    });
    t.check_eq("second_round_starts_every_core", again.len(), 0);
    t.check_eq(
        "second_round_counted",
        COUNTER.lock(|value| *value),
        expected + cores as u64,
    );
    t.finish()
}
