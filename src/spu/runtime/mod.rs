//! The host side of the runtimes compiled SPU programs were built for, so that an `.elf` from
//! the PS3 SDK (`spu-lv2-gcc`) or the Cell SDK (`spu-gcc` with newlib, run by libspe2) runs
//! unmodified: it starts as its runtime starts it, its prints reach the host's output, and it
//! ends the way it ended there.
//!
//! - [`start`]: the start state each runtime gives a program (registers, NPC, stack).
//! - [`Lv2Runtime`]: a PS3 SPU thread: lv2's stop codes, its system calls through
//!   `SPU_WrOutIntrMbox`, event queues, and the SDK's `spu_printf` server.
//! - [`RawRuntime`]: a PS3 raw SPU: every stop ends it; its interrupt mailbox prints.
//! - [`LibspeRuntime`]: Linux's libspe2: exit codes, stop-and-signal, and the PPE-assisted
//!   library calls (stdio output, `write`).
//! - [`printf`]: the `printf` both print paths format with (the PS3 C library's rules).
//! - [`run_program`]: runs an [`SpuUnit`](crate::spu::unit::SpuUnit) under a runtime until the
//!   program ends.
//!
//! Everything is `no_std` and bounded: a thread's queues hold [`MAX_BOUND_QUEUES`] ×
//! [`QUEUE_CAPACITY`] events, one print writes at most [`MAX_PRINT_BYTES`]; what does not fit
//! is refused or counted, never silently lost. The runtime answers at once, so the SPU never
//! waits for the PPE in the model: the cycles are the SPU's own. `docs/spu-runtimes.md` has the
//! facts each runtime follows and their sources.

mod error;
mod event_queues;
mod kind;
mod libspe;
mod libspe_calls;
mod lv2;
mod output;
mod print_server;
pub mod printf;
mod raw;
mod run;
mod service;
pub mod start;

pub use error::RuntimeError;
pub use event_queues::{EventData, EventQueues, MAX_BOUND_QUEUES, QUEUE_CAPACITY, QueueError};
pub use kind::{Runtime, RuntimeKind};
pub use libspe::{LibspeRuntime, STOP_EXIT, STOP_LIBRARY_CALL};
pub use libspe_calls::{CLASS_C99, CLASS_POSIX1, MAX_STRING_PRINT_BYTES, POSIX1_WRITE, c99};
pub use lv2::{
    CELL_EBUSY, CELL_EINVAL, CELL_ENOTCONN, CELL_ESRCH, CELL_OK, Lv2Runtime, STOP_GROUP_EXIT,
    STOP_RECEIVE_EVENT, STOP_THREAD_EXIT, STOP_TRY_RECEIVE_EVENT, STOP_YIELD,
};
pub use output::{MAX_PRINT_BYTES, Notice, OutputFailed, ProgramOutput, Stream};
pub use print_server::PRINTF_PORT;
pub use raw::RawRuntime;
pub use run::{ProgramOutcome, ProgramRun, RunError, run_program};
pub use service::{ProgramEnd, Serviced, SpuRuntime};
