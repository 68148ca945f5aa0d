//! `--ctf DIR`: after the MFC part, a CTF 1.8 trace of one SPU run, written through semihosting
//! into DIR (relative to QEMU's working directory; `qemu/run` creates it) for babeltrace2 and
//! Trace Compass: the streaming kernel on 8 blocks with two buffers, in pipeline mode, its
//! loads and stores, DMA transfers, stalled cycles and two PC events (`pmprobe::ctf`'s
//! `SpuTrace` on the SPU's probe points), and its multiplexed PMU read every 8192 cycles as
//! counter events. The section then prints the run's own figures (the SPU's statistics, the
//! MFC's, the PMU's last reading) for a reader of the trace to compare.

use core::fmt::Write as _;

use pmprobe::ctf::events::STALL_REASONS;
use pmprobe::ctf::{
    ClockDescription, PacketRefused, PacketSink, SPU_CLOCK_HZ, SpuStreams, SpuTrace,
    SpuTraceListeners, StreamConfig, StreamStats, StreamWriter, TraceDescription, TracePcEvent,
    uuid_v4, write_metadata,
};
use pmprobe::pmu::{EmulatedPmu, IntervalTimer, Pmu};
use pmprobe::rt::semihosting::{HostError, HostFile};
use pmprobe::rt::timer;
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::isa::IClass;
use pmprobe::spu::pipeline::{RunEnd, Statistics};
use pmprobe::spu::probes::{SpuPmuFeed, SpuProbes, StallReason};
use pmprobe::spu::unit::SpuUnit;

use crate::demo::mfc::kernels::{
    BLOCK_BYTES, STREAM_INPUT, STREAM_OUTPUT, clear, write_stream_input,
};
use crate::demo::mfc::section::{STREAM, load};
use crate::demo::shared::checks::Checks;
use crate::demo::shared::files::BufferedHostFile;
use crate::demo::shared::kernels::{IMAGE_BYTES, SYMBOLS};
use crate::demo::shared::output::{Indented, heading, outln};
use crate::demo::spu_runs::spu_pmu::{ROTATION_CYCLES, SpuMux, add_groups};

/// The arena's SPU the trace is of (the stream's own, free once the MFC part is done).
pub const SPU: usize = crate::demo::mfc::stream::SPU;
/// Blocks of 16 KiB the kernel streams, with two buffers.
const BLOCKS: u32 = 8;
/// SPU cycles between two PMU readings.
const READING_CYCLES: u64 = 8192;
/// Cycles the run may take (8 blocks take about 60 000).
const CYCLE_BUDGET: u64 = 2_000_000;
/// Bytes of a packet (each stream has one buffer of it, on the stack).
const PACKET_BYTES: usize = 4096;
/// The PC events' names in the trace, by number: at the labels `block` and `compute`.
const PC_EVENT_NAMES: [&str; 2] = ["block start", "compute loop"];
/// The streams' file names after `spuN-`, the `pmu` one last.
const STREAMS: [&str; 5] = ["memory", "dma", "stalls", "pc_events", "pmu"];
/// The metadata's file name (CTF's).
const METADATA: &str = "metadata";

/// A trace file's path: the directory (`--ctf` takes up to 96 bytes) and `/spuN-pc_events`.
type Path = heapless::String<128>;

/// A stream file on the host: packets written as they come, the first error kept and every
/// packet after it refused (the stream counts its events as lost).
struct HostSink {
    file: HostFile,
    error: Option<HostError>,
}

impl PacketSink for HostSink {
    fn take(&mut self, packet: &[u8]) -> Result<(), PacketRefused> {
        if self.error.is_some() {
            return Err(PacketRefused);
        }
        self.file.write_all(packet).map_err(|error| {
            self.error = Some(error);
            PacketRefused
        })
    }
}

/// `dir/spuN-name`, or `dir/name` for the metadata.
fn path(dir: &str, name: &str) -> Result<Path, Failed> {
    let mut path = Path::new();
    let written = if name == METADATA {
        write!(path, "{dir}/{name}")
    } else {
        write!(path, "{dir}/spu{SPU}-{name}")
    };
    written.map_err(|_| Failed::Setup("the directory's name is too long"))?;
    Ok(path)
}

/// Why the traced run could not be made.
enum Failed {
    Setup(&'static str),
    /// The file (`metadata` or a stream's name) and why.
    File(&'static str, HostError),
}

/// Writes the trace into `dir`, prints what the run did and checks that the trace is whole.
/// `unit` is SPU [`SPU`] of the arena, attached to the MFC part's main memory. Never inlined,
/// so that its code stays in one place whatever its caller does.
#[inline(never)]
pub fn run(dir: &str, unit: &mut SpuUnit, checks: &mut Checks) {
    heading(format_args!(
        "CTF trace (--ctf {dir}): demo_stream.s on SPU{SPU}, {BLOCKS} blocks of {} KiB with two buffers, pipeline mode",
        BLOCK_BYTES / 1024
    ));
    if let Err(failed) = traced(dir, unit, checks) {
        let why = match &failed {
            Failed::Setup(why) => *why,
            Failed::File(name, error) => {
                outln!("  {dir}: {name}: {error}");
                "a trace file could not be written"
            }
        };
        checks.check(format_args!("ctf_written"), false, format_args!("{why}"));
    }
}

fn traced(dir: &str, unit: &mut SpuUnit, checks: &mut Checks) -> Result<(), Failed> {
    let memory = unit.main_memory();
    write_stream_input(memory).map_err(|_| Failed::Setup("no main memory for the input"))?;
    clear(memory, STREAM_OUTPUT, u64::from(BLOCKS) * BLOCK_BYTES)
        .map_err(|_| Failed::Setup("no main memory for the output"))?;
    let mailbox = [2, STREAM_INPUT as u32, STREAM_OUTPUT as u32, BLOCKS];
    load(unit, STREAM, &mailbox).map_err(Failed::Setup)?;
    let mut image = [0u8; IMAGE_BYTES];
    let program = pmprobe::spu::isa::asm::assemble::<SYMBOLS>(STREAM, &mut image)
        .map_err(|_| Failed::Setup("the kernel does not assemble"))?;

    let uuid = uuid_v4(
        u128::from(timer::now())
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .to_le_bytes(),
    );
    let config = StreamConfig {
        uuid,
        cpu_id: SPU as u32,
    };
    // Before the trace, which holds them while it lives.
    let pc_of = |label| u64::from(program.symbol(label).unwrap_or(0));
    let block = TracePcEvent::new(pc_of("block"), 0, PC_EVENT_NAMES[0]);
    let compute = TracePcEvent::new(pc_of("compute"), 1, PC_EVENT_NAMES[1]);
    let mut packets = [[0u8; PACKET_BYTES]; 5];
    let [p0, p1, p2, p3, p4] = &mut packets;
    let open = |name: &'static str, packet| -> Result<StreamWriter<'_, HostSink>, Failed> {
        let file =
            HostFile::create(&path(dir, name)?).map_err(|error| Failed::File(name, error))?;
        let sink = HostSink { file, error: None };
        StreamWriter::new(packet, sink, config).map_err(|_| Failed::Setup("packet too small"))
    };
    let trace = SpuTrace::new(SpuStreams {
        memory: open(STREAMS[0], p0)?,
        dma: open(STREAMS[1], p1)?,
        stalls: open(STREAMS[2], p2)?,
        pc_events: open(STREAMS[3], p3)?,
    });
    let mut pmu_stream = open(STREAMS[4], p4)?;
    // The SPU ran the MFC part before: the trace's clock is the pipeline's, which the DMA
    // transfers' and the accesses' cycles are on, from where this run starts.
    let start = unit.pipeline().clock();
    trace.set_clock(start);
    for event in [&block, &compute] {
        trace
            .schedule_pc_event(event)
            .map_err(|_| Failed::Setup("PC event queue full"))?;
    }

    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).map_err(|_| Failed::Setup("no emulated PMU"))?;
    let mut mux = SpuMux::new(&mut pmu);
    add_groups(&mut mux).map_err(|_| Failed::Setup("the PMU groups do not fit"))?;
    let probes = SpuProbes::new();
    let listeners = SpuTraceListeners::new(&trace);
    let pcs = listeners.retired_pcs();
    listeners
        .attach(&pcs, &probes)
        .map_err(|_| Failed::Setup("a probe point is full"))?;
    let feed = SpuPmuFeed::new(&cpu).map_err(|_| Failed::Setup("the PMU's inputs are full"))?;
    // The counted runs' observer and output types (`spu_runs::run_loops::run_counted`): the
    // pipeline's code for them is in the image already; another pair would add a copy of it
    // (about 20 KB). The kernel prints nothing through prof_cp.
    let observer = (feed, &probes);
    let mut prof = Indented::new("  | ");

    let mut timer =
        IntervalTimer::new(0, READING_CYCLES).map_err(|_| Failed::Setup("zero interval"))?;
    let (mut cycles, mut readings, mut last) = (0, 0, None);
    mux.start(0)
        .map_err(|_| Failed::Setup("the PMU does not start"))?;
    let end = loop {
        let Ok(slice) = unit.run(ROTATION_CYCLES, &observer, &mut prof) else {
            break Err("model error");
        };
        cycles += slice.cycles;
        let stopped = matches!(slice.end, RunEnd::Stopped(_));
        if timer.poll(cycles) || stopped {
            let Ok(reading) = mux.read(cycles) else {
                break Err("the PMU could not be read");
            };
            for event in reading.iter() {
                // A refused event is counted by the stream.
                let _ = pmu_stream.pmu_count(trace.clock(), event);
            }
            readings += 1;
            last = Some(reading);
        }
        match slice.end {
            RunEnd::Stopped(reason) => break Ok(reason),
            RunEnd::Blocked { .. } => break Err("blocked on a channel"),
            RunEnd::CycleLimit if cycles >= CYCLE_BUDGET => break Err("cycle budget exceeded"),
            RunEnd::CycleLimit => {}
        }
        if mux.rotate(cycles).is_err() {
            break Err("the PMU could not rotate");
        }
    };
    probes.clear();
    let clock = trace.clock();
    let spu = trace.finish();
    let pmu_written = pmu_stream.finish();
    let stats = *unit.stats();
    let dma = *unit.arch().dma_stats();

    let written = [spu.memory, spu.dma, spu.stalls, spu.pc_events, pmu_written];
    let mut streams = [StreamStats::default(); 5];
    for (((sink, stats), slot), name) in written.into_iter().zip(&mut streams).zip(STREAMS) {
        let closed = match sink.error {
            Some(error) => Err(error),
            None => sink.file.close(),
        };
        closed.map_err(|error| Failed::File(name, error))?;
        *slot = stats;
    }
    write_metadata_file(dir, uuid)?;

    outln!(
        "  written through semihosting: {dir}/metadata and {dir}/spu{SPU}-{{memory,dma,stalls,pc_events,pmu}}"
    );
    let lost: u64 = streams.iter().map(|s| s.discarded).sum();
    let mut line = heapless::String::<160>::new();
    for (name, stats) in STREAMS.iter().zip(&streams) {
        let _ = write!(line, " {name} {}", stats.events);
    }
    let bytes: u64 = streams.iter().map(|s| s.bytes).sum();
    outln!("  events:{line}; {bytes} bytes; lost {lost}");
    report_run(end, cycles, &stats, &dma);
    outln!("  trace clock: SPU cycles {start} to {clock} (the SPU ran the MFC part before)");
    if let Some(last) = &last {
        outln!(
            "  PMU readings: {readings}, every {READING_CYCLES} SPU cycles and at the stop; the last, at cycle {clock}:"
        );
        for event in last.iter() {
            outln!(
                "    {} raw {} enabled {} running {}",
                event.event,
                event.raw,
                event.enabled,
                event.running
            );
        }
    }
    outln!(
        "  PC events: block start at {:#x}, compute loop at {:#x}",
        pc_of("block"),
        pc_of("compute")
    );
    checks.check(
        format_args!("ctf_written"),
        lost == 0 && matches!(end, Ok(StopReason::Stop { signal: 0x2000, .. })),
        format_args!("every event in the trace ({lost} lost), the kernel stopped"),
    );
    let advanced = clock.saturating_sub(start);
    checks.check(
        format_args!("ctf_clock"),
        advanced == cycles && cycles == stats.cycles,
        format_args!(
            "the trace's clock advanced {advanced} = the run's cycles {cycles} = the statistics' {}",
            stats.cycles
        ),
    );
    Ok(())
}

/// The run's own figures: how it ended, the SPU's statistics, the MFC's.
fn report_run(
    end: Result<StopReason, &str>,
    cycles: u64,
    stats: &Statistics,
    dma: &pmprobe::spu::mfc::DmaStats,
) {
    match end {
        Ok(reason) => outln!("  run: {reason} after {cycles} cycles"),
        Err(why) => outln!("  run: {why} after {cycles} cycles"),
    }
    outln!(
        "  SPU statistics: cycles {} instructions {}",
        stats.cycles,
        stats.instructions
    );
    outln!(
        "  MFC statistics: transfers {} bytes in {} bytes out {}",
        dma.transfers,
        dma.bytes_in,
        dma.bytes_out
    );
    let mut line = heapless::String::<640>::new();
    for (reason, label) in STALL_REASONS {
        let _ = write!(line, " {label} {}", stalled(stats, reason));
    }
    for class in IClass::ALL {
        let _ = write!(
            line,
            " dependency_{} {}",
            class.name(),
            stats.dependency_stalls_of(class)
        );
    }
    outln!("  stalled cycles (statistics):{line}");
}

/// The statistics' stalled cycles for `reason` (a dependency: all classes).
fn stalled(stats: &Statistics, reason: StallReason) -> u64 {
    match reason {
        StallReason::Initialisation => stats.initialisation_cycles,
        StallReason::BranchMiss => stats.branch_miss_stalls,
        StallReason::PrefetchMiss => stats.prefetch_miss_stalls,
        StallReason::Dependency(_) => stats.dependency_stalls,
        StallReason::FpResource => stats.fp_resource_stalls,
        StallReason::HintTarget => stats.hint_target_stalls,
        StallReason::DpPipeline => stats.dp_pipeline_stalls,
        StallReason::Channel => stats.channel_stalls,
        StallReason::ChannelWait => stats.channel_wait_stalls,
        StallReason::DmaLocalStore => stats.dma_local_store_stalls,
    }
}

fn write_metadata_file(dir: &str, uuid: [u8; 16]) -> Result<(), Failed> {
    let path = path(dir, METADATA)?;
    let trace = TraceDescription {
        uuid,
        clock: ClockDescription {
            name: "spu_cycles",
            description: "SPU cycles (3.2 GHz Cell BE)",
            frequency: SPU_CLOCK_HZ,
        },
        pc_events: &PC_EVENT_NAMES,
        env: &[
            ("tool", "pmprobe demo firmware"),
            ("program", "demo_stream.s"),
        ],
    };
    let mut file =
        BufferedHostFile::create(&path).map_err(|error| Failed::File(METADATA, error))?;
    let described = write_metadata(&mut file, &trace);
    // A failed write is kept by the file and returned by `finish`.
    file.finish()
        .map_err(|error| Failed::File(METADATA, error))?;
    described.map_err(|_| Failed::Setup("the metadata's names are not TSDL's"))
}
