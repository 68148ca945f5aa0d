//! Cross-checks of a profile against figures the firmware measured another way.
//!
//! The firmware knows, from its own counters, what share of the sampled interval each part of
//! the program took (the demo: host instructions per SPU mode). It writes one line per part
//! into a text file; `pmprofile --expect FILE` counts the samples whose call stack passes
//! through that part and checks that the two shares agree:
//!
//! ```text
//! # label  frame-pattern  expected-percent  tolerance-points
//! pipeline  pmprobe::spu::pipeline::  90.98  2.0
//! ```
//!
//! Fields are separated by whitespace; `#` starts a comment. A sample belongs to a part when
//! one of its frames (inlined ones included) has a function name containing the pattern.

use std::fmt;

use crate::profile::Profile;

/// One expected share.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// Name printed in the report.
    pub label: String,
    /// Substring of a function name on the stack.
    pub pattern: String,
    /// Expected share of the samples, in percent.
    pub percent: f64,
    /// Largest accepted difference, in percentage points.
    pub tolerance: f64,
}

/// A malformed expectation line (1-based line number and why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectError {
    /// The line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for ExpectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for ExpectError {}

/// Parses an expectation file.
pub fn parse(text: &str) -> Result<Vec<Expectation>, ExpectError> {
    let mut expectations = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let error = |reason: String| ExpectError {
            line: index + 1,
            reason,
        };
        let fields: Vec<&str> = content.split_whitespace().collect();
        let [label, pattern, percent, tolerance] = fields[..] else {
            return Err(error(format!(
                "expected 4 fields (label, pattern, percent, tolerance), found {}",
                fields.len()
            )));
        };
        let number = |name: &str, text: &str| {
            text.parse::<f64>()
                .ok()
                .filter(|value| value.is_finite() && *value >= 0.0)
                .ok_or_else(|| error(format!("{name} `{text}` is not a non-negative number")))
        };
        expectations.push(Expectation {
            label: label.to_string(),
            pattern: pattern.to_string(),
            percent: number("percent", percent)?,
            tolerance: number("tolerance", tolerance)?,
        });
    }
    Ok(expectations)
}

/// The outcome of one expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareCheck {
    /// The expectation.
    pub expectation: Expectation,
    /// Samples through the pattern.
    pub samples: u64,
    /// Their share of all samples, in percent.
    pub percent: f64,
}

impl ShareCheck {
    /// Whether the measured share is within the tolerance of the expected one.
    pub fn holds(&self) -> bool {
        (self.percent - self.expectation.percent).abs() <= self.expectation.tolerance
    }
}

/// Checks every expectation against `profile`.
pub fn check(profile: &Profile, expectations: &[Expectation]) -> Vec<ShareCheck> {
    expectations
        .iter()
        .map(|expectation| {
            let samples = profile.samples_through(&expectation.pattern);
            let percent = if profile.samples == 0 {
                0.0
            } else {
                100.0 * samples as f64 / profile.samples as f64
            };
            ShareCheck {
                expectation: expectation.clone(),
                samples,
                percent,
            }
        })
        .collect()
}

/// The report lines, one per check, e.g.
/// `check share_pipeline ... ok (90.91% of samples through pmprobe::spu::pipeline::, expected
/// 90.98% +- 2.00)`.
pub fn report(checks: &[ShareCheck]) -> String {
    let mut out = String::new();
    for check in checks {
        let e = &check.expectation;
        out.push_str(&format!(
            "check share_{} ... {} ({:.2}% of samples ({}) through {}, expected {:.2}% +- {:.2})\n",
            e.label,
            if check.holds() { "ok" } else { "FAILED" },
            check.percent,
            check.samples,
            e.pattern,
            e.percent,
            e.tolerance
        ));
    }
    out
}
