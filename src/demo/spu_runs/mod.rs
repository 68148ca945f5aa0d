//! Sections 2 to 4: the four SPU kernels, each on its SPU of the static arena under probes,
//! counted by its emulated PMU through the same driver as the real core, and cross-checked.
//!
//! - [`plan`]: what runs where, as data (a leaf every file here and the rooms above read);
//! - [`plan_run`]: one plan on whichever core takes it: assemble, attach, run, check;
//! - [`spu_run`]: one kernel under its probes: the counted run, the Konata log run, the bare
//!   run for the host table;
//! - [`run_loops`]: the loops that run a kernel to its stop (plain, logging, counted in
//!   slices between which the multiplexer rotates);
//! - [`spu_pmu`]: the emulated PMU's event groups (pinned and rotated) and perf stat's table;
//! - [`spu_checks`]: the PMU's view against the SPU's own statistics;
//! - [`interval_mode`]: `--interval-ms N`, readings while the SPU runs;
//! - [`watch`]: section 3's breakpoint on an SPU address.

pub mod interval_mode;
pub mod plan;
pub mod plan_run;
pub mod run_loops;
pub mod spu_checks;
pub mod spu_pmu;
pub mod spu_run;
pub mod watch;
