//! How a run ends: a leaf shared by the host (whose runtime ends programs) and the engines.

use pmprobe::spu::exec::StopReason;
use pmprobe::spu::runtime::{ProgramEnd, RuntimeError};

/// How a simulation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The SPU stopped (stop, halt or fault).
    Stopped(StopReason),
    /// The SPU waits on a channel the tool cannot service.
    Blocked { channel: u8 },
    /// `--max-cycles` was reached before the SPU stopped.
    CycleLimit { limit: u64 },
    /// The program ended its runtime's way (`--runtime`).
    Program(ProgramEnd),
    /// The runtime refused what the program asked (the SPU stops).
    Refused(RuntimeError),
    /// An lv2 thread waits for an event on a queue nothing sends to.
    WaitingForEvent { queue: u32 },
}
