//! The initial identity map that aarch64-rt installs before any Rust code runs, and the MMU and
//! cache state the banner reports.
//!
//! One level-1 table of 1 GiB blocks (TCR_EL1.T0SZ = 25, 4 KiB granule): the first GiB (flash,
//! GIC, UART and the other `virt` devices) and the GiB at 256 GiB (the high PCIe and
//! redistributor window) are Device-nGnRE and execute-never; the GiB at 0x4000_0000, which holds
//! the RAM, is Normal write-back cacheable, inner shareable. The rest faults. With the MMU and
//! caches on from the first instruction, every core sees RAM as Normal cacheable memory, as
//! firmware on a real Cortex-A core must (with them off, every access is Device memory: slow, and
//! exclusives are not guaranteed to work).
use aarch64_paging::descriptor::El1Attributes;
use aarch64_paging::mair::{Mair, MairAttribute, NormalMemory};
use aarch64_rt::{InitialPagetable, initial_pagetable};
use core::fmt;

/// Device memory: MAIR index 0, never executable (no speculative instruction fetch from MMIO).
const DEVICE: El1Attributes = El1Attributes::VALID
    .union(El1Attributes::ATTRIBUTE_INDEX_0)
    .union(El1Attributes::ACCESSED)
    .union(El1Attributes::PXN)
    .union(El1Attributes::UXN);

/// RAM: MAIR index 1, inner shareable (coherent between cores).
const NORMAL: El1Attributes = El1Attributes::VALID
    .union(El1Attributes::ATTRIBUTE_INDEX_1)
    .union(El1Attributes::INNER_SHAREABLE)
    .union(El1Attributes::ACCESSED);

/// Index 0 Device-nGnRE, index 1 Normal write-back read/write-allocate (inner and outer).
const MAIR: Mair = Mair::EMPTY
    .with_attribute(0, MairAttribute::DEVICE_NGNRE)
    .with_attribute(
        1,
        MairAttribute::normal(
            NormalMemory::WriteBackNonTransientReadWriteAllocate,
            NormalMemory::WriteBackNonTransientReadWriteAllocate,
        ),
    );

const GIB: usize = 1 << 30;

initial_pagetable!(
    {
        let mut idmap = [0; 512];
        idmap[0] = DEVICE.bits();
        idmap[super::platform::RAM_BASE / GIB] = NORMAL.bits() | super::platform::RAM_BASE;
        idmap[256] = DEVICE.bits() | (256 * GIB);
        InitialPagetable(idmap)
    },
    MAIR.0
);

/// SCTLR_EL1 as the banner reports it: whether the MMU, the data cache and the instruction cache
/// are on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryState {
    /// The raw SCTLR_EL1 value.
    pub sctlr: u64,
}

impl MemoryState {
    /// Reads SCTLR_EL1 on this core.
    pub fn read() -> Self {
        use aarch64_cpu::registers::{Readable, SCTLR_EL1};
        Self {
            sctlr: SCTLR_EL1.get(),
        }
    }

    /// SCTLR_EL1.M: stage 1 translation on.
    pub fn mmu_on(self) -> bool {
        self.sctlr & 1 != 0
    }

    /// SCTLR_EL1.C and .I: data and instruction caches on.
    pub fn caches_on(self) -> bool {
        self.sctlr & (1 << 2) != 0 && self.sctlr & (1 << 12) != 0
    }
}

/// `MMU on, caches on (SCTLR_EL1 0x...)`.
impl fmt::Display for MemoryState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on_off = |on: bool| if on { "on" } else { "off" };
        let data = self.sctlr & (1 << 2) != 0;
        let instruction = self.sctlr & (1 << 12) != 0;
        write!(f, "MMU {}, ", on_off(self.mmu_on()))?;
        if data == instruction {
            write!(f, "caches {}", on_off(data))?;
        } else {
            write!(
                f,
                "data cache {}, instruction cache {}",
                on_off(data),
                on_off(instruction)
            )?;
        }
        write!(f, " (SCTLR_EL1 {:#x})", self.sctlr)
    }
}
