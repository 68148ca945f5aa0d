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
mod power;
mod start_error;

pub use super::core_id::{CoreId, MAX_CORES, cores, mpidr, online, this_core};
pub use bring_up::{BringUp, KEPT_FAILURES, bring_up};
pub use jobs::on_each_core;
pub(crate) use power::init_boot_core;
pub use start_error::{StartError, StartFailure};
