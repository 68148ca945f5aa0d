//! The model's failure: the timing model and the functional model disagree, or a request
//! cannot be served.

use core::fmt;

/// A model failure: the timing model and the functional model disagree, or a request cannot
/// be served. Never a panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ModelError {
    /// The path fetch followed differs from the one execution took: the instruction at `pc`
    /// was fetched expecting `predicted` next, stage o computed `actual` (e.g. code that
    /// modifies itself ahead of execution).
    PathMismatch {
        /// Address of the instruction.
        pc: u32,
        /// Next address fetch predicted.
        predicted: u32,
        /// Next address execution computed.
        actual: u32,
    },
    /// Writing a `prof_cp` line to the output failed.
    Output,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PathMismatch {
                pc,
                predicted,
                actual,
            } => write!(
                f,
                "pipeline model error: instruction at {pc:#07x} was fetched expecting {predicted:#07x} next, but executed to {actual:#07x}"
            ),
            Self::Output => f.write_str("writing a prof_cp line failed"),
        }
    }
}

impl core::error::Error for ModelError {}
