//! Running a program under its runtime until it ends.

use core::fmt;

use super::error::RuntimeError;
use super::output::ProgramOutput;
use super::service::{ProgramEnd, Serviced, SpuRuntime};
use crate::spu::exec::{RunEnd, StopReason};
use crate::spu::pipeline::ModelError;
use crate::spu::probes::SpuObserver;
use crate::spu::unit::SpuUnit;

/// How a run under a runtime ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ProgramOutcome {
    /// The program ended the runtime's way.
    Ended(ProgramEnd),
    /// The SPU stopped on its own: a halt, a fault, or a stop the runtime does not handle.
    Stopped(StopReason),
    /// The SPU waits on a channel only the host can serve (a mailbox, a signal).
    Blocked {
        /// The channel.
        channel: u8,
    },
    /// An lv2 thread waits for an event on this queue number.
    WaitingForEvent {
        /// The SPU queue number.
        queue: u32,
    },
    /// The cycle budget ran out.
    CycleLimit,
}

/// A finished [`run_program`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramRun {
    /// How it ended.
    pub outcome: ProgramOutcome,
    /// Cycles simulated (instructions, in instruction mode).
    pub cycles: u64,
}

/// Why [`run_program`] could not go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RunError {
    /// The pipeline model failed (see [`ModelError`]).
    Model(ModelError),
    /// The runtime refused a request; the program stops.
    Runtime(RuntimeError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Model(error) => write!(f, "{error}"),
            RunError::Runtime(error) => write!(f, "{error}"),
        }
    }
}

impl core::error::Error for RunError {}

/// Runs `unit` (in its mode) for at most `max_cycles` cycles under `runtime`, which answers its
/// calls: the program's text goes to `output`, `prof_cp` checkpoint lines to `checkpoints`.
///
/// A stop the runtime answers restarts the SPU as a PPE does (the pipeline refills); a channel
/// it answers (an lv2 system call waiting in `SPU_RdInMbox`) is retried where it waited, as
/// on the hardware.
pub fn run_program<R, O, W>(
    unit: &mut SpuUnit,
    runtime: &mut R,
    max_cycles: u64,
    observer: &O,
    checkpoints: &mut W,
    output: &mut dyn ProgramOutput,
) -> Result<ProgramRun, RunError>
where
    R: SpuRuntime + ?Sized,
    O: SpuObserver,
    W: fmt::Write,
{
    let mut cycles = 0u64;
    loop {
        if cycles >= max_cycles {
            return Ok(ProgramRun {
                outcome: ProgramOutcome::CycleLimit,
                cycles,
            });
        }
        let ran = unit
            .run(max_cycles - cycles, observer, checkpoints)
            .map_err(RunError::Model)?;
        cycles += ran.cycles;
        let arch = match ran.end {
            RunEnd::Stopped(_) => unit.arch_mut(),
            _ => unit.arch_for_channels(),
        };
        let serviced = runtime
            .service(arch, ran.end, output)
            .map_err(RunError::Runtime)?;
        let outcome = match serviced {
            Serviced::Resume => continue,
            Serviced::Ended(end) => ProgramOutcome::Ended(end),
            Serviced::WaitingForEvent { queue } => ProgramOutcome::WaitingForEvent { queue },
            Serviced::NotMine => match ran.end {
                RunEnd::Stopped(reason) => ProgramOutcome::Stopped(reason),
                RunEnd::Blocked { channel } => ProgramOutcome::Blocked { channel },
                RunEnd::CycleLimit => ProgramOutcome::CycleLimit,
            },
        };
        return Ok(ProgramRun { outcome, cycles });
    }
}
