//! `--pmu`, `--stack-distance`, `--din`: the probe framework's listeners on the SPU's probe
//! points, as the demo firmware attaches them; `--ctf`: the trace's observer beside them
//! (`ctf_output.rs`); and the analyses' observer (`--check-dma`, `--profile`), composed with
//! them.
//!
//! The emulated PMU is fed by the library's `SpuPmuFeed` (gem5's point-to-event mapping and
//! the stall events, straight into the PMU's event inputs), composed with the probe points
//! that carry the other listeners. The listeners live for the whole process (leaked boxes).
//! The run goes through `SpuUnit` (both modes) in slices of [`SLICE_CYCLES`], after each of
//! which the trace ring is drained into the din file, so a ring of [`TRACE_RING`] records
//! never overflows (at most one LS access per cycle); a drop would still be reported, never
//! hidden.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use pmprobe::pmu::Pmu;
use pmprobe::pmu::{EmulatedPmu, Event};
use pmprobe::probe::MutListener;
use pmprobe::probe::listeners::DinRecord;
use pmprobe::probe::listeners::{DistanceHistograms, MemTrace, OverflowPolicy, StackDistance};
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::probes::{SpuObserver, SpuPmuFeed, SpuProbes};
use pmprobe::spu::unit::{Mode as UnitMode, SpuUnit};

use crate::ctf_output::CtfOutput;
use crate::engine::{End, IoFmt, Summary};
use crate::exit::Failure;
use crate::host::Host;
use crate::options::{Attachments, Mode, Options};

/// Cycles simulated between two drains of the trace ring.
pub const SLICE_CYCLES: u64 = 4096;
/// Records the trace ring holds (more than one slice can produce).
pub const TRACE_RING: usize = 8192;
/// Stack distance: lines tracked, linear bins, line size (one LS quadword).
const DISTANCE_LINES: usize = 4096;
const DISTANCE_BINS: usize = 64;
const DISTANCE_LINE_BYTES: u64 = 16;

type Trace = MutListener<MemTrace<TRACE_RING>>;
type Distances = MutListener<StackDistance<DISTANCE_LINES, DISTANCE_BINS>>;

/// A listener that could not be attached: the simulator's own limits, not the user's input.
fn attach_error(error: impl std::fmt::Display) -> Failure {
    Failure::Model(format!("cannot attach a listener: {error}"))
}

/// The din file being written.
struct DinFile {
    trace: &'static Trace,
    file: io::BufWriter<std::fs::File>,
    path: PathBuf,
    records: u64,
}

impl DinFile {
    fn create(path: &Path, probes: &SpuProbes<'static>) -> Result<Self, Failure> {
        let file = std::fs::File::create(path).map_err(|error| {
            Failure::Io(format!(
                "--din: cannot create `{}`: {error}",
                path.display()
            ))
        })?;
        let trace: &'static Trace =
            leak(MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)));
        probes.data_access.add_object(trace).map_err(attach_error)?;
        Ok(DinFile {
            trace,
            file: io::BufWriter::new(file),
            path: path.to_path_buf(),
            records: 0,
        })
    }

    fn error(&self, error: impl std::fmt::Display) -> Failure {
        Failure::Io(format!(
            "--din: cannot write `{}`: {error}",
            self.path.display()
        ))
    }

    /// Writes the records the ring holds.
    fn drain(&mut self) -> Result<(), Failure> {
        let mut result = Ok(());
        let (file, records) = (&mut self.file, &mut self.records);
        self.trace.with(|t| {
            for access in t.drain() {
                if result.is_ok() {
                    result = writeln!(file, "{}", DinRecord::from(&access));
                    *records += 1;
                }
            }
        });
        result.map_err(|error| self.error(error))
    }

    /// Writes the rest and checks that nothing was dropped; returns the records written.
    fn finish(mut self) -> Result<u64, Failure> {
        self.drain()?;
        self.file.flush().map_err(|error| self.error(error))?;
        let dropped = self.trace.with(|t| t.dropped()).unwrap_or(0);
        if dropped > 0 {
            return Err(Failure::Model(format!(
                "--din: the trace ring dropped {dropped} records; `{}` is incomplete",
                self.path.display()
            )));
        }
        Ok(self.records)
    }
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// Runs the program loaded in `unit` with the requested listeners and prints their results
/// after the run (the din file is written during it).
pub fn run(
    unit: &mut SpuUnit,
    options: &Options,
    host: &mut Host<'_>,
    out: &mut dyn Write,
    analysis: &impl SpuObserver,
) -> Result<Summary, Failure> {
    let attachments: &Attachments = &options.attachments;
    let probes: &'static SpuProbes<'static> = leak(SpuProbes::new());

    let cpu: &'static EmulatedPmu = leak(EmulatedPmu::neoverse_v1_like());
    let mut pmu = Pmu::new(cpu).map_err(attach_error)?;
    let feed = if attachments.pmu_events.is_empty() {
        None
    } else {
        for &event in &attachments.pmu_events {
            pmu.program(event)
                .map_err(|error| Failure::Io(format!("--pmu: {event}: {error}")))?;
        }
        pmu.start().map_err(attach_error)?;
        Some(SpuPmuFeed::new(cpu).map_err(attach_error)?)
    };
    let distances: Option<&'static Distances> = if attachments.stack_distance {
        let calculator = StackDistance::new(DISTANCE_LINE_BYTES).map_err(attach_error)?;
        let listener: &'static Distances = leak(MutListener::new(calculator));
        probes
            .data_access
            .add_object(listener)
            .map_err(attach_error)?;
        Some(listener)
    } else {
        None
    };
    let mut din = match &attachments.din {
        Some(path) => Some(DinFile::create(path, probes)?),
        None => None,
    };

    let mut ctf = match &attachments.ctf {
        Some(dir) => Some(CtfOutput::create(dir, feed.is_some())?),
        None => None,
    };
    let (trace, mut pmu_stream) = match ctf.as_mut() {
        Some(ctf) => {
            let (trace, pmu) = ctf.parts();
            (Some(trace), pmu)
        }
        None => (None, None),
    };
    let between = || {
        if let Some(stream) = pmu_stream.as_mut() {
            let counts = pmu.snapshot().map_err(attach_error)?;
            stream.write(&counts, &attachments.pmu_events);
        }
        match din.as_mut() {
            Some(din) => din.drain(),
            None => Ok(()),
        }
    };
    // The feed and the trace are part of the observer's type: a run without --pmu or --ctf
    // carries none of their code.
    let summary = match (feed, trace) {
        (Some(feed), Some(trace)) => run_slices(
            unit,
            options,
            &((feed, (probes, trace)), analysis),
            host,
            out,
            between,
        )?,
        (Some(feed), None) => run_slices(
            unit,
            options,
            &((feed, probes), analysis),
            host,
            out,
            between,
        )?,
        (None, Some(trace)) => run_slices(
            unit,
            options,
            &((probes, trace), analysis),
            host,
            out,
            between,
        )?,
        (None, None) => run_slices(unit, options, &(probes, analysis), host, out, between)?,
    };
    if let Some(ctf) = ctf {
        let line = ctf.finish(&options.program)?;
        writeln!(out, "{line}").map_err(Failure::stdout)?;
    }

    if let Some(din) = din {
        let path = din.path.clone();
        let records = din.finish()?;
        writeln!(out, "din: wrote {records} records to {}", path.display())
            .map_err(Failure::stdout)?;
    }
    if !attachments.pmu_events.is_empty() {
        pmu.stop().map_err(attach_error)?;
        let counts = pmu.snapshot().map_err(attach_error)?;
        let mut text = String::new();
        let _ = writeln!(text, "emulated PMU (PMUv3p7-like, N = 6, driver API):");
        for &event in &attachments.pmu_events {
            let count = counts.count_of(event).unwrap_or(0);
            let _ = writeln!(text, "{count:>14}  {event}");
        }
        if let (Some(insts), Some(cycles)) = (
            counts.count_of(Event::INST_RETIRED),
            counts.count_of(Event::CPU_CYCLES),
        ) && cycles > 0
        {
            let _ = writeln!(
                text,
                "{:>14.2}  insn per cycle",
                insts as f64 / cycles as f64
            );
        }
        out.write_all(text.as_bytes()).map_err(Failure::stdout)?;
    }
    if let Some(distances) = distances {
        let text = distances
            .with(|calculator| histogram_text(calculator))
            .unwrap_or_default();
        out.write_all(text.as_bytes()).map_err(Failure::stdout)?;
    }
    Ok(summary)
}

/// Sets `unit` up as the options say: the mode and, in pipeline mode, the configuration, the
/// fetch model and the shortcuts (`--no-fast-forward`, `--no-stall-skip`).
pub fn configure(unit: &mut SpuUnit, options: &Options) -> Result<(), Failure> {
    unit.set_mode(match options.mode {
        Mode::Instruction => UnitMode::Instruction,
        Mode::Pipeline => UnitMode::Pipeline,
    });
    if options.mode == Mode::Pipeline {
        unit.set_config(options.pipeline.config);
        unit.set_fetch(options.pipeline.fetch)
            .map_err(|error| Failure::Model(error.to_string()))?;
        unit.set_fast_forward(options.pipeline.fast_forward);
        unit.set_stall_skip(options.pipeline.stall_skip);
    }
    Ok(())
}

/// Runs to the end in slices, calling `between` after each slice.
fn run_slices(
    unit: &mut SpuUnit,
    options: &Options,
    observer: &impl SpuObserver,
    host: &mut Host<'_>,
    out: &mut dyn Write,
    mut between: impl FnMut() -> Result<(), Failure>,
) -> Result<Summary, Failure> {
    configure(unit, options)?;
    let mut cycles = 0u64;
    let mut instructions = 0u64;
    let (end, pc) = loop {
        let remaining = options.max_cycles.saturating_sub(cycles);
        if remaining == 0 {
            let limit = End::CycleLimit {
                limit: options.max_cycles,
            };
            break (limit, unit.arch().pc());
        }
        let mut prof = IoFmt::new(&mut *out);
        let outcome = unit.run(remaining.min(SLICE_CYCLES), observer, &mut prof);
        // An output failure first: the model reports it only as "output failed".
        prof.take_error().map_err(Failure::stdout)?;
        let outcome = outcome.map_err(|error| Failure::Model(error.to_string()))?;
        cycles += outcome.cycles;
        instructions += outcome.instructions;
        between()?;
        match outcome.end {
            // A stop the runtime answers restarts the SPU (the pipeline refills).
            RunEnd::Stopped(reason) => {
                if let Some(end) = host.on_stop(unit.arch_mut(), reason)? {
                    break (end, reason.pc());
                }
            }
            RunEnd::CycleLimit => {}
            RunEnd::Blocked { channel } => {
                if let Some(end) = host.service(unit.arch_for_channels(), channel, out)? {
                    break (end, unit.arch().pc());
                }
            }
        }
    };
    Ok(Summary {
        end,
        pc,
        instructions,
        cycles,
        dma_fault: unit.arch().dma_fault(),
    })
}

fn histogram_text<const W: usize, const LIN: usize>(calculator: &StackDistance<W, LIN>) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "stack distance ({DISTANCE_LINE_BYTES}-byte lines; distance = distinct other lines since the last access):"
    );
    for (name, h) in [
        ("reads", calculator.reads()),
        ("writes", calculator.writes()),
    ] {
        write_histogram(&mut text, name, h);
    }
    if calculator.evictions() > 0 {
        let _ = writeln!(
            text,
            "  ({} lines evicted beyond {W} tracked: some first uses are re-uses at distance >= {W})",
            calculator.evictions()
        );
    }
    text
}

fn write_histogram<const LIN: usize>(text: &mut String, name: &str, h: &DistanceHistograms<LIN>) {
    let _ = writeln!(text, "  {name}: {} accesses", h.total());
    let last = h.log2.iter().rposition(|&n| n > 0).unwrap_or(0);
    let max = h
        .log2
        .iter()
        .chain([&h.infinite])
        .copied()
        .max()
        .unwrap_or(0)
        .max(1);
    let bar = |n: u64| "#".repeat(((n * 40).div_ceil(max)) as usize);
    for (bin, &count) in h.log2.iter().enumerate().take(last + 1) {
        let range = match bin {
            0 => "0".to_string(),
            1 => "1".to_string(),
            k => format!("{}-{}", 1u64 << (k - 1), (1u64 << k) - 1),
        };
        let _ = writeln!(text, "    {range:>11}  {count:>8}  {}", bar(count));
    }
    let _ = writeln!(
        text,
        "    {:>11}  {:>8}  {}",
        "first use",
        h.infinite,
        bar(h.infinite)
    );
}
