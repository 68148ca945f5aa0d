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
//! - [`run_program`]: runs an [`SpuUnit`] under a runtime until the program ends.
//!
//! Everything is `no_std` and bounded: a thread's queues hold [`MAX_BOUND_QUEUES`] ×
//! [`QUEUE_CAPACITY`] events, one print writes at most [`MAX_PRINT_BYTES`]; what does not fit
//! is refused or counted, never silently lost. The runtime answers at once, so the SPU never
//! waits for the PPE in the model: the cycles are the SPU's own. `docs/spu-runtimes.md` has the
//! facts each runtime follows and their sources.

mod error;
mod event_queues;
mod libspe;
mod libspe_calls;
mod lv2;
mod output;
mod print_server;
pub mod printf;
mod raw;
mod run;
pub mod start;

pub use error::RuntimeError;
pub use event_queues::{EventData, EventQueues, MAX_BOUND_QUEUES, QUEUE_CAPACITY, QueueError};
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

use crate::spu::elf::SpuElf;
use crate::spu::exec::{RunEnd, SpuState};

/// What a runtime did after the SPU stopped or waited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Serviced {
    /// It answered; the SPU goes on.
    Resume,
    /// The program ended.
    Ended(ProgramEnd),
    /// An lv2 thread waits for an event on this queue number (`stop 0x110` on an empty
    /// queue); send one ([`Lv2Runtime::bind_queue`]) and
    /// [`deliver_waiting`](Lv2Runtime::deliver_waiting).
    WaitingForEvent {
        /// The SPU queue number.
        queue: u32,
    },
    /// Nothing for the runtime: the SPU waits on something else (a mailbox only the host
    /// fills, a signal), or ran out of cycles, or faulted.
    NotMine,
}

/// How a program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ProgramEnd {
    /// lv2: `sys_spu_thread_exit(status)` (`stop 0x102`), also the end of `main`.
    ThreadExit {
        /// The exit status.
        status: u32,
    },
    /// lv2: `sys_spu_thread_group_exit(status)` (`stop 0x101`).
    GroupExit {
        /// The group's exit status.
        status: u32,
    },
    /// A raw SPU stopped (any stop code).
    RawStop {
        /// The stop code.
        signal: u16,
    },
    /// libspe2: `exit(status)` (`stop 0x2000 | status`).
    Exit {
        /// The exit status.
        status: u8,
    },
    /// libspe2: a stop-and-signal code returned to the PPE program.
    Signal {
        /// The stop code.
        signal: u16,
    },
}

impl ProgramEnd {
    /// The status a process running the program would exit with: the exit status (its low
    /// byte, as a process's), the stop code's low byte for a stop.
    pub fn exit_status(&self) -> u8 {
        match *self {
            ProgramEnd::ThreadExit { status } | ProgramEnd::GroupExit { status } => status as u8,
            ProgramEnd::Exit { status } => status,
            ProgramEnd::RawStop { signal } | ProgramEnd::Signal { signal } => signal as u8,
        }
    }

    /// A raw SPU's status register after the stop: the stop code in bits 16..31 and "stopped
    /// by stop-and-signal" (0x2); `None` for the other runtimes.
    pub fn raw_status_register(&self) -> Option<u32> {
        match *self {
            ProgramEnd::RawStop { signal } => Some((u32::from(signal) << 16) | 0x2),
            _ => None,
        }
    }
}

impl core::fmt::Display for ProgramEnd {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            ProgramEnd::ThreadExit { status } => write!(f, "thread exit, status {status:#x}"),
            ProgramEnd::GroupExit { status } => write!(f, "group exit, status {status:#x}"),
            ProgramEnd::RawStop { signal } => write!(
                f,
                "raw SPU stop {signal:#06x} (status register {:#010x})",
                (u32::from(signal) << 16) | 2
            ),
            ProgramEnd::Exit { status } => write!(f, "exit, status {status}"),
            ProgramEnd::Signal { signal } => write!(f, "stop-and-signal {signal:#06x} to the PPE"),
        }
    }
}

/// A runtime: what the host does when its program's SPU stops or waits.
pub trait SpuRuntime {
    /// Handles the end of a run of `spu`: answers a system call or library call and resumes
    /// the SPU, ends the program, or leaves it ([`Serviced::NotMine`]). The program's text
    /// goes to `output`.
    fn service(
        &mut self,
        spu: &mut SpuState,
        end: RunEnd,
        output: &mut dyn ProgramOutput,
    ) -> Result<Serviced, RuntimeError>;
}

/// Which runtime a program runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RuntimeKind {
    /// None: a plain program; every stop ends it.
    None,
    /// A PS3 SPU thread under lv2.
    Lv2,
    /// A PS3 raw SPU.
    Raw,
    /// Linux's libspe2.
    Libspe,
}

impl RuntimeKind {
    /// `none`, `lv2`, `raw` or `libspe`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "none" => RuntimeKind::None,
            "lv2" => RuntimeKind::Lv2,
            "raw" => RuntimeKind::Raw,
            "libspe" => RuntimeKind::Libspe,
            _ => return None,
        })
    }

    /// The name [`from_name`](Self::from_name) takes.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeKind::None => "none",
            RuntimeKind::Lv2 => "lv2",
            RuntimeKind::Raw => "raw",
            RuntimeKind::Libspe => "libspe",
        }
    }

    /// The runtime an executable was built for, as far as the file says: the PS3 SDK's
    /// `SPUNAME` note means lv2 (a raw SPU image looks the same: say `raw` to run one), newlib's
    /// call into the PPE (`__send_to_ppe`) or its EA-space symbol means libspe2; otherwise
    /// none.
    pub fn detect(elf: &SpuElf<'_>) -> Self {
        if elf.has_spu_name_note() {
            return RuntimeKind::Lv2;
        }
        let symbols = elf.symbols();
        if symbols.address_of("__send_to_ppe").is_some()
            || symbols.address_of("__ea_local_store").is_some()
        {
            return RuntimeKind::Libspe;
        }
        RuntimeKind::None
    }
}

/// One of the runtimes, chosen at run time.
// The lv2 variant holds its event queues in place (about 2 KiB): a heap-free crate cannot box
// it, and a runtime lives as long as its program.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Runtime {
    /// A PS3 SPU thread.
    Lv2(Lv2Runtime),
    /// A PS3 raw SPU.
    Raw(RawRuntime),
    /// libspe2.
    Libspe(LibspeRuntime),
}

impl Runtime {
    /// The runtime of `kind` in its default state; `None` for [`RuntimeKind::None`].
    pub fn of_kind(kind: RuntimeKind) -> Option<Self> {
        match kind {
            RuntimeKind::None => None,
            RuntimeKind::Lv2 => Some(Runtime::Lv2(Lv2Runtime::new())),
            RuntimeKind::Raw => Some(Runtime::Raw(RawRuntime)),
            RuntimeKind::Libspe => Some(Runtime::Libspe(LibspeRuntime)),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> RuntimeKind {
        match self {
            Runtime::Lv2(_) => RuntimeKind::Lv2,
            Runtime::Raw(_) => RuntimeKind::Raw,
            Runtime::Libspe(_) => RuntimeKind::Libspe,
        }
    }
}

impl SpuRuntime for Runtime {
    fn service(
        &mut self,
        spu: &mut SpuState,
        end: RunEnd,
        output: &mut dyn ProgramOutput,
    ) -> Result<Serviced, RuntimeError> {
        match self {
            Runtime::Lv2(runtime) => runtime.service(spu, end, output),
            Runtime::Raw(runtime) => runtime.service(spu, end, output),
            Runtime::Libspe(runtime) => runtime.service(spu, end, output),
        }
    }
}
