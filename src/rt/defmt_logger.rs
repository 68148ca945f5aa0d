//! The `defmt` global logger: rzCOBS-encoded frames on the PL011 UART, decoded on the host by
//! `qemu/run` (which runs `defmt-print` against the ELF).
//!
//! A frame is written with IRQs masked so that a log from an interrupt handler cannot interleave
//! with one from the main program.
use crate::arch::interrupts::{self, SavedMask};
use core::sync::atomic::{AtomicBool, Ordering};

#[defmt::global_logger]
struct Logger;

static TAKEN: AtomicBool = AtomicBool::new(false);
static mut ENCODER: defmt::Encoder = defmt::Encoder::new();
static mut SAVED_MASK: Option<SavedMask> = None;

// SAFETY: acquire/release bracket every frame; IRQs are masked in between and the runtime is
// single-core, so ENCODER and SAVED_DAIF are never accessed concurrently.
unsafe impl defmt::Logger for Logger {
    fn acquire() {
        let saved = interrupts::mask();
        if TAKEN.swap(true, Ordering::Acquire) {
            // A log inside a log would corrupt the frame; panicking would log again, so stop here.
            super::exit(super::EXIT_PANIC);
        }
        // SAFETY: exclusive access (IRQs masked, TAKEN set).
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
        TAKEN.store(false, Ordering::Release);
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
