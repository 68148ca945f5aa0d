//! What a runtime is to the host: the [`SpuRuntime`] trait, what it does with a run's end
//! ([`Serviced`]) and how a program ends ([`ProgramEnd`]).

use super::error::RuntimeError;
use super::output::ProgramOutput;
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
    /// queue); send one ([`Lv2Runtime::bind_queue`](super::Lv2Runtime::bind_queue)) and
    /// [`deliver_waiting`](super::Lv2Runtime::deliver_waiting).
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
