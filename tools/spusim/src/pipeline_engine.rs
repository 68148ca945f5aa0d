//! The `--mode pipeline` engine: the cycle-level model with the selected fetch model and
//! configuration; `--stats` prints the `spu N stats print` block at the end (and how many
//! cycles the model fast-forwarded).

use std::io::{self, Write};

use pmprobe::spu::exec::SpuState;
use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::pipeline::KonataWriter;
use pmprobe::spu::pipeline::write_frame;
use pmprobe::spu::pipeline::{Pipeline, RunEnd};
use pmprobe::spu::probes::NoProbes;

use crate::engine::{End, Engine, Summary, drain_outbound_mailbox};

/// Runs the pipeline model.
pub struct PipelineEngine {
    pipeline: Box<Pipeline>,
    print_stats: bool,
    /// Cycles to print trace frames for.
    trace: Option<(u64, u64)>,
    /// The Kanata log being written.
    konata: Option<(KonataWriter, std::io::BufWriter<std::fs::File>)>,
}

impl PipelineEngine {
    /// A pipeline engine, or the model's error text; `trace`: the cycles to print frames for;
    /// `fast_forward`: let the model skip exact repetitions of loop iterations.
    pub fn new(
        config: Config,
        fetch: FetchKind,
        print_stats: bool,
        trace: Option<(u64, u64)>,
        konata: Option<&std::path::Path>,
        fast_forward: bool,
    ) -> Result<Self, String> {
        let mut pipeline = Box::new(Pipeline::new());
        pipeline.set_config(config);
        pipeline.set_fast_forward(fast_forward);
        pipeline
            .set_fetch(fetch)
            .map_err(|error| error.to_string())?;
        let konata = match konata {
            Some(path) => {
                let file = std::fs::File::create(path)
                    .map_err(|error| format!("cannot create `{}`: {error}", path.display()))?;
                Some((KonataWriter::new(), std::io::BufWriter::new(file)))
            }
            None => None,
        };
        Ok(PipelineEngine {
            pipeline,
            print_stats,
            trace,
            konata,
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
    fn run(
        &mut self,
        spu: &mut SpuState,
        max_cycles: u64,
        out: &mut dyn Write,
    ) -> io::Result<Summary> {
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
            // Tracing runs one cycle at a time and writes a frame at the end of each.
            let per_cycle = self.trace.is_some() || self.konata.is_some();
            let slice = if per_cycle { 1 } else { remaining };
            let outcome = self.pipeline.run(spu, slice, &NoProbes, &mut sink);
            if let Some((from, to)) = self.trace
                && (from..=to).contains(&self.pipeline.clock())
            {
                let written = write_frame(&self.pipeline, spu, &mut sink);
                if written.is_ok() {
                    let _ = std::fmt::Write::write_str(&mut sink, "\n");
                }
            }
            if let Some(error) = sink.error.take() {
                return Err(error);
            }
            if let Some((writer, file)) = self.konata.as_mut() {
                let mut log = IoFmt {
                    out: file,
                    error: None,
                };
                let written = writer.write_cycle(&self.pipeline, &mut log);
                if let Some(error) = log.error.take() {
                    return Err(error);
                }
                written.map_err(|_| io::Error::other("Kanata log could not be formatted"))?;
            }
            let outcome = outcome.map_err(|error| io::Error::other(error.to_string()))?;
            cycles += outcome.cycles;
            match outcome.end {
                RunEnd::Stopped(reason) => break End::Stopped(reason),
                RunEnd::CycleLimit => {}
                RunEnd::Blocked { channel } => {
                    // Drained: the blocked instruction retries at stage o on the next cycle.
                    if !drain_outbound_mailbox(spu, channel, out)? {
                        break End::Blocked { channel };
                    }
                }
            }
        };
        if let Some((_, file)) = self.konata.as_mut() {
            file.flush()?;
        }
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
            let skipped = self.pipeline.fast_forwarded_cycles();
            if skipped > 0 {
                writeln!(
                    out,
                    "(fast-forwarded {skipped} of the {} cycles: loop iterations that \
                     repeated an earlier one exactly; --no-fast-forward simulates each)",
                    self.pipeline.stats().cycles
                )?;
            }
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
