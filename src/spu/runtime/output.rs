//! Where a program's printed text goes, and what else the runtime tells the host.

use super::printf::PrintfSink;

/// The host stream a program writes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Stream {
    /// Standard output (`printf`, `puts`, `spu_printf`).
    Stdout,
    /// Standard error (`fprintf(stderr, ..)`, `write(2, ..)`).
    Stderr,
}

/// Something a runtime did for the program that is not its text: the host may log it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Notice {
    /// An lv2 event sent (or thrown) to a port connected to the host.
    EventSent {
        /// The SPU thread port.
        port: u8,
        /// The low 24 bits of the `SPU_WrOutIntrMbox` word.
        data0: u32,
        /// The `SPU_WrOutMbox` word.
        data1: u32,
        /// Whether the program waits for an answer (send) or not (throw).
        answered: bool,
    },
    /// An lv2 event to a port nobody connected: the program got `ENOTCONN` (send) or nothing
    /// (throw).
    EventNotConnected {
        /// The port.
        port: u8,
    },
    /// A raw SPU's interrupt mailbox word that was not a print request.
    InterruptMailbox {
        /// The word.
        value: u32,
    },
    /// A print request whose format was refused: the program got -1 and what came before the
    /// refusal was printed.
    PrintfRefused(super::printf::PrintfError),
    /// A print request made more text than [`MAX_PRINT_BYTES`]: the rest was dropped.
    PrintTruncated {
        /// Bytes dropped.
        dropped: u64,
    },
}

/// The most bytes one print request writes; the rest is dropped and counted
/// ([`Notice::PrintTruncated`]): widths and precisions can ask for a megabyte each.
pub const MAX_PRINT_BYTES: u64 = 1 << 20;

/// The host side of a program's output: its text, verbatim, and the runtime's notices.
pub trait ProgramOutput {
    /// Writes `bytes` to `stream`. A failure is the host's (a closed pipe): the runtime stops
    /// the program with [`RuntimeError::Output`](super::RuntimeError::Output).
    fn write(&mut self, stream: Stream, bytes: &[u8]) -> Result<(), OutputFailed>;

    /// A notice; the default drops it.
    fn notice(&mut self, notice: Notice) {
        let _ = notice;
    }
}

/// The host could not take the program's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OutputFailed;

impl core::fmt::Display for OutputFailed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the host could not take the program's output")
    }
}

impl core::error::Error for OutputFailed {}

/// A [`PrintfSink`] over a [`ProgramOutput`] stream that keeps at most [`MAX_PRINT_BYTES`],
/// counts the rest and remembers the first failure.
pub(crate) struct LimitedSink<'a> {
    output: &'a mut dyn ProgramOutput,
    stream: Stream,
    written: u64,
    dropped: u64,
    failed: bool,
}

impl<'a> LimitedSink<'a> {
    pub(crate) fn new(output: &'a mut dyn ProgramOutput, stream: Stream) -> Self {
        LimitedSink {
            output,
            stream,
            written: 0,
            dropped: 0,
            failed: false,
        }
    }

    /// Reports a truncation; `Err` if the host failed to take a write.
    pub(crate) fn finish(self) -> Result<(), OutputFailed> {
        if self.dropped > 0 {
            self.output.notice(Notice::PrintTruncated {
                dropped: self.dropped,
            });
        }
        if self.failed {
            Err(OutputFailed)
        } else {
            Ok(())
        }
    }

    /// The output, for a notice.
    pub(crate) fn output(&mut self) -> &mut dyn ProgramOutput {
        self.output
    }
}

impl PrintfSink for LimitedSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let room = MAX_PRINT_BYTES.saturating_sub(self.written);
        let kept = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        self.dropped += (bytes.len() - kept) as u64;
        self.written += kept as u64;
        if kept > 0 && !self.failed && self.output.write(self.stream, &bytes[..kept]).is_err() {
            self.failed = true;
        }
    }
}
