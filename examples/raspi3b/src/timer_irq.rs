//! The interrupt path of this board, shown with the EL1 physical timer: its interrupt goes
//! through the BCM2836 local interrupt controller to core 0's IRQ, and is taken at EL2 by
//! aarch64-rt's vector table (VBAR_EL2).
use aarch64_rt::{ExceptionHandlers, RegisterStateRef};
use core::arch::asm;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::board::LOCAL_PERIPHERALS_BASE;
use crate::local_intc::{CNTPNS, LocalIntc};

/// The core that runs the firmware.
const BOOT_CORE: usize = 0;
/// Timer ticks until the interrupt: short, so the test stays fast.
const TIMER_TICKS: u64 = 1_000;
/// Polls or waits before giving up on the interrupt (a wrong routing must fail, not hang).
const MAX_WAITS: u32 = 1_000_000;
/// HCR_EL2.IMO: physical IRQs are taken to EL2 (at EL2 they are otherwise never taken).
const HCR_EL2_IMO: u64 = 1 << 4;

/// The IRQ sources the handler saw, and how many IRQs it took.
static SOURCES_SEEN: AtomicU32 = AtomicU32::new(0);
static IRQS_TAKEN: AtomicU32 = AtomicU32::new(0);

fn controller() -> LocalIntc {
    // SAFETY: the local peripherals are mapped as Device memory (board.rs); the firmware uses
    // the controller from `main` and from the IRQ handler, which never overlap in a register.
    unsafe { LocalIntc::new(LOCAL_PERIPHERALS_BASE) }
}

/// aarch64-rt's handlers: the IRQ is ours, every other exception panics (default).
pub struct Exceptions;

impl ExceptionHandlers for Exceptions {
    extern "C" fn irq_current(_registers: RegisterStateRef) {
        let sources = controller().irq_sources(BOOT_CORE);
        SOURCES_SEEN.fetch_or(sources, Ordering::Relaxed);
        IRQS_TAKEN.fetch_add(1, Ordering::Relaxed);
        // The controller has nothing to acknowledge: stopping the timer lowers its line. Any
        // other source is unrouted so that it cannot fire again.
        // SAFETY: CNTP_CTL_EL0 = 0 disables the timer.
        unsafe { asm!("msr cntp_ctl_el0, xzr", "isb", options(nostack)) };
        if sources & !CNTPNS != 0 {
            controller().route_timer_irqs(BOOT_CORE, 0);
        }
    }
}

/// What the timer demo saw.
pub struct TimerReport {
    /// The IRQ source register showed the timer pending (interrupts still masked).
    pub pending_through_controller: bool,
    /// IRQs the handler took once they were unmasked.
    pub irqs_taken: u32,
    /// The sources the handler read from the controller.
    pub sources_seen: u32,
}

/// Arms the timer, watches its interrupt become pending in the controller, then takes it.
pub fn run() -> TimerReport {
    let intc = controller();
    intc.route_timer_irqs(BOOT_CORE, CNTPNS);
    // SAFETY: EL2 owns the EL1 physical timer; CTL = 1 enables it with its interrupt unmasked.
    unsafe {
        asm!(
            "msr cntp_tval_el0, {ticks}",
            "msr cntp_ctl_el0, {enable}",
            "isb",
            ticks = in(reg) TIMER_TICKS,
            enable = in(reg) 1u64,
            options(nostack),
        );
    }
    let mut pending_through_controller = false;
    for _ in 0..MAX_WAITS {
        if intc.irq_sources(BOOT_CORE) & CNTPNS != 0 {
            pending_through_controller = true;
            break;
        }
        core::hint::spin_loop();
    }
    // SAFETY: route IRQs to EL2 and unmask them; the handler above stops the timer.
    unsafe {
        asm!(
            "mrs {hcr}, hcr_el2",
            "orr {hcr}, {hcr}, {imo}",
            "msr hcr_el2, {hcr}",
            "isb",
            "msr daifclr, #2",
            hcr = out(reg) _,
            imo = in(reg) HCR_EL2_IMO,
            options(nostack),
        );
    }
    for _ in 0..MAX_WAITS {
        if IRQS_TAKEN.load(Ordering::Relaxed) != 0 {
            break;
        }
        // SAFETY: waits for an interrupt; a pending one wakes it at once.
        unsafe { asm!("wfi", options(nomem, nostack)) };
    }
    // SAFETY: masks IRQs again and stops the timer, whatever happened.
    unsafe {
        asm!(
            "msr daifset, #2",
            "msr cntp_ctl_el0, xzr",
            "isb",
            options(nostack)
        )
    };
    intc.route_timer_irqs(BOOT_CORE, 0);
    TimerReport {
        pending_through_controller,
        irqs_taken: IRQS_TAKEN.load(Ordering::Relaxed),
        sources_seen: SOURCES_SEEN.load(Ordering::Relaxed),
    }
}
