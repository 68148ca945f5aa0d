//! One test binary for the hardware debug's (breakpoints, watchpoints, syndromes) integration
//! tests: each file below is a module of it (why one binary per area: the README's "Tests"). Each
//! file declares the support modules it uses itself, so a support module two files use is compiled
//! twice.
#![allow(clippy::duplicate_mod)]

#[path = "hwdebug_comparators.rs"]
mod hwdebug_comparators;
#[path = "hwdebug_monitor.rs"]
mod hwdebug_monitor;
#[path = "hwdebug_syndrome.rs"]
mod hwdebug_syndrome;
