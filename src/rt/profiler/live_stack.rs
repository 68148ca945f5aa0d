//! The stack of the code an interrupt stopped, as the frame-pointer walk reads it: this core's
//! stack, bounded, read only inside its bounds.

use crate::sampling::{StackBounds, StackMemory};

/// The stack of the interrupted code, read where the walker asks, inside its bounds only.
pub(super) struct LiveStack {
    bounds: StackBounds,
}

impl LiveStack {
    /// This core's stack from the handler's own stack pointer (the interrupted frames are
    /// above it) to the top of the stack the core runs on: the boot stack's end on the boot
    /// core; on another core, whose stack the runtime also places in the image's `.stack`
    /// section (after the boot stack), the end of that section. A bound above the core's own
    /// stack top is still mapped RAM, and the walk stops at the chain's end (x29 = 0) anyway.
    pub(super) fn of_this_core() -> Self {
        let sp: u64;
        // SAFETY: reads the stack pointer into a register; no memory access.
        unsafe { core::arch::asm!("mov {sp}, sp", sp = out(reg) sp, options(nomem, nostack)) };
        // Symbols of the linker script: the `.stack` section runs from boot_stack_begin to the
        // image end; the boot stack is its first part.
        unsafe extern "C" {
            static boot_stack_begin: u8;
            static boot_stack_end: u8;
            static __pmprobe_image_end: u8;
        }
        let (begin, boot_end, end) = (
            (&raw const boot_stack_begin) as u64,
            (&raw const boot_stack_end) as u64,
            (&raw const __pmprobe_image_end) as u64,
        );
        let high = if (begin..boot_end).contains(&sp) {
            boot_end
        } else if (boot_end..end).contains(&sp) {
            end
        } else {
            // A stack the runtime does not know: the PC is sampled, the walk stops at once.
            sp
        };
        Self {
            bounds: StackBounds { low: sp, high },
        }
    }

    pub(super) fn bounds(&self) -> StackBounds {
        self.bounds
    }
}

impl StackMemory for LiveStack {
    fn read_u64(&self, address: u64) -> Option<u64> {
        let inside = address >= self.bounds.low
            && address
                .checked_add(8)
                .is_some_and(|end| end <= self.bounds.high);
        if !inside || !address.is_multiple_of(8) {
            return None;
        }
        // SAFETY: an aligned word inside this core's stack, which is mapped RAM below the
        // stack top; the interrupted code is stopped while its handler runs, so the frame
        // records read here are not being written.
        Some(unsafe { core::ptr::read_volatile(address as *const u64) })
    }
}
