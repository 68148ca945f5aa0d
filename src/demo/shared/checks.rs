//! Cross-checks: each one is printed as it is made, and the verdict decides the exit status.

use super::output::outln;
use core::fmt;

/// Names kept for the final summary (the first failures, by name).
const KEPT_FAILURES: usize = 16;

/// The running tally of cross-checks.
pub struct Checks {
    passed: u32,
    failed: u32,
    /// Checks that could not be made here (an event the PMU lacks, counts that are not exact):
    /// neither passed nor failed, each printed with its reason.
    skipped: u32,
    failures: heapless::Vec<heapless::String<64>, KEPT_FAILURES>,
}

impl Checks {
    /// No check made yet.
    pub const fn new() -> Self {
        Self {
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: heapless::Vec::new(),
        }
    }

    /// Records and prints `check <name> ... ok|FAILED (<detail>)`.
    pub fn check(&mut self, name: fmt::Arguments<'_>, ok: bool, detail: fmt::Arguments<'_>) {
        let mut label: heapless::String<64> = heapless::String::new();
        // A name longer than the label is cut; the printed line below still shows it whole.
        let _ = fmt::write(&mut label, name);
        if ok {
            self.passed += 1;
            outln!("  check {name} ... ok ({detail})");
        } else {
            self.failed += 1;
            outln!("  check {name} ... FAILED ({detail})");
            let _ = self.failures.push(label);
        }
    }

    /// Records a check that cannot be made on this machine and prints
    /// `check <name> ... skipped (<reason>)`; it does not change the verdict.
    pub fn skip(&mut self, name: fmt::Arguments<'_>, reason: fmt::Arguments<'_>) {
        self.skipped += 1;
        outln!("  check {name} ... skipped ({reason})");
    }

    /// Records `left == right` with both values in the detail.
    pub fn equal(&mut self, name: fmt::Arguments<'_>, what: &str, left: u64, right: u64) {
        if left == right {
            self.check(name, true, format_args!("{what}: {left} = {right}"));
        } else {
            self.check(name, false, format_args!("{what}: {left} != {right}"));
        }
    }

    /// Adds the tally and failure names of checks made elsewhere (their lines were printed
    /// there).
    pub fn absorb(&mut self, other: &Checks) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
        for name in &other.failures {
            let _ = self.failures.push(name.clone());
        }
    }

    /// Prints the verdict; returns the exit status (0 only when every check held).
    pub fn finish(&self) -> i32 {
        outln!();
        if self.failed == 0 {
            if self.skipped == 0 {
                outln!("demo: all {} cross-checks held; exit 0", self.passed);
            } else {
                outln!(
                    "demo: all {} cross-checks held ({} skipped, see their reasons); exit 0",
                    self.passed,
                    self.skipped
                );
            }
            return 0;
        }
        outln!(
            "demo: {} of {} cross-checks FAILED:",
            self.failed,
            self.passed + self.failed
        );
        for name in &self.failures {
            outln!("  - {name}");
        }
        if self.failed as usize > self.failures.len() {
            outln!(
                "  (and {} more)",
                self.failed as usize - self.failures.len()
            );
        }
        1
    }
}
