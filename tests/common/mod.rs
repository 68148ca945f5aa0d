//! Shared helpers for the host integration tests.
#![allow(dead_code)] // each test file uses a different subset

pub mod demo;
pub mod demo_mfc;
pub mod perf_tool;
pub mod qemu;
pub mod toolchain;
