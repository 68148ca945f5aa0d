//! The `defmt` global logger: rzCOBS-encoded frames on the PL011 UART, decoded on the host by
//! `qemu/run` (which runs `defmt-print` against the ELF).
//!
//! A frame is written whole under the logger's lock: IRQs masked on this core (a log from an
//! interrupt handler cannot cut into one from the main program) and a ticket lock across cores
//! (a core that logs while another is inside a frame waits for its turn). Only a log *inside* a
//! log on the same core (a `Format` impl that logs) cannot wait for itself: it would corrupt the
//! frame, and panicking would log again, so it ends the program with
//! [`EXIT_PANIC`](super::EXIT_PANIC).
use crate::arch::interrupts::{self, SavedMask};
use crate::sync::{RawSpinLock, wake_waiters};
use core::sync::atomic::{AtomicUsize, Ordering};

use super::core_id::this_core;

#[defmt::global_logger]
struct Logger;

/// Held from `acquire` to `release`.
static LOCK: RawSpinLock = RawSpinLock::new(());
/// The number + 1 of the core inside a frame (0: none).
static OWNER: AtomicUsize = AtomicUsize::new(0);
static mut ENCODER: defmt::Encoder = defmt::Encoder::new();
static mut SAVED_MASK: Option<SavedMask> = None;

// SAFETY: acquire/release bracket every frame; in between, the logger's lock is held (other
// cores wait) and IRQs are masked on the holding core, so ENCODER and SAVED_MASK are only ever
// accessed by one context at a time.
unsafe impl defmt::Logger for Logger {
    fn acquire() {
        let saved = interrupts::mask();
        let me = this_core().index() + 1;
        if OWNER.load(Ordering::Relaxed) == me {
            // A log inside a log on this core: waiting would deadlock, going on would corrupt
            // the frame, and panicking would log again, so stop here.
            super::exit(super::EXIT_PANIC);
        }
        // The guard is forgotten: `release` unlocks.
        core::mem::forget(LOCK.lock());
        OWNER.store(me, Ordering::Relaxed);
        // SAFETY: exclusive access (the lock is held, IRQs masked on this core).
        unsafe {
            SAVED_MASK = Some(saved);
            (*core::ptr::addr_of_mut!(ENCODER)).start_frame(super::console::write_bytes);
        }
    }

    unsafe fn flush() {}

    unsafe fn release() {
        // SAFETY: called after acquire by the defmt contract: exclusive access.
        let saved = unsafe {
            (*core::ptr::addr_of_mut!(ENCODER)).end_frame(super::console::write_bytes);
            (*core::ptr::addr_of_mut!(SAVED_MASK)).take()
        };
        OWNER.store(0, Ordering::Relaxed);
        // SAFETY: this core took the lock in `acquire` (defmt calls release only after acquire)
        // and forgot the guard; this is its one unlock.
        unsafe { LOCK.force_unlock() };
        wake_waiters();
        if let Some(saved) = saved {
            // SAFETY: this closes the critical section that `acquire` opened. defmt brackets one
            // log call between acquire and release, so any critical section opened in between (by
            // a `Format` impl) has closed again by now.
            unsafe { interrupts::restore(saved) };
        }
    }

    unsafe fn write(bytes: &[u8]) {
        // SAFETY: called between acquire and release by the defmt contract: exclusive access.
        unsafe {
            (*core::ptr::addr_of_mut!(ENCODER)).write(bytes, super::console::write_bytes);
        }
    }
}
