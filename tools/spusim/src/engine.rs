//! What every engine shares: its summary, the [`Engine`] trait, and `fmt::Write` over
//! `io::Write`. It uses nothing else of spusim but [`End`], the exit module's [`Failure`] and
//! the [`Host`] an engine is given.

use std::io::{self, Write};

use pmprobe::spu::exec::{ChannelOperation, FaultKind, SpuState, StopReason};
use pmprobe::spu::mfc::DmaFault;

pub use crate::end::End;
use crate::exit::Failure;
use crate::host::Host;

/// Result of a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    pub end: End,
    /// The stopping instruction for a stop/halt/fault, else the current PC.
    pub pc: u32,
    pub instructions: u64,
    pub cycles: u64,
    /// The DMA command that stopped the SPU, with what it named.
    pub dma_fault: Option<DmaFault>,
}

impl Summary {
    /// Why the run ended, as the final line and the exit message say it.
    pub fn reason(&self) -> String {
        match &self.end {
            End::Stopped(StopReason::Stop { signal, .. }) => format!("stop {signal:#06x}"),
            End::Stopped(StopReason::Halt { .. }) => "halt".to_string(),
            End::Stopped(StopReason::Fault(fault)) => match fault.kind {
                FaultKind::IllegalInstruction => {
                    format!("fault: illegal instruction {:#010x}", fault.word)
                }
                FaultKind::UnsupportedChannel { channel, access } => {
                    let instruction = match access {
                        ChannelOperation::Read => "rdch",
                        ChannelOperation::Write => "wrch",
                        ChannelOperation::Count => "rchcnt",
                    };
                    format!(
                        "fault: {instruction} on unsupported channel {channel} (word {:#010x})",
                        fault.word
                    )
                }
                FaultKind::Dma(kind) => match self.dma_fault {
                    Some(dma) => format!("fault: {dma}"),
                    None => format!("fault: DMA error: {}", kind.description()),
                },
            },
            End::Blocked { channel } => {
                format!("blocked: channel {channel} waits for data the host never sends")
            }
            End::Program(end) => end.to_string(),
            End::Refused(error) => format!("runtime error: {error}"),
            End::WaitingForEvent { queue } => format!(
                "blocked: receives an event on SPU queue {queue}, and nothing sends one \
             (--event-queue {queue}=DATA1,DATA2,DATA3 does)"
            ),
            End::CycleLimit { limit } => format!("error: --max-cycles {limit} exceeded"),
        }
    }

    /// `<reason> at pc 0x.....: <n> instructions, <c> cycles`
    pub fn final_line(&self) -> String {
        format!(
            "{} at pc {:#07x}: {} instructions, {} cycles",
            self.reason(),
            self.pc,
            self.instructions,
            self.cycles
        )
    }
}

/// A way of running an SPU until it stops.
pub trait Engine {
    /// Runs `spu` for at most `max_cycles` cycles, writing checkpoint and mailbox lines to
    /// `out`.
    fn run(
        &mut self,
        spu: &mut SpuState,
        max_cycles: u64,
        host: &mut Host<'_>,
        out: &mut dyn Write,
    ) -> Result<Summary, Failure>;
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
