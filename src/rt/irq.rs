//! Interrupts on QEMU `virt`: the GICv2 (distributor at 0x0800_0000, CPU interface at
//! 0x0801_0000) and a table of handlers indexed by INTID.
//!
//! Handlers run in IRQ context with further IRQs masked. Useful INTIDs on `virt`: 30 = EL1
//! physical timer (PPI 14), 27 = virtual timer (PPI 11), 23 = PMU overflow (PPI 7).
use core::sync::atomic::{AtomicUsize, Ordering};
use tock_registers::interfaces::{Readable, Writeable};
use tock_registers::register_structs;
use tock_registers::registers::{ReadOnly, ReadWrite, WriteOnly};

/// Number of interrupt IDs with a handler slot (SGIs, PPIs and the first SPIs).
pub const MAX_INTID: u32 = 64;

register_structs! {
    GicDistributor {
        (0x000 => ctlr: ReadWrite<u32>),
        (0x004 => _reserved0),
        (0x100 => isenabler: [ReadWrite<u32>; 2]),
        (0x108 => _reserved1),
        (0x180 => icenabler: [ReadWrite<u32>; 2]),
        (0x188 => _reserved2),
        (0x400 => ipriorityr: [ReadWrite<u32>; 16]),
        (0x440 => @END),
    }
}

register_structs! {
    GicCpuInterface {
        (0x00 => ctlr: ReadWrite<u32>),
        (0x04 => pmr: ReadWrite<u32>),
        (0x08 => _reserved0),
        (0x0c => iar: ReadOnly<u32>),
        (0x10 => eoir: WriteOnly<u32>),
        (0x14 => @END),
    }
}

const GICD_BASE: usize = 0x0800_0000;
const GICC_BASE: usize = 0x0801_0000;
const SPURIOUS: u32 = 1023;

fn gicd() -> &'static GicDistributor {
    // SAFETY: QEMU virt maps the GICv2 distributor at GICD_BASE; accessed only through volatile
    // tock-registers accessors.
    unsafe { &*(GICD_BASE as *const GicDistributor) }
}

fn gicc() -> &'static GicCpuInterface {
    // SAFETY: QEMU virt maps the GICv2 CPU interface at GICC_BASE; volatile accesses only.
    unsafe { &*(GICC_BASE as *const GicCpuInterface) }
}

/// Handler function pointers stored as `usize` (0 = none), so that an interrupt reading the table
/// while the program installs a handler sees either the old or the new value, never a torn one.
static HANDLERS: [AtomicUsize; MAX_INTID as usize] =
    [const { AtomicUsize::new(0) }; MAX_INTID as usize];

/// An INTID outside the handler table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntIdOutOfRange(pub u32);

impl core::fmt::Display for IntIdOutOfRange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "INTID {} out of range (max {})", self.0, MAX_INTID - 1)
    }
}

/// Installs `handler` for `intid` and enables that interrupt in the GIC (initialising the GIC on
/// first use). IRQs stay masked at the CPU until [`unmask`].
pub fn enable(intid: u32, handler: fn(u32)) -> Result<(), IntIdOutOfRange> {
    let slot = HANDLERS.get(intid as usize).ok_or(IntIdOutOfRange(intid))?;
    slot.store(handler as usize, Ordering::Release);
    let d = gicd();
    let c = gicc();
    // Priority 0x80 (lower number = higher priority) beats the 0xF0 priority mask.
    let reg = &d.ipriorityr[(intid / 4) as usize];
    let shift = (intid % 4) * 8;
    reg.set((reg.get() & !(0xFF << shift)) | (0x80 << shift));
    d.isenabler[(intid / 32) as usize].set(1 << (intid % 32));
    c.pmr.set(0xF0);
    c.ctlr.set(1);
    d.ctlr.set(1);
    Ok(())
}

/// Disables `intid` in the GIC and removes its handler.
pub fn disable(intid: u32) -> Result<(), IntIdOutOfRange> {
    let slot = HANDLERS.get(intid as usize).ok_or(IntIdOutOfRange(intid))?;
    gicd().icenabler[(intid / 32) as usize].set(1 << (intid % 32));
    slot.store(0, Ordering::Release);
    Ok(())
}

/// Called by the vector table for an IRQ: acknowledge, run the handler, end of interrupt.
pub(crate) fn dispatch() {
    let iar = gicc().iar.get();
    let intid = iar & 0x3FF;
    if intid == SPURIOUS {
        return;
    }
    let handler = HANDLERS
        .get(intid as usize)
        .map(|slot| slot.load(Ordering::Acquire))
        .unwrap_or(0);
    if handler != 0 {
        // SAFETY: non-zero entries are only ever stored from a `fn(u32)` in `enable`.
        let handler: fn(u32) = unsafe { core::mem::transmute::<usize, fn(u32)>(handler) };
        handler(intid);
    } else {
        crate::println!("*** unexpected IRQ {intid} (no handler): disabling it");
        gicd().icenabler[(intid / 32) as usize % 2].set(1 << (intid % 32));
    }
    gicc().eoir.set(iar);
}

/// Unmasks IRQs at the CPU (clears PSTATE.I).
///
/// # Safety
/// Must not be called inside a critical section ([`crate::arch::interrupts::free`], an
/// [`IrqMutex`](crate::probe::sync::IrqMutex) lock): that would let an interrupt handler in while
/// the critical section still holds its references.
pub unsafe fn unmask() {
    // SAFETY: the caller's contract is that of `enable_irq`; the vector table is installed at
    // boot, before any Rust code runs.
    unsafe { crate::arch::interrupts::enable_irq() }
}

/// Masks IRQs at the CPU (sets PSTATE.I).
pub fn mask() {
    crate::arch::interrupts::disable_irq();
}
