//! The QEMU `virt` board as the runtime sees it: where its devices are. The one file to change
//! when porting the runtime to another board (together with the linker script's RAM and the
//! identity map in [`super::pagetable`]).

/// PL011 UART0.
pub const UART_BASE: usize = 0x0900_0000;
/// The PL011's reference clock (UARTCLK) on `virt`.
pub const UART_CLOCK_HZ: u32 = 24_000_000;
/// The console's line rate.
pub const UART_BAUD: u32 = 115_200;

/// GIC distributor (GICv2 and GICv3).
pub const GICD_BASE: usize = 0x0800_0000;
/// GICv2 CPU interface.
pub const GICC_BASE: usize = 0x0801_0000;
/// GICv3 redistributors (one 128 KiB frame pair per core).
pub const GICR_BASE: usize = 0x080A_0000;

/// RAM: where the image lives (Normal, cacheable in the identity map).
pub const RAM_BASE: usize = 0x4000_0000;

/// MPIDR affinities a core of this board may have, in the order the runtime numbers the cores
/// it finds (PSCI `AFFINITY_INFO` tells which exist). QEMU `virt` puts up to 8 cores in a
/// cluster with a GICv2 and up to 16 with a GICv3 (Aff0), clusters in Aff1; the first two
/// clusters are more than the runtime numbers.
pub fn core_candidates() -> impl Iterator<Item = u64> {
    (0..2u64).flat_map(|cluster| (0..16u64).map(move |core| (cluster << 8) | core))
}
