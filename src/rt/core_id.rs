//! A core's dense number, and the table of the MPIDRs behind the numbers.
//!
//! Every per-core table of the runtime (the fault probe's flags, the GIC CPU interface state,
//! the console's unfinished lines, stacks) is indexed by this number. It lives in a leaf of its
//! own, below [`smp`](super::smp) which assigns the numbers, so that per-core state can name its
//! core without importing the code that starts cores (which in turn resets that state).
use core::fmt;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use aarch64_cpu::registers::{Readable, TPIDR_EL1};

/// Cores the runtime numbers and keeps state for (the demo spreads 8 SPUs; QEMU `virt` with a
/// GICv2 has at most 8 cores). Cores found beyond it are left off and counted
/// ([`BringUp::left_off`](super::smp::BringUp::left_off)).
pub const MAX_CORES: usize = 8;

/// A core's dense number: 0 for the boot core, then 1, 2, ... in bring-up order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoreId(pub(in crate::rt) u8);

impl CoreId {
    /// The number as an index into per-core tables (always below [`MAX_CORES`] for a number the
    /// runtime assigned).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The core numbered `index`, if the runtime has assigned that number.
    pub fn from_index(index: usize) -> Option<Self> {
        (index < online()).then_some(Self(index as u8))
    }
}

/// `core N`, padded to the width asked for.
impl fmt::Display for CoreId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text: heapless::String<8> = heapless::String::new();
        fmt::write(&mut text, format_args!("core {}", self.0))?;
        f.pad(&text)
    }
}

/// MPIDR_EL1 of each numbered core, as it read the register (0: no core has this number yet;
/// MPIDR bit 31 is RES1, so a real value is never 0).
pub(in crate::rt) static MPIDRS: [AtomicU64; MAX_CORES] = [const { AtomicU64::new(0) }; MAX_CORES];
/// How many numbers are assigned (numbers 0..ONLINE).
pub(in crate::rt) static ONLINE: AtomicUsize = AtomicUsize::new(0);

/// The number of the core running this code.
///
/// Read from `TPIDR_EL1`, which the runtime sets on every core before its first Rust code. A
/// value out of range (code running before that, on a board the runtime did not boot) reads as
/// a number no table holds, so per-core lookups with it fail cleanly (`get` returns `None`).
#[inline]
pub fn this_core() -> CoreId {
    CoreId(TPIDR_EL1.get().min(u64::from(u8::MAX)) as u8)
}

/// Cores with a number: the boot core and every core
/// [`bring_up`](super::smp::bring_up) started.
pub fn online() -> usize {
    ONLINE.load(Ordering::Acquire)
}

/// MPIDR_EL1 of core `core`, as that core read it.
pub fn mpidr(core: CoreId) -> Option<u64> {
    let value = MPIDRS.get(core.index())?.load(Ordering::Acquire);
    (value != 0).then_some(value)
}

/// Every numbered core, 0 first.
pub fn cores() -> impl Iterator<Item = CoreId> {
    (0..online()).map(|index| CoreId(index as u8))
}
