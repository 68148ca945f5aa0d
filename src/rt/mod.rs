//! Bare-metal runtime for QEMU `-M virt` (AArch64, EL1), on well-kept platform crates:
//! `aarch64-rt` (entry, exception vectors, initial page table), `arm-gic` (GICv2 and GICv3),
//! `smccc` (PSCI), `arm-pl011-uart` (console) and `semihosting` (exit, host files, command line).
//!
//! Compiled only with the `rt` feature for `target_os = "none"`; firmware that embeds pmprobe and
//! brings its own runtime disables the feature. What it provides:
//!
//! - [`boot`]: the image's entry at 0x4008_0000 (ELF and raw image) turns the **MMU and caches
//!   on** with the identity map of [`pagetable`] (RAM Normal cacheable, MMIO Device-nGnRE) before
//!   anything else, elects the boot core, then aarch64-rt enables FP/SIMD, zeroes `.bss`, sets the
//!   stack and the vectors and calls the function named by [`entry!`](crate::entry).
//! - [`exceptions`]: handlers that print a report (exception class by name, ESR, ELR, FAR, SPSR)
//!   and end QEMU with [`EXIT_EXCEPTION`]; IRQs are dispatched to [`irq`].
//! - [`irq`]: the GIC (v2 or v3, detected) and a handler table for every INTID; [`timer`]: the
//!   EL1 physical timer.
//! - [`psci`]: version, system off/reset, `CPU_ON`, `AFFINITY_INFO`, with an error (not a crash)
//!   when no firmware answers.
//! - [`smp`]: the other cores, started with PSCI `CPU_ON` on stacks of their own, numbered
//!   densely, running work with [`smp::on_each_core`] and powered off when idle.
//! - [`console`]: PL011 UART0 with `core::fmt` printing ([`println!`](crate::println)), whole
//!   lines under a lock across cores; with the `defmt` feature, text lines and `defmt` logs go
//!   out as defmt frames that `qemu/run` decodes.
//! - [`semihosting`]: exit with a status code, host file output, the command line.
//! - [`debug_exceptions`]: hardware breakpoints and watchpoints, stepped past and resumed, as
//!   probe points and PC events.
//! - [`profiler`]: the sampling profiler (PMU overflow or generic timer interrupts, a call stack
//!   per sample, one buffer per core, the profile written through semihosting).
//! - A panic handler that prints the message and location and exits with [`EXIT_PANIC`].
//!
//! Board addresses are in [`platform`]. Link with `-Tpmprobe-qemu-virt.ld` (pmprobe's build
//! script puts it on the search path and adds it for this package's binaries; a dependent binary
//! crate adds `cargo:rustc-link-arg-bins=-Tpmprobe-qemu-virt.ld` in its build.rs).

pub mod boot;
pub mod console;
mod core_id;
pub mod debug_exceptions;
#[cfg(feature = "defmt")]
mod defmt_logger;
pub mod exceptions;
mod exit_status;
mod fault_probe;
pub mod irq;
pub mod pagetable;
mod panic;
pub mod platform;
pub mod profiler;
pub mod psci;
pub mod semihosting;
pub mod smp;
pub mod timer;
mod zero_slot;

pub use exit_status::{EXIT_EXCEPTION, EXIT_PANIC, exit};
pub use zero_slot::ZeroSlot;

/// Declares the firmware's main function: `fn main() -> i32`, run at EL1 after boot; its return
/// value becomes QEMU's exit status (negative values are passed as their two's complement low byte
/// by the host).
///
/// ```ignore
/// #![no_std]
/// #![no_main]
/// pmprobe::entry!(main);
/// fn main() -> i32 { pmprobe::println!("hello"); 0 }
/// ```
#[macro_export]
macro_rules! entry {
    ($main:path) => {
        #[unsafe(export_name = "__pmprobe_main")]
        extern "Rust" fn __pmprobe_main_trampoline() -> i32 {
            let main: fn() -> i32 = $main;
            main()
        }
    };
}
