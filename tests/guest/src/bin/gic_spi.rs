//! GIC register indexing for INTIDs past 64, on GICv2 and GICv3: shared peripheral interrupts
//! 100, 99 and 36 are enabled, made pending by software, taken, disabled and re-enabled, and each
//! operation must touch exactly its own INTID. INTID 36 sits at the same bit as INTID 100 in the
//! second enable register (36 = 32 + 4, 100 = 96 + 4): an index taken modulo two registers would
//! hit it instead of 100. An interrupt without a handler must be disabled by the runtime, again
//! exactly that one. The handler table refuses INTIDs the GIC does not implement.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU32, Ordering};

use pmprobe::rt::irq::{self, IrqError};
use pmprobe::rt::platform::GICD_BASE;

pmprobe::entry!(main);

const HIGH: u32 = 100;
const NEXT: u32 = 99;
const SAME_BIT: u32 = 36;

static TAKEN_HIGH: AtomicU32 = AtomicU32::new(0);
static TAKEN_NEXT: AtomicU32 = AtomicU32::new(0);
static TAKEN_SAME_BIT: AtomicU32 = AtomicU32::new(0);

fn on_interrupt(intid: u32) {
    let counter = match intid {
        HIGH => &TAKEN_HIGH,
        NEXT => &TAKEN_NEXT,
        _ => &TAKEN_SAME_BIT,
    };
    counter.fetch_add(1, Ordering::Relaxed);
}

/// GICD_ISENABLER<n>, GICD_ISPENDR<n>, GICD_ICPENDR<n>: one bit per INTID, the same layout on
/// GICv2 and GICv3 (SPIs).
const ISENABLER: usize = 0x100;
const ISPENDR: usize = 0x200;
const ICPENDR: usize = 0x280;

fn register_bit(register: usize, intid: u32) -> (*mut u32, u32) {
    let address = GICD_BASE + register + 4 * (intid as usize / 32);
    (address as *mut u32, 1 << (intid % 32))
}

/// Whether the distributor has `intid` enabled.
fn enabled(intid: u32) -> bool {
    let (address, bit) = register_bit(ISENABLER, intid);
    // SAFETY: a read of a GICD enable register (Device memory, identity mapped); no side effect.
    unsafe { core::ptr::read_volatile(address) & bit != 0 }
}

/// Writes `intid`'s bit to a write-1-to-set/clear register.
fn write_bit(register: usize, intid: u32) {
    let (address, bit) = register_bit(register, intid);
    // SAFETY: a write-1 register of the GIC distributor: only `intid`'s state changes.
    unsafe { core::ptr::write_volatile(address, bit) };
}

/// Makes `intid` pending and gives the core time to take it (IRQs are unmasked).
fn pend_and_wait(intid: u32) {
    write_bit(ISPENDR, intid);
    for i in 0..1000 {
        core::hint::black_box(i);
    }
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("gic_spi");
    let lines = irq::lines().unwrap_or(0);
    pmprobe::println!("GIC: {:?}, {lines} INTIDs", irq::version());
    t.check_with(
        "gic_has_intid_100",
        lines > HIGH,
        format_args!("{lines} INTIDs"),
    );
    for intid in [HIGH, NEXT, SAME_BIT] {
        t.check_eq("enable", irq::enable(intid, on_interrupt), Ok(()));
    }
    t.check(
        "all_three_enabled",
        enabled(HIGH) && enabled(NEXT) && enabled(SAME_BIT),
    );
    // SAFETY: not inside a critical section; the handlers are installed.
    unsafe { irq::unmask() };

    pend_and_wait(HIGH);
    t.check_eq(
        "intid_100_taken_once",
        TAKEN_HIGH.load(Ordering::Relaxed),
        1,
    );
    t.check_eq(
        "others_not_taken",
        (
            TAKEN_NEXT.load(Ordering::Relaxed),
            TAKEN_SAME_BIT.load(Ordering::Relaxed),
        ),
        (0, 0),
    );

    t.check_eq("disable_100", irq::disable(HIGH), Ok(()));
    t.check("intid_100_disabled", !enabled(HIGH));
    t.check("intid_99_still_enabled", enabled(NEXT));
    t.check("intid_36_still_enabled", enabled(SAME_BIT));
    pend_and_wait(HIGH);
    t.check_eq(
        "disabled_intid_not_taken",
        TAKEN_HIGH.load(Ordering::Relaxed),
        1,
    );
    write_bit(ICPENDR, HIGH);

    pend_and_wait(SAME_BIT);
    t.check_eq(
        "intid_36_taken_once",
        TAKEN_SAME_BIT.load(Ordering::Relaxed),
        1,
    );

    // An enabled interrupt with no handler: the runtime must disable that INTID, not another.
    write_bit(ISENABLER, HIGH);
    pend_and_wait(HIGH);
    t.check("unhandled_intid_100_disabled", !enabled(HIGH));
    t.check(
        "unhandled_left_36_and_99_enabled",
        enabled(SAME_BIT) && enabled(NEXT),
    );
    write_bit(ICPENDR, HIGH);
    irq::mask();

    // Bounds of the handler table.
    t.check_eq(
        "past_the_gic_rejected",
        irq::enable(lines, on_interrupt),
        Err(IrqError::OutOfRange {
            intid: lines,
            lines,
        }),
    );
    t.check(
        "past_the_table_rejected",
        matches!(
            irq::enable(irq::HANDLER_SLOTS, on_interrupt),
            Err(IrqError::OutOfRange { .. })
        ),
    );
    t.check_eq(
        "last_intid_enabled",
        irq::enable(lines - 1, on_interrupt),
        Ok(()),
    );
    t.check("last_intid_enable_bit", enabled(lines - 1));
    t.check_eq("last_intid_disabled", irq::disable(lines - 1), Ok(()));
    t.check("last_intid_enable_bit_clear", !enabled(lines - 1));
    t.finish()
}
