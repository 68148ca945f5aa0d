//! The `defmt` global logger: rzCOBS-encoded frames on the PL011 UART, decoded on the host by
//! `qemu/run` (which runs `defmt-print` against the ELF).
//!
//! A frame is written with IRQs masked so that a log from an interrupt handler cannot interleave
//! with one from the main program.
use core::sync::atomic::{AtomicBool, Ordering};

#[defmt::global_logger]
struct Logger;

static TAKEN: AtomicBool = AtomicBool::new(false);
static mut ENCODER: defmt::Encoder = defmt::Encoder::new();
static mut SAVED_DAIF: u64 = 0;

// SAFETY: acquire/release bracket every frame; IRQs are masked in between and the runtime is
// single-core, so ENCODER and SAVED_DAIF are never accessed concurrently.
unsafe impl defmt::Logger for Logger {
    fn acquire() {
        let daif = super::irq::mask_save();
        if TAKEN.swap(true, Ordering::Acquire) {
            // A log inside a log would corrupt the frame; panicking would log again, so stop here.
            super::exit(super::EXIT_PANIC);
        }
        // SAFETY: exclusive access (IRQs masked, TAKEN set).
        unsafe {
            SAVED_DAIF = daif;
            (*core::ptr::addr_of_mut!(ENCODER)).start_frame(super::console::write_bytes);
        }
    }

    unsafe fn flush() {}

    unsafe fn release() {
        // SAFETY: called after acquire by the defmt contract: exclusive access.
        let daif = unsafe {
            (*core::ptr::addr_of_mut!(ENCODER)).end_frame(super::console::write_bytes);
            SAVED_DAIF
        };
        TAKEN.store(false, Ordering::Release);
        super::irq::restore(daif);
    }

    unsafe fn write(bytes: &[u8]) {
        // SAFETY: called between acquire and release by the defmt contract: exclusive access.
        unsafe {
            (*core::ptr::addr_of_mut!(ENCODER)).write(bytes, super::console::write_bytes);
        }
    }
}
