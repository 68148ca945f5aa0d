//! The `--mode instruction` engine: functional execution, one cycle per instruction.

use std::io::Write;

use pmprobe::spu::exec::{ProfileCheckpoint, RunEnd, SpuState};

use crate::engine::{End, Engine, Summary};
use crate::exit::Failure;
use crate::host::Host;

/// Functional execution: one cycle per instruction.
pub struct InstructionEngine;

impl Engine for InstructionEngine {
    fn run(
        &mut self,
        spu: &mut SpuState,
        max_cycles: u64,
        host: &mut Host<'_>,
        out: &mut dyn Write,
    ) -> Result<Summary, Failure> {
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
            let mut print = |checkpoint: &ProfileCheckpoint| -> Result<(), core::fmt::Error> {
                writeln!(out, "{checkpoint}").map_err(|error| {
                    io_error = Some(error);
                    core::fmt::Error
                })
            };
            let outcome = spu.run_checkpoints(remaining, &mut print);
            if let Some(error) = io_error.take() {
                return Err(Failure::stdout(error));
            }
            // The observer is the only thing that can fail, and its errors were taken above.
            let Ok(outcome) = outcome else {
                return Err(Failure::Io(
                    "cannot write to standard output: a checkpoint line failed".into(),
                ));
            };
            match outcome.end {
                RunEnd::Stopped(reason) => {
                    // Answered by the runtime: the SPU goes on; else the run ends.
                    if let Some(end) = host.on_stop(spu, reason)? {
                        return Ok(summary(spu, end, reason.pc()));
                    }
                }
                RunEnd::CycleLimit => {}
                RunEnd::Blocked { channel } => {
                    // Serviced: resume; nothing the host can give: the SPU waits for good.
                    if let Some(end) = host.service(spu, channel, out)? {
                        return Ok(summary(spu, end, spu.pc()));
                    }
                }
            }
        }
    }
}

fn summary(spu: &SpuState, end: End, pc: u32) -> Summary {
    Summary {
        end,
        pc,
        instructions: spu.instructions_retired(),
        cycles: spu.cycle_count(),
        dma_fault: spu.dma_fault(),
    }
}
