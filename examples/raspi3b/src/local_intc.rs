//! The BCM2836 local interrupt controller at 0x4000_0000, which raspi3b has where `virt` has a
//! GIC: per core, it routes the core's generic timers, mailboxes, the PMU and the GPU's
//! interrupt controller to that core's IRQ or FIQ line, and has a register that says which of
//! them are pending. There is nothing to acknowledge: a source is pending while its device
//! asserts it. Register offsets are those of Broadcom's "QA7" document (rev 3.4).
use core::ptr::{read_volatile, write_volatile};

/// Per core (4 bytes apart): which of the core's timers raise its IRQ (bits 0-3) or FIQ (4-7).
const TIMER_INTERRUPT_CONTROL: usize = 0x40;
/// Per core: the sources of the core's pending IRQ.
const IRQ_SOURCE: usize = 0x60;
/// The number of cores the controller serves.
const CORES: usize = 4;

/// Bit of the EL1 physical timer, Non-secure (CNTP_*_EL0), in the timer control and the IRQ
/// source registers.
pub const CNTPNS: u32 = 1 << 1;
/// The controller, by its base address.
pub struct LocalIntc {
    base: usize,
}

impl LocalIntc {
    /// # Safety
    ///
    /// `base` is the controller's address, mapped as Device memory, and nothing else drives it.
    pub const unsafe fn new(base: usize) -> Self {
        Self { base }
    }

    /// The per-core register `offset + 4 * core`, or `None` for a core the controller has not.
    fn per_core(&self, offset: usize, core: usize) -> Option<*mut u32> {
        (core < CORES).then(|| (self.base + offset + 4 * core) as *mut u32)
    }

    /// Routes the timers in `sources` (bits as [`CNTPNS`]) to `core`'s IRQ and no others;
    /// `false` when the controller has no such core.
    pub fn route_timer_irqs(&self, core: usize, sources: u32) -> bool {
        let Some(register) = self.per_core(TIMER_INTERRUPT_CONTROL, core) else {
            return false;
        };
        // SAFETY: a register of the controller (see `new`).
        unsafe { write_volatile(register, sources & 0xf) };
        true
    }

    /// The sources of `core`'s pending IRQ (bits as [`CNTPNS`]; bit 9 is the PMU); 0 for a core the
    /// controller has not.
    pub fn irq_sources(&self, core: usize) -> u32 {
        match self.per_core(IRQ_SOURCE, core) {
            // SAFETY: a register of the controller (see `new`); reading it has no side effect.
            Some(register) => unsafe { read_volatile(register) },
            None => 0,
        }
    }
}
