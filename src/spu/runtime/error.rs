//! Why a runtime stopped a program.

use super::output::OutputFailed;

/// A runtime could not do what the program asked: the program stops, and this names why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RuntimeError {
    /// A stop code the runtime has no meaning for (lv2 answers only its system calls).
    UnknownStopCode {
        /// The stop instruction's address.
        pc: u32,
        /// Its signal code.
        signal: u16,
    },
    /// `stop 0x101`/`0x102` (or an lv2 event or event flag) without the word it needs in
    /// `SPU_WrOutMbox`.
    MissingOutboundMailbox {
        /// The stop code, or the `SPU_WrOutIntrMbox` word.
        request: u32,
    },
    /// An `SPU_WrOutIntrMbox` word whose code (its top byte) lv2 does not define.
    UnknownInterruptCode {
        /// The word.
        value: u32,
    },
    /// A libspe2 PPE-assisted call this runtime does not perform.
    UnknownLibraryCall {
        /// The class (`stop 0x21cc`'s `cc`: 0 C99, 1 POSIX.1, 5 libea, ...).
        class: u8,
        /// The opcode (the data word's top byte).
        opcode: u8,
        /// The stop instruction's address.
        pc: u32,
    },
    /// The program's output could not be written.
    Output(OutputFailed),
}

impl core::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            RuntimeError::UnknownStopCode { signal, .. } => {
                write!(f, "stop {signal:#06x} is not one of the runtime's calls")
            }
            RuntimeError::MissingOutboundMailbox { request } => write!(
                f,
                "request {request:#x} needs a word in SPU_WrOutMbox and the mailbox is empty"
            ),
            RuntimeError::UnknownInterruptCode { value } => write!(
                f,
                "SPU_WrOutIntrMbox word {value:#010x}: code {} is not an lv2 request",
                value >> 24
            ),
            RuntimeError::UnknownLibraryCall { class, opcode, .. } => {
                let class_name = match class {
                    0 => "C99",
                    1 => "POSIX.1",
                    5 => "libea",
                    _ => "unknown class",
                };
                write!(
                    f,
                    "PPE-assisted call class {class:#04x} ({class_name}) opcode {opcode} is not \
                     performed by this runtime"
                )
            }
            RuntimeError::Output(error) => write!(f, "{error}"),
        }
    }
}

impl core::error::Error for RuntimeError {}

impl From<OutputFailed> for RuntimeError {
    fn from(error: OutputFailed) -> Self {
        RuntimeError::Output(error)
    }
}
