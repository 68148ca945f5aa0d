//! `--ctf DIR`: the run as a CTF 1.8 trace for babeltrace2 and Trace Compass. The library's
//! `SpuTrace` observes the SPU (loads and stores, DMA transfers, stalled cycles) into one file
//! per stream; with `--pmu`, the counters are read after every slice of the run into a `pmu`
//! stream; `metadata` describes them all. Files: `metadata`, `spu0-memory`, `spu0-dma`,
//! `spu0-stalls`, `spu0-pc_events` (empty: spusim schedules no PC event), `spu0-pmu`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use pmprobe::ctf::{
    ClockDescription, PacketRefused, PacketSink, SPU_CLOCK_HZ, SpuStreams, SpuTrace, StreamConfig,
    StreamStats, StreamWriter, TraceDescription, uuid_v4, write_metadata,
};
use pmprobe::pmu::{Event, EventReading, GroupId, Snapshot};

use crate::exit::Failure;

/// Bytes of a packet: about 1 170 loads and stores, so the 76-byte packet header costs
/// under 0.1 byte an event.
const PACKET_BYTES: usize = 16 * 1024;
/// The SPU's number in the trace (`cpu_id`, the files' prefix).
const SPU: u32 = 0;

/// A stream file: packets written as they come; the first write error is kept and every
/// packet after it refused (and counted as lost by the stream).
pub struct FileSink {
    file: BufWriter<File>,
    error: Option<io::Error>,
}

impl PacketSink for FileSink {
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

/// The SPU's observer writing the trace's SPU streams.
pub type Trace = SpuTrace<'static, 'static, FileSink>;

/// Writes PMU readings into the `pmu` stream at the SPU trace's clock.
pub struct PmuReadings<'t> {
    stream: &'t mut StreamWriter<'static, FileSink>,
    clock: &'t Trace,
}

impl PmuReadings<'_> {
    /// Writes the counts of `events` now, at the SPU's cycle: each event's reading since the
    /// start (the counters count all the time, so enabled and running are the cycles so far).
    /// A refused event is counted by the stream.
    pub fn write(&mut self, counts: &Snapshot, events: &[Event]) {
        let cycle = self.clock.clock();
        for &event in events {
            let reading = EventReading {
                event,
                group: GroupId::new(0),
                raw: counts.count_of(event).unwrap_or(0),
                enabled: cycle,
                running: cycle,
            };
            let _ = self.stream.pmu_count(cycle, &reading);
        }
    }
}

/// The trace being written.
pub struct CtfOutput {
    dir: PathBuf,
    uuid: [u8; 16],
    trace: Trace,
    pmu: Option<StreamWriter<'static, FileSink>>,
}

fn packet() -> &'static mut [u8] {
    Box::leak(vec![0u8; PACKET_BYTES].into_boxed_slice())
}

/// A UUID that differs from run to run: the clock's nanoseconds and the process id.
fn fresh_uuid() -> [u8; 16] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |time| time.as_nanos());
    let mixed = nanos ^ (u128::from(std::process::id()) << 96);
    uuid_v4(mixed.to_le_bytes())
}

impl CtfOutput {
    /// Creates `dir` (and its parents) and the stream files; a `pmu` stream when `with_pmu`.
    pub fn create(dir: &Path, with_pmu: bool) -> Result<Self, Failure> {
        let io_error = |what: &Path, error: io::Error| {
            Failure::Io(format!(
                "--ctf: cannot create `{}`: {error}",
                what.display()
            ))
        };
        std::fs::create_dir_all(dir).map_err(|error| io_error(dir, error))?;
        let uuid = fresh_uuid();
        let stream = |name: &str| -> Result<StreamWriter<'static, FileSink>, Failure> {
            let path = dir.join(format!("spu{SPU}-{name}"));
            let file = File::create(&path).map_err(|error| io_error(&path, error))?;
            let sink = FileSink {
                file: BufWriter::new(file),
                error: None,
            };
            StreamWriter::new(packet(), sink, StreamConfig { uuid, cpu_id: SPU })
                .map_err(|error| Failure::Model(format!("--ctf: {error}")))
        };
        let streams = SpuStreams {
            memory: stream("memory")?,
            dma: stream("dma")?,
            stalls: stream("stalls")?,
            pc_events: stream("pc_events")?,
        };
        let pmu = if with_pmu { Some(stream("pmu")?) } else { None };
        Ok(Self {
            dir: dir.to_path_buf(),
            uuid,
            trace: SpuTrace::new(streams),
            pmu,
        })
    }

    /// The SPU's observer, and the `pmu` stream's writer when there is one.
    pub fn parts(&mut self) -> (&Trace, Option<PmuReadings<'_>>) {
        let Self { trace, pmu, .. } = self;
        let readings = pmu.as_mut().map(|stream| PmuReadings {
            stream,
            clock: trace,
        });
        (trace, readings)
    }

    /// Closes the streams and writes the metadata; the line to print, or why the trace is
    /// incomplete.
    pub fn finish(self, program: &Path) -> Result<String, Failure> {
        let spu = self.trace.finish();
        let mut streams: Vec<(&str, (FileSink, StreamStats))> = vec![
            ("memory", spu.memory),
            ("dma", spu.dma),
            ("stalls", spu.stalls),
            ("pc_events", spu.pc_events),
        ];
        if let Some(pmu) = self.pmu {
            streams.push(("pmu", pmu.finish()));
        }
        for (name, (sink, _)) in &mut streams {
            let path = self.dir.join(format!("spu{SPU}-{name}"));
            let flushed = match sink.error.take() {
                Some(error) => Err(error),
                None => sink.file.flush(),
            };
            flushed.map_err(|error| {
                Failure::Io(format!("--ctf: cannot write `{}`: {error}", path.display()))
            })?;
        }
        write_metadata_file(&self.dir, self.uuid, program)?;
        let lost: u64 = streams.iter().map(|(_, (_, stats))| stats.discarded).sum();
        if lost > 0 {
            let late: u64 = streams
                .iter()
                .map(|(_, (_, stats))| stats.out_of_order)
                .sum();
            return Err(Failure::Model(format!(
                "--ctf: {lost} events were lost ({late} of them earlier than their stream's \
                 last); `{}` is incomplete",
                self.dir.display()
            )));
        }
        let counts: Vec<String> = streams
            .iter()
            .map(|(name, (_, stats))| format!("{} {name}", stats.events))
            .collect();
        Ok(format!(
            "ctf: wrote {} events to {}",
            counts.join(", "),
            self.dir.display()
        ))
    }
}

/// The trace's `metadata` file in `dir`.
fn write_metadata_file(dir: &Path, uuid: [u8; 16], program: &Path) -> Result<(), Failure> {
    let name = program
        .file_name()
        .map(|name| name.to_string_lossy().replace(char::is_control, "?"))
        .unwrap_or_default();
    let trace = TraceDescription {
        uuid,
        clock: ClockDescription {
            name: "spu_cycles",
            description: "SPU cycles (3.2 GHz Cell BE)",
            frequency: SPU_CLOCK_HZ,
        },
        pc_events: &[],
        env: &[("tool", "spusim"), ("program", &name)],
    };
    let mut text = String::new();
    write_metadata(&mut text, &trace).map_err(|error| Failure::Model(format!("--ctf: {error}")))?;
    let path = dir.join("metadata");
    std::fs::write(&path, text)
        .map_err(|error| Failure::Io(format!("--ctf: cannot write `{}`: {error}", path.display())))
}
