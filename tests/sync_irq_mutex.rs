//! Host tests of the interrupt-sharing wrapper's API (on the host it masks nothing; its
//! soundness there comes from being `!Sync`). The interrupt case itself is tested under QEMU.

use std::sync::atomic::{AtomicU64, Ordering};

use pmprobe::probe::{Listener, ProbePoint};
use pmprobe::sync::{IrqMutex, free};

/// A listener that is `Sync`, as interrupt-shared points require.
#[derive(Default)]
struct AtomicSum(AtomicU64);

impl Listener<u64> for AtomicSum {
    fn notify(&self, n: &u64) {
        // Load + store, not fetch_add: one writer (the notifying context) at a time.
        let sum = self.0.load(Ordering::Relaxed);
        self.0.store(sum + n, Ordering::Relaxed);
    }
}

type SharedPoint = ProbePoint<'static, u64, 2, dyn Listener<u64> + Sync>;

#[test]
fn a_shared_point_is_used_through_critical_sections() {
    let sum: &'static AtomicSum = Box::leak(Box::default());
    let shared = IrqMutex::new(SharedPoint::new());
    shared.lock(|point| point.add_object(sum)).unwrap();
    shared.lock(|point| point.notify(&3));
    free(|cs| {
        let point = shared.borrow(cs);
        // Nested critical sections are allowed (as inside an interrupt handler).
        free(|_| point.notify(&4));
        assert!(point.has_listeners());
    });
    assert_eq!(sum.0.load(Ordering::Relaxed), 7);
    shared.lock(|point| point.remove_object(sum)).unwrap();
    assert!(!shared.into_inner().has_listeners());
}

#[test]
fn free_returns_the_closures_value() {
    assert_eq!(free(|_| 41 + 1), 42);
}

#[test]
fn debug_shows_the_value() {
    // The value is formatted inside a critical section (checked on the real core by the QEMU
    // guest `irq_mutex`); here, that the text is the value's.
    assert_eq!(format!("{:?}", IrqMutex::new(5u8)), "IrqMutex(5)");
}
