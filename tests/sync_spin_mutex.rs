//! Host tests of `IrqSpinMutex` (on a host it is a ticket lock between threads; its interrupt
//! masking is tested under QEMU by the guest `smp_locks` on four cores).
//!
//! Four threads hammer one value with a read, a pause and a write: without mutual exclusion
//! increments are lost (the control test shows the same hammering does lose them when each
//! step is its own lock), and a thread that finds another inside the lock records it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

use pmprobe::sync::IrqSpinMutex;

const THREADS: usize = 4;
/// Few rounds: a ticket lock hands over in ticket order, so with more threads than host cores
/// (this host has two, shared) each hand-over can wait for the scheduler to run the next ticket's
/// thread. 4 x 250 updates take well under a second on a quiet host, seconds on a loaded one.
const ROUNDS: u64 = 250;

/// A read-modify-write slow enough for another thread to get in between the read and the write.
fn slow_increment(value: &mut u64) {
    let seen = *value;
    for _ in 0..20 {
        std::hint::spin_loop();
    }
    *value = std::hint::black_box(seen) + 1;
}

/// Runs `work` on `THREADS` threads that start together, one hammering test at a time.
fn hammer(work: impl Fn() + Send + Sync + 'static) {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let work = Arc::new(work);
    let start = Arc::new(Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let work = Arc::clone(&work);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                work();
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a hammering thread panicked");
    }
}

#[test]
fn four_threads_lose_no_update_and_never_meet_inside() {
    static COUNTER: IrqSpinMutex<u64> = IrqSpinMutex::new(0);
    static INSIDE: AtomicBool = AtomicBool::new(false);
    static MET: AtomicU64 = AtomicU64::new(0);
    hammer(|| {
        for _ in 0..ROUNDS {
            COUNTER.lock(|value| {
                if INSIDE.swap(true, Ordering::Relaxed) {
                    MET.fetch_add(1, Ordering::Relaxed);
                }
                slow_increment(value);
                INSIDE.store(false, Ordering::Relaxed);
            });
        }
    });
    assert_eq!(
        MET.load(Ordering::Relaxed),
        0,
        "two threads were inside at once"
    );
    assert_eq!(COUNTER.lock(|value| *value), THREADS as u64 * ROUNDS);
}

#[test]
fn the_same_hammering_loses_updates_without_the_lock_around_the_whole_update() {
    // Control: each step locked on its own, so the read and the write are not one critical
    // section. Updates must get lost here, or the test above would prove nothing.
    static COUNTER: IrqSpinMutex<u64> = IrqSpinMutex::new(0);
    hammer(|| {
        for _ in 0..ROUNDS {
            let seen = COUNTER.lock(|value| *value);
            // Give the other threads the host core between the read and the write.
            std::thread::yield_now();
            COUNTER.lock(|value| *value = seen + 1);
        }
    });
    let total = COUNTER.lock(|value| *value);
    assert!(
        total < THREADS as u64 * ROUNDS,
        "no update was lost ({total}): the hammering does not interleave threads"
    );
}

#[test]
fn try_lock_refuses_while_another_thread_holds_the_lock() {
    let shared = Arc::new(IrqSpinMutex::new(7u32));
    let holding = Arc::new(Barrier::new(2));
    let tried = Arc::new(Barrier::new(2));
    let holder = {
        let (shared, holding, tried) = (shared.clone(), holding.clone(), tried.clone());
        std::thread::spawn(move || {
            shared.lock(|_| {
                holding.wait();
                tried.wait();
            })
        })
    };
    holding.wait();
    assert_eq!(shared.try_lock(|value| *value), None);
    tried.wait();
    holder.join().unwrap();
    assert_eq!(shared.try_lock(|value| *value), Some(7));
}

#[test]
fn debug_shows_the_value_or_that_it_is_locked() {
    let shared = IrqSpinMutex::new(5u8);
    assert_eq!(format!("{shared:?}"), "IrqSpinMutex(5)");
    let inside = shared.lock(|_| format!("{shared:?}"));
    assert_eq!(inside, "IrqSpinMutex(<locked>)");
}

#[test]
fn exclusive_access_needs_no_lock() {
    let mut shared = IrqSpinMutex::new(vec![1, 2]);
    shared.get_mut().push(3);
    assert_eq!(shared.into_inner(), [1, 2, 3]);
}
