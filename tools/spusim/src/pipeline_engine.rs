//! The `--mode pipeline` engine: the cycle-level model with the selected fetch model and
//! configuration; `--stats` prints the `spu N stats print` block at the end (and how many
//! cycles the model fast-forwarded or skipped), `--trace` prints frames, `--konata` writes a
//! Kanata log.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use pmprobe::spu::exec::SpuState;
use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::pipeline::KonataWriter;
use pmprobe::spu::pipeline::write_frame;
use pmprobe::spu::pipeline::{Pipeline, RunEnd};
use pmprobe::spu::probes::NoProbes;

use crate::engine::{End, Engine, IoFmt, Summary};
use crate::exit::Failure;
use crate::host::Host;

/// The Kanata log being written.
struct KonataLog {
    writer: KonataWriter,
    file: BufWriter<File>,
    path: PathBuf,
}

impl KonataLog {
    fn error(&self, error: impl std::fmt::Display) -> Failure {
        Failure::Io(format!(
            "--konata: cannot write `{}`: {error}",
            self.path.display()
        ))
    }
}

/// The model's shortcuts to use (both give the results of simulating every cycle).
#[derive(Clone, Copy, Debug)]
pub struct Shortcuts {
    /// Skip exact repetitions of loop iterations (ideal fetch).
    pub fast_forward: bool,
    /// Skip issue and fetch in stalled cycles.
    pub stall_skip: bool,
}

/// Runs the pipeline model.
pub struct PipelineEngine {
    pipeline: Box<Pipeline>,
    print_stats: bool,
    /// Cycles to print trace frames for.
    trace: Option<(u64, u64)>,
    konata: Option<KonataLog>,
}

impl PipelineEngine {
    /// A pipeline engine; `trace`: the cycles to print frames for; `konata`: the Kanata log to
    /// create; `shortcuts`: what the model may skip.
    pub fn new(
        config: Config,
        fetch: FetchKind,
        print_stats: bool,
        trace: Option<(u64, u64)>,
        konata: Option<&Path>,
        shortcuts: Shortcuts,
    ) -> Result<Self, Failure> {
        let mut pipeline = Box::new(Pipeline::new());
        pipeline.set_config(config);
        pipeline.set_fast_forward(shortcuts.fast_forward);
        pipeline.set_stall_skip(shortcuts.stall_skip);
        pipeline
            .set_fetch(fetch)
            .map_err(|error| Failure::Model(error.to_string()))?;
        let konata = match konata {
            Some(path) => {
                let file = File::create(path).map_err(|error| {
                    Failure::Io(format!(
                        "--konata: cannot create `{}`: {error}",
                        path.display()
                    ))
                })?;
                Some(KonataLog {
                    writer: KonataWriter::new(),
                    file: BufWriter::new(file),
                    path: path.to_path_buf(),
                })
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

impl Engine for PipelineEngine {
    fn run(
        &mut self,
        spu: &mut SpuState,
        max_cycles: u64,
        host: &mut Host<'_>,
        out: &mut dyn Write,
    ) -> Result<Summary, Failure> {
        let mut cycles = 0u64;
        let (end, pc) = loop {
            let remaining = max_cycles.saturating_sub(cycles);
            if remaining == 0 {
                break (End::CycleLimit { limit: max_cycles }, spu.pc());
            }
            let mut sink = IoFmt::new(&mut *out);
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
            // An output failure first: the model reports it only as "output failed".
            sink.take_error().map_err(Failure::stdout)?;
            if let Some(log) = self.konata.as_mut() {
                let mut file = IoFmt::new(&mut log.file);
                let written = log.writer.write_cycle(&self.pipeline, &mut file);
                if let Err(error) = file.take_error() {
                    return Err(log.error(error));
                }
                if written.is_err() {
                    return Err(log.error("the log could not be formatted"));
                }
            }
            let outcome = outcome.map_err(|error| Failure::Model(error.to_string()))?;
            cycles += outcome.cycles;
            match outcome.end {
                RunEnd::Stopped(reason) => match host.on_stop(spu, reason)? {
                    // The runtime restarted the SPU, as a PPE does: the pipeline refills.
                    None => self.pipeline.flush(),
                    Some(end) => break (end, reason.pc()),
                },
                RunEnd::CycleLimit => {}
                RunEnd::Blocked { channel } => {
                    // Serviced: the channel instruction is fetched again and retried.
                    if let Some(end) = host.service(spu, channel, out)? {
                        break (end, spu.pc());
                    }
                }
            }
        };
        if let Some(log) = self.konata.as_mut()
            && let Err(error) = log.file.flush()
        {
            return Err(log.error(error));
        }
        if self.print_stats {
            self.write_stats(spu, out).map_err(Failure::stdout)?;
        }
        Ok(Summary {
            end,
            pc,
            instructions: spu.instructions_retired(),
            cycles,
            dma_fault: spu.dma_fault(),
        })
    }
}

impl PipelineEngine {
    fn write_stats(&self, spu: &SpuState, out: &mut dyn Write) -> std::io::Result<()> {
        let mut sink = IoFmt::new(&mut *out);
        let printed = self.pipeline.print_stats(spu, &mut sink);
        sink.take_error()?;
        printed.map_err(|_| std::io::Error::other("statistics could not be formatted"))?;
        let skipped = self.pipeline.fast_forwarded_cycles();
        if skipped > 0 {
            writeln!(
                out,
                "(fast-forwarded {skipped} of the {} cycles: loop iterations that \
                 repeated an earlier one exactly; --no-fast-forward simulates each)",
                self.pipeline.stats().cycles
            )?;
        }
        let stalled = self.pipeline.skipped_stall_cycles();
        if stalled > 0 {
            writeln!(
                out,
                "(skipped issue and fetch in {stalled} stalled cycles, whose outcome was known \
                 in advance; --no-stall-skip simulates each)"
            )?;
        }
        Ok(())
    }
}
