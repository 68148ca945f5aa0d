//! SMP: the cores of the machine, each with a dense number, a stack and per-core state.
//!
//! # Core numbers
//! A core is named by a [`CoreId`], a dense number assigned when it first runs: the boot core
//! (whichever core won the entry's election, whatever its MPIDR) is 0, and [`bring_up`] numbers
//! the other cores 1, 2, ... in the order it starts them. The number indexes every per-core
//! table of the runtime (stacks, the fault probe's flags, the GIC CPU interface state, the
//! console's unfinished lines); [`mpidr`] keeps each core's MPIDR_EL1 as the core read it. A core
//! finds its own number in `TPIDR_EL1` ([`this_core`], one `mrs`), which the runtime sets before
//! any other code runs on that core.
//!
//! # Running work on the cores
//! [`on_each_core`] runs one function on every numbered core at once, the calling core included,
//! and returns when all have finished. Each secondary core is started for it with PSCI `CPU_ON`
//! (through [`aarch64_rt::start_core`], on the core's own 1 MiB stack, with the MMU, caches and
//! the same exception vectors as the boot core) and powers itself off with `CPU_OFF` when its
//! part is done. An idle core is therefore off, not spinning: under QEMU `-icount` the virtual
//! cores share one instruction counter, and a spinning idle core would add its instructions to
//! every other core's PMU counts.
//!
//! # A core that does not start
//! `CPU_ON` can fail (no such core, a core already on, no PSCI firmware): [`bring_up`] reports a
//! [`StartError`] naming the core and goes on with the others; that core gets no number, so
//! nothing later waits for it. [`on_each_core`] reports a core that fails to start for one round
//! the same way, and the work it would have taken is left to the cores that did start (the work
//! itself decides how: the demo hands its SPUs out from a shared counter).
mod bring_up;
mod jobs;
mod start_error;

use core::fmt;
use core::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};

use aarch64_cpu::registers::{MPIDR_EL1, Readable, TPIDR_EL1, Writeable};

pub use bring_up::{BringUp, KEPT_FAILURES, bring_up};
pub use jobs::on_each_core;
pub use start_error::{StartError, StartFailure};

/// Cores the runtime numbers and keeps state for (the demo spreads 8 SPUs; QEMU `virt` with a
/// GICv2 has at most 8 cores). Cores found beyond it are left off and counted
/// ([`BringUp::left_off`]).
pub const MAX_CORES: usize = 8;

/// The affinity fields of an MPIDR (Aff3, Aff2, Aff1, Aff0).
pub(crate) const AFFINITY: u64 = 0xFF_00FF_FFFF;

/// A core's dense number: 0 for the boot core, then 1, 2, ... in bring-up order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoreId(u8);

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
static MPIDRS: [AtomicU64; MAX_CORES] = [const { AtomicU64::new(0) }; MAX_CORES];
/// How many numbers are assigned (numbers 0..ONLINE).
static ONLINE: AtomicUsize = AtomicUsize::new(0);

/// Per-core power state, as [`on_each_core`] tracks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Power {
    /// Off (or never started): its stack is free.
    Off = 0,
    /// Started for a round of work.
    Running = 1,
    /// Finished its work and about to call `CPU_OFF`.
    Finished = 2,
}

pub(crate) static POWER: [AtomicU8; MAX_CORES] = [const { AtomicU8::new(0) }; MAX_CORES];

/// The number of the core running this code.
///
/// Read from `TPIDR_EL1`, which the runtime sets on every core before its first Rust code. A
/// value out of range (code running before that, on a board the runtime did not boot) reads as
/// a number no table holds, so per-core lookups with it fail cleanly (`get` returns `None`).
#[inline]
pub fn this_core() -> CoreId {
    CoreId(TPIDR_EL1.get().min(u64::from(u8::MAX)) as u8)
}

/// Cores with a number: the boot core and every core [`bring_up`] started.
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

/// Called by the boot path before any other Rust code: this core is number 0.
pub(crate) fn init_boot_core() {
    TPIDR_EL1.set(0);
    if let Some(slot) = MPIDRS.first() {
        slot.store(MPIDR_EL1.get(), Ordering::Release);
    }
    if let Some(power) = POWER.first() {
        power.store(Power::Running as u8, Ordering::Release);
    }
    ONLINE.store(1, Ordering::Release);
}

/// Called first on a secondary core each time it is started: it learns its number, records its
/// MPIDR and forgets the per-core state of its previous power-on.
pub(crate) fn init_secondary_core(core: CoreId) {
    TPIDR_EL1.set(core.index() as u64);
    if let Some(slot) = MPIDRS.get(core.index()) {
        slot.store(MPIDR_EL1.get(), Ordering::Release);
    }
    super::fault_probe::reset_this_core();
    super::irq::forget_this_core();
}
