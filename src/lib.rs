//! # pmprobe
//!
//! A `#![no_std]`, heap-free crate for AArch64 bare metal with three parts that fit together:
//!
//! - **pmu**: a driver for the Arm PMUv3 performance monitor over two back ends, the real
//!   system registers and an emulated PMUv3;
//! - **probe**: a gem5-style observer framework (typed probe points, heapless listener lists,
//!   a named registry, a PC event queue, built-in listeners);
//! - **spu**: a model of the Cell BE SPU (ISA, functional "instruction mode", cycle-level
//!   "pipeline mode").
//!
//! The `rt` module (feature `rt`, `target_os = "none"` only) boots the crate on QEMU `virt`.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs, clippy::undocumented_unsafe_blocks)]

pub mod arch;
pub mod hwdebug;
pub mod pmu;
pub mod probe;
#[cfg(all(feature = "rt", target_arch = "aarch64", target_os = "none"))]
pub mod rt;
pub mod sampling;
pub mod spu;
pub mod sync;

/// The README's Rust examples are compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
