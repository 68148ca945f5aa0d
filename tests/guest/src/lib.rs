//! Support for the QEMU guest test programs in `src/bin/`: named checks whose results the host
//! harness (`tests/common/qemu.rs`) reads from the console.
//!
//! Output format, one line per check: `check <name> ... ok` or `check <name> ... FAILED: <why>`,
//! then `guest <program>: <passed> passed, <failed> failed`.
#![no_std]

use core::fmt::Debug;

#[cfg(target_arch = "aarch64")]
mod meter;
#[cfg(target_arch = "aarch64")]
pub use meter::{Hundredths, InstructionMeter};

/// Collects the results of one guest program's checks.
pub struct Checks {
    program: &'static str,
    passed: u32,
    failed: u32,
}

impl Checks {
    /// Starts a program's checks; prints a header line.
    pub fn new(program: &'static str) -> Self {
        pmprobe::println!("guest {program}: start");
        Self {
            program,
            passed: 0,
            failed: 0,
        }
    }

    /// Records a boolean check.
    pub fn check(&mut self, name: &str, ok: bool) -> bool {
        if ok {
            self.passed += 1;
            pmprobe::println!("check {name} ... ok");
        } else {
            self.failed += 1;
            pmprobe::println!("check {name} ... FAILED");
        }
        ok
    }

    /// Records an equality check, printing both values when they differ.
    pub fn check_eq<T: PartialEq + Debug>(&mut self, name: &str, got: T, expected: T) -> bool {
        if got == expected {
            self.check(name, true)
        } else {
            self.failed += 1;
            pmprobe::println!("check {name} ... FAILED: got {got:?}, expected {expected:?}");
            false
        }
    }

    /// Records a check with a custom failure explanation.
    pub fn check_with(&mut self, name: &str, ok: bool, why: core::fmt::Arguments<'_>) -> bool {
        if ok {
            self.check(name, true)
        } else {
            self.failed += 1;
            pmprobe::println!("check {name} ... FAILED: {why}");
            false
        }
    }

    /// Number of failed checks so far.
    pub fn failed(&self) -> u32 {
        self.failed
    }

    /// Prints the summary and returns the exit status: 0 when every check passed.
    pub fn finish(self) -> i32 {
        pmprobe::println!(
            "guest {}: {} passed, {} failed",
            self.program,
            self.passed,
            self.failed
        );
        if self.failed == 0 && self.passed > 0 {
            0
        } else {
            1
        }
    }
}
