//! Exit statuses and the failures that end a run early, each with its status.

use std::fmt;
use std::io::{self, Write};

/// The program executed `stop`/`stopd`.
pub const EXIT_STOP: u8 = 0;
/// The program executed a halt instruction.
pub const EXIT_HALT: u8 = 1;
/// A usage error, refused or unreadable input, an output that cannot be written, an
/// assembly error or a file without instructions.
pub const EXIT_USAGE: u8 = 2;
/// A fault, a blocked channel, `--max-cycles` exceeded or a model error.
pub const EXIT_RUN_ERROR: u8 = 3;
/// `--check-dma` found a DMA race (in a run that otherwise ended without an error).
pub const EXIT_DMA_RACE: u8 = 4;

/// Why a run ended before its final line; each kind has its own exit status.
#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    /// The input was refused or could not be read, or an output could not be created or
    /// written (exit 2). The message names the file or stream.
    Io(String),
    /// The program does not assemble or holds no instructions (exit 2). The message starts
    /// with `file:line:col:` (or `file:`), the form editors jump to.
    Program(String),
    /// The simulation itself failed (exit 3): the model reported an error (e.g. the pipeline's
    /// fetched path and executed path differ), or a listener could not be attached.
    Model(String),
}

impl Failure {
    /// The exit status for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Io(_) | Failure::Program(_) => EXIT_USAGE,
            Failure::Model(_) => EXIT_RUN_ERROR,
        }
    }

    /// A failure to write to standard output.
    pub fn stdout(error: io::Error) -> Failure {
        Failure::Io(format!("cannot write to standard output: {error}"))
    }

    /// Prints the failure as its line on standard error.
    pub fn report(&self, err: &mut dyn Write) {
        // Nothing more can be done when standard error itself fails; the status still tells.
        let _ = writeln!(err, "{self}");
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Io(message) => write!(f, "spusim: {message}"),
            Failure::Program(message) => f.write_str(message),
            Failure::Model(message) => write!(f, "spusim: {message}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_errors_exit_3_with_their_own_message() {
        let failure =
            Failure::Model("pipeline model error: fetched 0x00010 expecting 0x00014".into());
        assert_eq!(failure.exit_code(), 3);
        assert_eq!(
            failure.to_string(),
            "spusim: pipeline model error: fetched 0x00010 expecting 0x00014"
        );
    }

    #[test]
    fn input_output_and_program_failures_exit_2() {
        assert_eq!(Failure::Io("cannot read `p.s`".into()).exit_code(), 2);
        assert_eq!(Failure::Program("p.s:1:1: unknown".into()).exit_code(), 2);
        assert_eq!(
            Failure::Program("p.s:1:1: unknown".into()).to_string(),
            "p.s:1:1: unknown"
        );
        assert_eq!(
            Failure::stdout(io::Error::other("broken pipe")).to_string(),
            "spusim: cannot write to standard output: broken pipe"
        );
    }
}
