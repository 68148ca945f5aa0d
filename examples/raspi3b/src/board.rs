//! The board's memory map and console: with the interrupt controller (local_intc.rs), all that
//! differs from QEMU `virt`. The entry needs nothing of ours: like the Raspberry Pi firmware,
//! QEMU starts core 0 at the raw image's first byte (0x8_0000) at EL2 and keeps the other three
//! cores in its boot stub, spinning on the spin table at 0xd8, which this firmware never
//! writes.
use aarch64_paging::descriptor::El23Attributes;
use aarch64_paging::mair::{Mair, MairAttribute, NormalMemory};
use arm_pl011_uart::{PL011Registers, Uart, UniqueMmioPointer};
use core::ptr::NonNull;

/// Where the BCM2837's peripherals (the PL011 among them) start: RAM is everything below.
const PERIPHERALS_BASE: usize = 0x3F00_0000;
/// The BCM2836 local peripherals (the local interrupt controller, the mailboxes) at 1 GiB.
pub const LOCAL_PERIPHERALS_BASE: usize = 0x4000_0000;
/// The PL011 (UART0), which QEMU connects to its first serial port.
const UART_BASE: usize = 0x3F20_1000;
/// The PL011's reference clock as the Raspberry Pi 3 firmware sets it (QEMU ignores the baud
/// divisors, so this only matters on the real board).
pub const UART_CLOCK_HZ: u32 = 48_000_000;

// ---- The memory map: RAM, then the peripherals in the last 16 MiB of the first GiB. ----

/// Device memory, never executable. AP[1] is RES1 in the EL2 translation regime.
const DEVICE: El23Attributes = El23Attributes::VALID
    .union(El23Attributes::ATTRIBUTE_INDEX_0)
    .union(El23Attributes::ACCESSED)
    .union(El23Attributes::USER_RES1)
    .union(El23Attributes::XN);
/// RAM, Normal write-back cacheable.
const NORMAL: El23Attributes = El23Attributes::VALID
    .union(El23Attributes::ATTRIBUTE_INDEX_1)
    .union(El23Attributes::INNER_SHAREABLE)
    .union(El23Attributes::ACCESSED)
    .union(El23Attributes::USER_RES1);
/// A level 1 entry pointing to a next-level table.
const TABLE: usize = El23Attributes::VALID
    .union(El23Attributes::TABLE_OR_PAGE)
    .bits();
const MAIR: Mair = Mair::EMPTY
    .with_attribute(0, MairAttribute::DEVICE_NGNRE)
    .with_attribute(
        1,
        MairAttribute::normal(
            NormalMemory::WriteBackNonTransientReadWriteAllocate,
            NormalMemory::WriteBackNonTransientReadWriteAllocate,
        ),
    );
const BLOCK_2MIB: usize = 0x20_0000;

/// The first GiB in 2 MiB blocks: `virt` maps it with one 1 GiB block, but here RAM and the
/// peripherals share it, and they need different memory types.
#[repr(C, align(4096))]
struct LowGib([usize; 512]);

static LOW_GIB: LowGib = LowGib({
    let mut blocks = [0; 512];
    let mut i = 0;
    while i < blocks.len() {
        let address = i * BLOCK_2MIB;
        let attributes = if address < PERIPHERALS_BASE {
            NORMAL
        } else {
            DEVICE
        };
        blocks[i] = address | attributes.bits();
        i += 1;
    }
    blocks
});

/// The root table (level 1, 1 GiB per entry). Its first entry is the address of [`LOW_GIB`],
/// which only the linker knows, so it is a pointer rather than a number.
#[repr(C, align(4096))]
struct Root {
    low_gib: *const u8,
    above: [usize; 511],
}

// SAFETY: read only by the MMU, and never written.
unsafe impl Sync for Root {}

static ROOT: Root = Root {
    low_gib: (&raw const LOW_GIB).cast::<u8>().wrapping_add(TABLE),
    above: {
        let mut blocks = [0; 511];
        // The second GiB: the local peripherals at its start.
        blocks[0] = LOCAL_PERIPHERALS_BASE | DEVICE.bits();
        blocks
    },
};

aarch64_rt::enable_mmu!(
    ROOT,
    MAIR.0,
    aarch64_rt::DEFAULT_SCTLR,
    aarch64_rt::DEFAULT_TCR
);

// ---- The console. ----

/// A driver for the PL011.
pub fn uart() -> Option<Uart<'static>> {
    let registers = NonNull::new(UART_BASE as *mut PL011Registers)?;
    // SAFETY: the BCM2837's PL011, mapped as Device memory above. This single-core firmware
    // creates one driver in `main` and another only in the panic handler, after which `main`
    // never runs again.
    Some(Uart::new(unsafe { UniqueMmioPointer::new(registers) }))
}
