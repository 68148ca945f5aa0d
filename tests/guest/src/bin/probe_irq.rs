//! A probe point notified from the EL1 physical timer interrupt (INTID 30) while the main loop
//! attaches and detaches listeners thousands of times through `IrqMutex` critical sections.
//!
//! Consistency: every attach/detach records the interrupt's notification sequence number inside
//! the same critical section, so the main program knows exactly how many notifications each
//! listener must have received; any lost, doubled or torn notification breaks the equality.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use pmprobe::probe::{Listener, ListenerRef, ProbePoint};
use pmprobe::rt::{irq, timer};
use pmprobe::sync::IrqMutex;

pmprobe::entry!(main);

type SharedPoint = ProbePoint<'static, u64, 4, dyn Listener<u64> + Sync>;

/// The point the timer interrupt notifies.
static POINT: IrqMutex<SharedPoint> = IrqMutex::new(SharedPoint::new());

/// Notifications made by the interrupt handler (updated inside its critical section).
static NOTIFIES: AtomicU64 = AtomicU64::new(0);
static TICKS: AtomicU32 = AtomicU32::new(0);
static STOP: AtomicBool = AtomicBool::new(false);

/// Sums the notified values. Load + store instead of read-modify-write atomics: only the
/// notifying context writes, and the main program reads it only at the end.
struct Tally(AtomicU64);

impl Listener<u64> for Tally {
    fn notify(&self, n: &u64) {
        self.0
            .store(self.0.load(Ordering::Relaxed) + n, Ordering::Relaxed);
    }
}

static TALLY_A: Tally = Tally(AtomicU64::new(0));
static TALLY_B: Tally = Tally(AtomicU64::new(0));
static FN_TALLY: AtomicU64 = AtomicU64::new(0);

fn fn_listener(n: &u64) {
    FN_TALLY.store(FN_TALLY.load(Ordering::Relaxed) + n, Ordering::Relaxed);
}

/// Fires once and detaches itself from inside the interrupt's notification.
struct OneShot(AtomicU64);

impl Listener<u64> for OneShot {
    fn notify(&self, _n: &u64) {
        self.0
            .store(self.0.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        let removed = POINT.lock(|point| point.remove_object(&ONE_SHOT));
        if removed.is_err() {
            SELF_REMOVE_ERRORS.store(1, Ordering::Relaxed);
        }
    }
}

static ONE_SHOT: OneShot = OneShot(AtomicU64::new(0));
static SELF_REMOVE_ERRORS: AtomicU32 = AtomicU32::new(0);

const PERIOD: u32 = 40;

fn on_timer(_intid: u32) {
    TICKS.fetch_add(1, Ordering::Relaxed);
    POINT.lock(|point| {
        point.notify(&1);
        NOTIFIES.store(NOTIFIES.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    });
    if STOP.load(Ordering::Relaxed) {
        timer::disarm();
    } else {
        timer::arm(PERIOD);
    }
}

/// One listener's expected count: notifications seen between its attach and detach.
struct Expectation {
    attached_at: Option<u64>,
    expected: u64,
    periods: u32,
}

impl Expectation {
    const fn new() -> Self {
        Self {
            attached_at: None,
            expected: 0,
            periods: 0,
        }
    }

    /// Attaches or detaches `listener`, recording the notification number in the same
    /// critical section. Returns whether the point accepted the change.
    fn toggle(&mut self, listener: ListenerRef<'static, u64, dyn Listener<u64> + Sync>) -> bool {
        POINT.lock(|point| {
            let now = NOTIFIES.load(Ordering::Relaxed);
            match self.attached_at.take() {
                None => {
                    self.attached_at = Some(now);
                    point.add_listener(listener).is_ok()
                }
                Some(since) => {
                    self.expected += now - since;
                    self.periods += 1;
                    point.remove_listener(listener).is_ok()
                }
            }
        })
    }
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("probe_irq");
    t.check(
        "irq_enable",
        irq::enable(timer::PHYSICAL_TIMER_INTID, on_timer).is_ok(),
    );

    let a = ListenerRef::Object(&TALLY_A as &(dyn Listener<u64> + Sync));
    let b = ListenerRef::Object(&TALLY_B as &(dyn Listener<u64> + Sync));
    let f = ListenerRef::Function(fn_listener);
    let (mut exp_a, mut exp_b, mut exp_f) =
        (Expectation::new(), Expectation::new(), Expectation::new());
    let mut errors = 0u32;
    let mut one_shot_adds = 0u64;

    timer::arm(PERIOD);
    // SAFETY: not inside a critical section; the handler is installed.
    unsafe { irq::unmask() };
    const ROUNDS: u32 = 20_000;
    for round in 0..ROUNDS {
        // Different rhythms so that every combination of listeners occurs.
        if !exp_a.toggle(a) {
            errors += 1;
        }
        if round % 3 == 0 && !exp_b.toggle(b) {
            errors += 1;
        }
        if round % 5 == 0 && !exp_f.toggle(f) {
            errors += 1;
        }
        if round % 7 == 0 {
            // Re-arm the one-shot listener if the interrupt already consumed it.
            let added = POINT.lock(|point| {
                let one_shot = ListenerRef::Object(&ONE_SHOT as &(dyn Listener<u64> + Sync));
                !point.is_attached(one_shot) && point.add_listener(one_shot).is_ok()
            });
            one_shot_adds += u64::from(added);
        }
        // Some work between changes, so that interrupts land both inside and outside them.
        for i in 0..(round % 13) {
            core::hint::black_box(i);
        }
    }
    STOP.store(true, Ordering::Relaxed);
    irq::mask();

    // Close the open attachment periods (interrupts are masked now, so the counts are final).
    for (expectation, listener) in [(&mut exp_a, a), (&mut exp_b, b), (&mut exp_f, f)] {
        if expectation.attached_at.is_some() && !expectation.toggle(listener) {
            errors += 1;
        }
    }
    let one_shot_still_attached = POINT.lock(|point| {
        point.is_attached(ListenerRef::Object(
            &ONE_SHOT as &(dyn Listener<u64> + Sync),
        ))
    });

    let ticks = TICKS.load(Ordering::Relaxed);
    pmprobe::println!(
        "probe_irq: {ticks} interrupts, {} notifications; expected a = {}, b = {}, f = {}; one-shot fired {}",
        NOTIFIES.load(Ordering::Relaxed),
        exp_a.expected,
        exp_b.expected,
        exp_f.expected,
        ONE_SHOT.0.load(Ordering::Relaxed)
    );
    t.check_with(
        "many_interrupts_during_the_loop",
        ticks >= 1000,
        format_args!("ticks = {ticks}"),
    );
    t.check_eq("attach_detach_never_failed", errors, 0);
    t.check_with(
        "listeners_saw_interrupts",
        exp_a.expected > 0 && exp_b.expected > 0 && exp_f.expected > 0,
        format_args!(
            "expected a = {}, b = {}, f = {}",
            exp_a.expected, exp_b.expected, exp_f.expected
        ),
    );
    t.check_eq(
        "object_a_count_consistent",
        TALLY_A.0.load(Ordering::Relaxed),
        exp_a.expected,
    );
    t.check_eq(
        "object_b_count_consistent",
        TALLY_B.0.load(Ordering::Relaxed),
        exp_b.expected,
    );
    t.check_eq(
        "fn_count_consistent",
        FN_TALLY.load(Ordering::Relaxed),
        exp_f.expected,
    );
    t.check_eq("toggle_periods_a", exp_a.periods, ROUNDS / 2);
    t.check_eq(
        "one_shot_fired_once_per_attach",
        ONE_SHOT.0.load(Ordering::Relaxed) + u64::from(one_shot_still_attached),
        one_shot_adds,
    );
    t.check_with(
        "one_shot_fired_from_the_interrupt",
        ONE_SHOT.0.load(Ordering::Relaxed) > 10,
        format_args!("fired {}", ONE_SHOT.0.load(Ordering::Relaxed)),
    );
    t.check_eq(
        "self_removal_never_failed",
        SELF_REMOVE_ERRORS.load(Ordering::Relaxed),
        0,
    );
    let left = POINT.lock(|point| point.listener_count());
    t.check_eq(
        "point_holds_only_what_is_attached",
        left,
        usize::from(one_shot_still_attached),
    );
    t.finish()
}
