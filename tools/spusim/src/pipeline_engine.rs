//! The `--mode pipeline` engine: the cycle-level model with the selected fetch model and
//! configuration; `--stats` prints the `spu N stats print` block at the end.

use std::io::{self, Write};

use pmprobe::spu::exec::{SPU_WR_OUT_INTR_MBOX, SPU_WR_OUT_MBOX, Spu};
use pmprobe::spu::pipeline::config::Config;
use pmprobe::spu::pipeline::fetch::FetchKind;
use pmprobe::spu::pipeline::{Pipeline, RunEnd};
use pmprobe::spu::probes::NoProbes;

use crate::engine::{End, Engine, Summary};

/// Runs the pipeline model.
pub struct PipelineEngine {
    pipeline: Box<Pipeline>,
    print_stats: bool,
}

impl PipelineEngine {
    /// A pipeline engine, or the model's error text (e.g. `--fetch real`).
    pub fn new(config: Config, fetch: FetchKind, print_stats: bool) -> Result<Self, String> {
        let mut pipeline = Box::new(Pipeline::new(0));
        pipeline.set_config(config);
        pipeline
            .set_fetch(fetch)
            .map_err(|error| error.to_string())?;
        Ok(PipelineEngine {
            pipeline,
            print_stats,
        })
    }
}

/// `fmt::Write` over an `io::Write`, keeping the first I/O error.
struct IoFmt<'a> {
    out: &'a mut dyn Write,
    error: Option<io::Error>,
}

impl std::fmt::Write for IoFmt<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|error| {
            self.error = Some(error);
            std::fmt::Error
        })
    }
}

impl Engine for PipelineEngine {
    fn run(&mut self, spu: &mut Spu, max_cycles: u64, out: &mut dyn Write) -> io::Result<Summary> {
        let mut cycles = 0u64;
        let end = loop {
            let remaining = max_cycles.saturating_sub(cycles);
            if remaining == 0 {
                break End::CycleLimit { limit: max_cycles };
            }
            let mut sink = IoFmt {
                out: &mut *out,
                error: None,
            };
            let outcome = self.pipeline.run(spu, remaining, &NoProbes, &mut sink);
            if let Some(error) = sink.error.take() {
                return Err(error);
            }
            let outcome = outcome.map_err(|error| io::Error::other(error.to_string()))?;
            cycles += outcome.cycles;
            match outcome.end {
                RunEnd::Stopped(reason) => break End::Stopped(reason),
                RunEnd::CycleLimit => {}
                RunEnd::Blocked { channel } => {
                    // The host side of the outbound mailboxes: print and drain; the blocked
                    // instruction retries at stage o on the next cycle.
                    let id = spu.id();
                    let channels = spu.channels_mut();
                    let drained = match channel {
                        SPU_WR_OUT_MBOX => channels.outbound.pop(),
                        SPU_WR_OUT_INTR_MBOX => channels.outbound_interrupt.pop(),
                        _ => None,
                    };
                    match drained {
                        Some(value) => writeln!(out, "SPU{id}: mailbox {value:#010x}")?,
                        None => break End::Blocked { channel },
                    }
                }
            }
        };
        if self.print_stats {
            let mut sink = IoFmt {
                out: &mut *out,
                error: None,
            };
            let printed = self.pipeline.print_stats(spu, &mut sink);
            if let Some(error) = sink.error.take() {
                return Err(error);
            }
            printed.map_err(|_| io::Error::other("statistics could not be formatted"))?;
        }
        let pc = match end {
            End::Stopped(reason) => reason.pc(),
            _ => spu.pc(),
        };
        Ok(Summary {
            end,
            pc,
            instructions: spu.instructions_retired(),
            cycles,
        })
    }
}
