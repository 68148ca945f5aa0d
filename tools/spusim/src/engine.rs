//! Simulation engines: one per `--mode`. The instruction engine runs the functional model;
//! the pipeline engine (`pipeline_engine.rs`) runs the cycle-level model.

use std::fmt;
use std::io::{self, Write};

use pmprobe::spu::exec::{
    Executed, RunEnd, SPU_WR_OUT_INTR_MBOX, SPU_WR_OUT_MBOX, SpuState, StopReason,
};

use crate::options::{Mode, Options};
use crate::pipeline_engine::PipelineEngine;

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

/// The requested mode has no engine yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unavailable(pub Mode);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "--mode {} is not available yet (the cycle-level pipeline model arrives with the \
             pipeline issue); use --mode instruction",
            self.0
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
        out: &mut dyn Write,
    ) -> io::Result<Summary>;
}

/// The engine for `mode`.
pub fn engine_for(mode: Mode) -> Result<Box<dyn Engine>, Unavailable> {
    match mode {
        Mode::Instruction => Ok(Box::new(InstructionEngine)),
        Mode::Pipeline => Err(Unavailable(mode)),
    }
}

/// The engine for the parsed options (the pipeline engine is configured by them).
pub fn engine_for_options(options: &Options) -> Result<Box<dyn Engine>, String> {
    match options.mode {
        Mode::Pipeline => {
            let settings = &options.pipeline;
            let trace = settings
                .trace
                .then_some((settings.trace_from, settings.trace_to));
            let engine = PipelineEngine::new(
                settings.config,
                settings.fetch,
                settings.stats,
                trace,
                settings.konata.as_deref(),
                settings.fast_forward,
            )?;
            Ok(Box::new(engine))
        }
        mode => engine_for(mode).map_err(|unavailable| unavailable.to_string()),
    }
}

/// Functional execution: one cycle per instruction.
pub struct InstructionEngine;

impl Engine for InstructionEngine {
    fn run(
        &mut self,
        spu: &mut SpuState,
        max_cycles: u64,
        out: &mut dyn Write,
    ) -> io::Result<Summary> {
        let mut io_error = None;
        loop {
            let remaining = max_cycles.saturating_sub(spu.cycle_count());
            if remaining == 0 {
                return Ok(summary(
                    spu,
                    End::CycleLimit { limit: max_cycles },
                    spu.pc(),
                ));
            }
            let mut print = |executed: &Executed| -> Result<(), core::fmt::Error> {
                if let Some(checkpoint) = executed.profile
                    && let Err(error) = writeln!(out, "{checkpoint}")
                {
                    io_error = Some(error);
                    return Err(core::fmt::Error);
                }
                Ok(())
            };
            let outcome = spu.run_observed(remaining, &mut print);
            if let Some(error) = io_error.take() {
                return Err(error);
            }
            let Ok(outcome) = outcome else {
                return Err(io::Error::other("output failed"));
            };
            match outcome.end {
                RunEnd::Stopped(reason) => {
                    return Ok(summary(spu, End::Stopped(reason), reason.pc()));
                }
                RunEnd::CycleLimit => {}
                RunEnd::Blocked { channel } => {
                    // Drained: resume; nothing to drain: the SPU waits for good.
                    if !drain_outbound_mailbox(spu, channel, out)? {
                        return Ok(summary(spu, End::Blocked { channel }, spu.pc()));
                    }
                }
            }
        }
    }
}

/// The host side of the outbound mailboxes: when `channel` is one of them and holds a value,
/// prints it as `SPU<n>: mailbox 0x...` and pops it (so the blocked write can complete);
/// returns whether a value was drained.
pub(crate) fn drain_outbound_mailbox(
    spu: &mut SpuState,
    channel: u8,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let id = spu.id();
    let channels = spu.channels_mut();
    let drained = match channel {
        SPU_WR_OUT_MBOX => channels.outbound.pop(),
        SPU_WR_OUT_INTR_MBOX => channels.outbound_interrupt.pop(),
        _ => None,
    };
    match drained {
        Some(value) => {
            writeln!(out, "SPU{id}: mailbox {value:#010x}")?;
            Ok(true)
        }
        None => Ok(false),
    }
}

fn summary(spu: &SpuState, end: End, pc: u32) -> Summary {
    Summary {
        end,
        pc,
        instructions: spu.instructions_retired(),
        cycles: spu.cycle_count(),
    }
}
