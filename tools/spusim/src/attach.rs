//! `--pmu`, `--stack-distance`, `--din`: the probe framework's listeners on the SPU's probe
//! points, as the demo firmware attaches them.
//!
//! Everything here lives for the whole process (leaked boxes), so the points register in a
//! probe `Manager` and the PMU event counter attaches its feeds by name with
//! `sync_attachments`, the framework's own path. The run goes through `SpuUnit` (both modes)
//! in slices of [`SLICE_CYCLES`], after each of which the trace ring is drained into the din
//! file, so a ring of [`TRACE_RING`] records never overflows (at most one LS access per
//! cycle); a drop would still be reported, never hidden.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use pmprobe::pmu::Pmu;
use pmprobe::pmu::{EmulatedPmu, Event};
use pmprobe::probe::listeners::{
    DistanceHistograms, MemTrace, OverflowPolicy, PmuEventCounter, StackDistance,
};
use pmprobe::probe::{Listener, Manager, MutListener};
use pmprobe::spu::exec::SPU_WR_OUT_INTR_MBOX;
use pmprobe::spu::exec::SPU_WR_OUT_MBOX;
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::probes::{SpuProbes, StallReason};
use pmprobe::spu::unit::{Mode as UnitMode, SpuUnit};

use crate::engine::{End, Summary};
use crate::options::{Mode, Options};

/// Cycles simulated between two drains of the trace ring.
pub const SLICE_CYCLES: u64 = 4096;
/// Records the trace ring holds (more than one slice can produce).
pub const TRACE_RING: usize = 8192;
/// Stack distance: lines tracked, linear bins, line size (one LS quadword).
const DISTANCE_LINES: usize = 4096;
const DISTANCE_BINS: usize = 64;
const DISTANCE_LINE_BYTES: u64 = 16;
/// Event counters of the emulated PMU (its preset: PMUv3p7-like, N = 6).
const EVENT_COUNTERS: usize = 6;

type Trace = MutListener<MemTrace<TRACE_RING>>;
type Distances = MutListener<StackDistance<DISTANCE_LINES, DISTANCE_BINS>>;

/// What to attach (parsed from the command line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attachments {
    /// `--pmu EVENT,...`: the events the emulated PMU counts.
    pub pmu_events: Vec<Event>,
    /// `--stack-distance`.
    pub stack_distance: bool,
    /// `--din FILE`.
    pub din: Option<PathBuf>,
}

impl Attachments {
    /// Whether any listener was asked for.
    pub fn any(&self) -> bool {
        !self.pmu_events.is_empty() || self.stack_distance || self.din.is_some()
    }
}

/// Parses `--pmu`'s list: event names or numbers, comma separated; CPU_CYCLES goes on the
/// cycle counter, the others need one of the 6 event counters each.
pub fn parse_pmu_events(list: &str) -> Result<Vec<Event>, String> {
    let mut events = Vec::new();
    for word in list.split(',').filter(|w| !w.trim().is_empty()) {
        let event: Event = word
            .parse()
            .map_err(|error| format!("--pmu: `{}`: {error}", word.trim()))?;
        if events.contains(&event) {
            return Err(format!("--pmu: {event} is listed twice"));
        }
        events.push(event);
    }
    if events.is_empty() {
        return Err("--pmu needs at least one event".into());
    }
    let needing_event_counter = events.iter().filter(|e| **e != Event::CPU_CYCLES).count();
    if needing_event_counter > EVENT_COUNTERS {
        return Err(format!(
            "--pmu: {needing_event_counter} events need an event counter, the emulated PMU has {EVENT_COUNTERS} (plus the cycle counter for CPU_CYCLES)"
        ));
    }
    Ok(events)
}

/// Feeds `IssueStall` into the emulated PMU's stall events.
struct StallFeed(&'static EmulatedPmu);

impl Listener<StallReason> for StallFeed {
    fn notify(&self, reason: &StallReason) {
        self.0.count(reason.pmu_event().number(), 1);
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
    attachments: &Attachments,
    out: &mut dyn Write,
) -> Result<Summary, String> {
    let probes: &'static SpuProbes<'static> = leak(SpuProbes::new());
    let mut manager: Manager<'static, 16> = Manager::new();
    probes.register(&mut manager).map_err(|e| e.to_string())?;

    let cpu: &'static EmulatedPmu = leak(EmulatedPmu::neoverse_v1_like());
    let mut pmu = Pmu::new(cpu).map_err(|e| e.to_string())?;
    if !attachments.pmu_events.is_empty() {
        for &event in &attachments.pmu_events {
            pmu.program(event)
                .map_err(|e| format!("--pmu: {event}: {e}"))?;
        }
        pmu.start().map_err(|e| e.to_string())?;
        let sink = leak(RefCell::new(cpu));
        let counter: &'static PmuEventCounter<'static, &'static EmulatedPmu, 8> =
            leak(PmuEventCounter::with_gem5_defaults(sink).map_err(|e| e.to_string())?);
        sync_registered(counter, &manager)?;
        if attachments
            .pmu_events
            .iter()
            .any(|e| matches!(*e, Event::STALL_FRONTEND | Event::STALL_BACKEND))
        {
            probes
                .issue_stall
                .add_object(leak(StallFeed(cpu)))
                .map_err(|e| e.to_string())?;
        }
    }
    let distances: Option<&'static Distances> = if attachments.stack_distance {
        let calculator = StackDistance::new(DISTANCE_LINE_BYTES).map_err(|e| e.to_string())?;
        let listener: &'static Distances = leak(MutListener::new(calculator));
        probes
            .data_access
            .add_object(listener)
            .map_err(|e| e.to_string())?;
        Some(listener)
    } else {
        None
    };
    let mut din = match &attachments.din {
        Some(path) => {
            let file = std::fs::File::create(path)
                .map_err(|e| format!("--din: cannot create `{}`: {e}", path.display()))?;
            let trace: &'static Trace =
                leak(MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)));
            probes
                .data_access
                .add_object(trace)
                .map_err(|e| e.to_string())?;
            Some((trace, io::BufWriter::new(file), path.clone(), 0u64))
        }
        None => None,
    };

    let summary = run_slices(unit, options, probes, out, |_| {
        if let Some((trace, file, path, records)) = din.as_mut() {
            drain(trace, file, records).map_err(|e| format!("--din: `{}`: {e}", path.display()))?;
        }
        Ok(())
    })?;

    if let Some((trace, mut file, path, mut records)) = din {
        drain(trace, &mut file, &mut records)
            .and_then(|()| file.flush())
            .map_err(|e| format!("--din: `{}`: {e}", path.display()))?;
        let dropped = trace.with(|t| t.dropped()).unwrap_or(0);
        if dropped > 0 {
            return Err(format!(
                "--din: the trace ring dropped {dropped} records; `{}` is incomplete",
                path.display()
            ));
        }
        writeln!(out, "din: wrote {records} records to {}", path.display())
            .map_err(|e| e.to_string())?;
    }
    if !attachments.pmu_events.is_empty() {
        pmu.stop().map_err(|e| e.to_string())?;
        let counts = pmu.snapshot().map_err(|e| e.to_string())?;
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
        out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    if let Some(distances) = distances {
        let text = distances
            .with(|calculator| histogram_text(calculator))
            .unwrap_or_default();
        out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    Ok(summary)
}

/// `sync_attachments` over the feeds whose points the SPU registers.
fn sync_registered(
    counter: &'static PmuEventCounter<'static, &'static EmulatedPmu, 8>,
    manager: &Manager<'static, 16>,
) -> Result<(), String> {
    match counter.sync_attachments(manager) {
        Ok(_) => Ok(()),
        // `ActiveCycles` (gem5's name) is not an SPU point; every other failure is real.
        Err(pmprobe::probe::listeners::PmuCounterError::Sync { report, error })
            if report.failed == 1
                && matches!(
                    error,
                    pmprobe::probe::ManagerError::UnknownPoint("ActiveCycles")
                ) =>
        {
            Ok(())
        }
        Err(error) => Err(error.to_string()),
    }
}

fn drain(trace: &Trace, file: &mut impl Write, records: &mut u64) -> io::Result<()> {
    let mut result = Ok(());
    trace.with(|t| {
        for access in t.drain() {
            if result.is_ok() {
                result = writeln!(file, "{} {:x}", access.kind.dinero_label(), access.address);
                *records += 1;
            }
        }
    });
    result
}

/// Runs to the end in slices, calling `between` after each slice.
fn run_slices(
    unit: &mut SpuUnit,
    options: &Options,
    probes: &SpuProbes<'static>,
    out: &mut dyn Write,
    mut between: impl FnMut(u64) -> Result<(), String>,
) -> Result<Summary, String> {
    unit.set_mode(match options.mode {
        Mode::Instruction => UnitMode::Instruction,
        Mode::Pipeline => UnitMode::Pipeline,
    });
    if options.mode == Mode::Pipeline {
        unit.set_config(options.pipeline.config);
        unit.set_fetch(options.pipeline.fetch)
            .map_err(|e| e.to_string())?;
    }
    let mut prof = IoFmt { out, error: None };
    let mut cycles = 0u64;
    let mut instructions = 0u64;
    let end = loop {
        let remaining = options.max_cycles.saturating_sub(cycles);
        if remaining == 0 {
            break End::CycleLimit {
                limit: options.max_cycles,
            };
        }
        let outcome = unit
            .run(remaining.min(SLICE_CYCLES), probes, &mut prof)
            .map_err(|e| e.to_string())?;
        prof.take_error().map_err(|e| e.to_string())?;
        cycles += outcome.cycles;
        instructions += outcome.instructions;
        between(cycles)?;
        match outcome.end {
            RunEnd::Stopped(reason) => break End::Stopped(reason),
            RunEnd::CycleLimit => {}
            RunEnd::Blocked { channel } => {
                let id = unit.id();
                let channels = unit.arch_mut().channels_mut();
                let drained = match channel {
                    SPU_WR_OUT_MBOX => channels.outbound.pop(),
                    SPU_WR_OUT_INTR_MBOX => channels.outbound_interrupt.pop(),
                    _ => None,
                };
                match drained {
                    Some(value) => {
                        let _ = writeln!(prof, "SPU{id}: mailbox {value:#010x}");
                        prof.take_error().map_err(|e| e.to_string())?;
                    }
                    None => break End::Blocked { channel },
                }
            }
        }
    };
    let pc = match end {
        End::Stopped(reason) => reason.pc(),
        _ => unit.arch().pc(),
    };
    Ok(Summary {
        end,
        pc,
        instructions,
        cycles,
    })
}

/// `fmt::Write` over an `io::Write`, keeping the first I/O error.
struct IoFmt<'a> {
    out: &'a mut dyn Write,
    error: Option<io::Error>,
}

impl IoFmt<'_> {
    fn take_error(&mut self) -> io::Result<()> {
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
