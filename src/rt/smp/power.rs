//! A core's power state as the runtime tracks it, and what a core does first when it starts.
//! A leaf: the bring-up and the jobs both build on it.

use core::sync::atomic::{AtomicU8, Ordering};

use aarch64_cpu::registers::{MPIDR_EL1, Readable, TPIDR_EL1, Writeable};

use crate::rt::core_id::{CoreId, MAX_CORES, MPIDRS, ONLINE};

/// The affinity fields of an MPIDR (Aff3, Aff2, Aff1, Aff0).
pub(crate) const AFFINITY: u64 = 0xFF_00FF_FFFF;

/// Per-core power state, as [`on_each_core`](super::on_each_core) tracks it.
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
    crate::rt::fault_probe::reset_this_core();
    crate::rt::irq::forget_this_core();
}
