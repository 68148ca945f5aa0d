//! What every engine shares: how a run ends, its summary, the [`Engine`] trait, the host side
//! of the outbound mailboxes, and `fmt::Write` over `io::Write`. A leaf: it uses nothing else
//! of spusim but the exit module's [`Failure`].

use std::io::{self, Write};

use pmprobe::spu::exec::{Channels, SPU_WR_OUT_INTR_MBOX, SPU_WR_OUT_MBOX, SpuState, StopReason};

use crate::exit::Failure;

/// How a simulation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The SPU stopped (stop, halt or fault).
    Stopped(StopReason),
    /// The SPU waits on a channel the tool cannot service.
    Blocked { channel: u8 },
    /// `--max-cycles` was reached before the SPU stopped.
    CycleLimit { limit: u64 },
}

/// Result of a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    pub end: End,
    /// The stopping instruction for a stop/halt/fault, else the current PC.
    pub pc: u32,
    pub instructions: u64,
    pub cycles: u64,
}

/// A way of running an SPU until it stops.
pub trait Engine {
    /// Runs `spu` for at most `max_cycles` cycles, writing checkpoint and mailbox lines to
    /// `out`.
    fn run(
        &mut self,
        spu: &mut SpuState,
        max_cycles: u64,
        out: &mut dyn Write,
    ) -> Result<Summary, Failure>;
}

/// The host side of the outbound mailboxes: when `channel` is one of them and holds a value,
/// pops it (so the blocked write can complete) and returns it.
pub fn drain_outbound_mailbox(channels: &mut Channels, channel: u8) -> Option<u32> {
    match channel {
        SPU_WR_OUT_MBOX => channels.outbound.pop(),
        SPU_WR_OUT_INTR_MBOX => channels.outbound_interrupt.pop(),
        _ => None,
    }
}

/// The line a drained mailbox value prints as.
pub fn write_mailbox(
    out: &mut dyn Write,
    spu_id: impl std::fmt::Display,
    value: u32,
) -> io::Result<()> {
    writeln!(out, "SPU{spu_id}: mailbox {value:#010x}")
}

/// `fmt::Write` over an `io::Write`, keeping the first I/O error (the model's writers take
/// `fmt::Write`, the tool's outputs are `io::Write`).
pub struct IoFmt<'a> {
    out: &'a mut dyn Write,
    error: Option<io::Error>,
}

impl<'a> IoFmt<'a> {
    /// A writer over `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        IoFmt { out, error: None }
    }

    /// The first I/O error since the last call, if any.
    pub fn take_error(&mut self) -> io::Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }
}

impl std::fmt::Write for IoFmt<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|error| {
            self.error = Some(error);
            std::fmt::Error
        })
    }
}
