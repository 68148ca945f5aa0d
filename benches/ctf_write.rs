//! Host benchmark: what a CTF event costs (`pmprobe::ctf`), in bytes and in nanoseconds. Not a
//! test; it prints figures.
//!
//! - The stream writer alone, per event class, into a sink that keeps nothing (the writer's
//!   own cost) and into one that copies every packet into memory (as a memory-backed file).
//!   Bytes per event are the packets' bytes over the events, headers included.
//! - `SpuTrace` on an SPU run: a loop of loads and stores in instruction mode (accesses in
//!   batches) and pipeline mode (one by one, with its stall runs), the run's time with the
//!   trace composed with the probe points against the same run with an observer that hears
//!   the same notifications and does nothing (the model's own cost of notifying, which a run
//!   with nothing attached skips), over the events the trace wrote.
//!
//! Each figure is the least of 15 timings (the thread's CPU time). Run:
//! `cargo bench --target x86_64-unknown-linux-gnu --bench ctf_write` (words after `--` select
//! rows: `writer`, `spu`, `instruction`, `pipeline`).

use std::hint::black_box;

use pmprobe::ctf::{PacketRefused, PacketSink, SpuStreams, SpuTrace, StreamConfig, StreamWriter};
use pmprobe::pmu::{Event, EventReading, GroupId};
use pmprobe::probe::listeners::{AccessKind, MemAccess};
use pmprobe::spu::exec::{CompletedBatch, Executed};
use pmprobe::spu::isa::Instruction;
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::probes::{SpuObserver, SpuProbes, StallReason};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

const EVENTS: u64 = 4_000_000;
const PACKET_BYTES: usize = 16 * 1024;
const REPEATS: usize = 15;
const CONFIG: StreamConfig = StreamConfig {
    uuid: [0x5a; 16],
    cpu_id: 0,
};

/// A sink that keeps nothing and counts the bytes it was given.
#[derive(Default)]
struct Counting {
    bytes: u64,
}

impl PacketSink for Counting {
    fn take(&mut self, packet: &[u8]) -> Result<(), PacketRefused> {
        self.bytes += black_box(packet).len() as u64;
        Ok(())
    }
}

/// A sink that copies every packet into memory touched beforehand, as a memory-backed file
/// would: room for the largest row's 4 000 000 events of 30 bytes, so that no row times the
/// vector's growth and the page faults of fresh memory (80 MiB did not hold the 30-byte rows,
/// whose figures were twice the others').
struct Keep(Vec<u8>);

impl Keep {
    fn new() -> Self {
        let mut bytes = vec![1u8; 128 << 20];
        bytes.clear();
        Self(bytes)
    }
}

impl PacketSink for Keep {
    fn take(&mut self, packet: &[u8]) -> Result<(), PacketRefused> {
        self.0.extend_from_slice(packet);
        Ok(())
    }
}

/// This thread's CPU time in nanoseconds: on a machine shared with other jobs the wall clock
/// also counts the time they hold the core (runs 3 to 7 times apart), the thread's CPU time
/// does not. `clock_gettime` brings the kernel's count up to date when asked (the figure in
/// `/proc/thread-self/schedstat` moves only at scheduler ticks, too coarse for these runs).
fn now_ns() -> f64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec for the call.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    time.tv_sec as f64 * 1e9 + time.tv_nsec as f64
}

/// The least of the timings: the one the other jobs of a shared machine disturbed least.
fn least(values: Vec<f64>) -> f64 {
    values.into_iter().fold(f64::INFINITY, f64::min)
}

/// Times `write` (called with the event's number) `EVENTS` times into a fresh stream over
/// `sink`; (ns per event, bytes per event).
fn time_writer<S: PacketSink>(
    mut sink: impl FnMut() -> S,
    bytes_of: impl Fn(&S) -> u64,
    write: impl Fn(&mut StreamWriter<'_, S>, u64),
) -> (f64, f64) {
    let mut packet = vec![0u8; PACKET_BYTES];
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..REPEATS {
        let mut stream = StreamWriter::new(&mut packet, sink(), CONFIG).unwrap();
        let start = now_ns();
        for i in 0..EVENTS {
            write(&mut stream, black_box(i));
        }
        let (sink, stats) = stream.finish();
        times.push((now_ns() - start) / EVENTS as f64);
        assert_eq!(stats.discarded, 0);
        bytes = bytes_of(&sink);
    }
    (least(times), bytes as f64 / EVENTS as f64)
}

fn spu_access(i: u64) -> MemAccess {
    MemAccess {
        tick: i + i / 3,
        pc: 0x200 + (i & 0x3f) * 4,
        address: (i * 16) & 0x3_fff0,
        size: 16,
        kind: if i & 1 == 0 {
            AccessKind::Read
        } else {
            AccessKind::Write
        },
    }
}

fn writer_rows() {
    println!("the stream writer alone, {EVENTS} events, packets of {PACKET_BYTES} bytes:");
    println!(
        "{:<34} {:>10} {:>16} {:>18}",
        "event", "bytes/event", "ns/event (none)", "ns/event (store)"
    );
    // Each row's closure is its own type, so the writer inlines into the timed loop.
    macro_rules! row {
        ($name:expr, |$s:ident, $i:ident| $write:expr) => {{
            let (ns, bytes) = time_writer(
                Counting::default,
                |s| s.bytes,
                |$s, $i| {
                    let _ = $write;
                },
            );
            let (ns_store, store_bytes) = time_writer(
                Keep::new,
                |s| s.0.len() as u64,
                |$s, $i| {
                    let _ = $write;
                },
            );
            assert_eq!(bytes, store_bytes);
            println!("{:<34} {bytes:>10.2} {ns:>16.2} {ns_store:>18.2}", $name);
        }};
    }
    row!("mem_read/mem_write (SPU LS)", |s, i| s
        .mem_access(&spu_access(i)));
    row!("stall", |s, i| s.stall(i * 5, StallReason::ChannelWait, 3));
    row!("pc_event", |s, i| s.pc_event(i * 7, 0x40, 0));
    row!("pmu_count", |s, i| s.pmu_count(i * 4096, &reading(i)));
    row!("mem_read64 (64-bit address)", |s, i| {
        let mut access = spu_access(i);
        access.address |= 1 << 40;
        s.mem_access(&access)
    });
}

fn reading(i: u64) -> EventReading {
    EventReading {
        event: Event::INST_RETIRED,
        group: GroupId::new(0),
        raw: i * 3,
        enabled: i * 4,
        running: i * 4,
    }
}

/// 250 000 passes of a load and a store over 2 KiB (and the loop's add and branch), then
/// stop.
const SPU_LOOP: &str = "il $3,0
ila $4,250000
ila $7,0x7f0
loop: lqd $5,0x1000($3)
a $5,$5,$4
stqd $5,0x1800($3)
ai $3,$3,16
and $3,$3,$7
ai $4,$4,-1
brnz $4,loop
stop";

fn unit(mode: Mode) -> Box<SpuUnit> {
    let mut image = vec![0u8; 4096];
    let program = assemble::<16>(SPU_LOOP, &mut image).unwrap();
    let mut unit = Box::new(SpuUnit::new(0));
    unit.load_program(&image[..program.len], program.entry)
        .unwrap();
    unit.set_mode(mode);
    unit
}

/// An observer that listens to everything `SpuTrace` listens to and does nothing: the model's
/// own cost of telling an observer, which the trace's figure leaves out.
struct Listening;

impl SpuObserver for Listening {
    fn completed(&self, batch: &CompletedBatch<'_>) {
        black_box(batch.accesses());
    }
    fn needs_records(&self) -> bool {
        false
    }
    fn retired(&self, _: &Instruction, executed: &Executed, _: u64) {
        black_box(executed);
    }
    fn issue_stall(&self, reason: StallReason) {
        black_box(reason);
    }
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        black_box((reason, n));
    }
}

/// Medians of (seconds with nothing listening, with an observer that does nothing, with the
/// trace), events written, bytes written.
fn spu_run(mode: Mode) -> ([f64; 3], u64, u64) {
    let probes = SpuProbes::new();
    let mut bare = Vec::new();
    let mut listening = Vec::new();
    let mut traced = Vec::new();
    let (mut events, mut bytes) = (0, 0);
    for _ in 0..REPEATS {
        let mut spu = unit(mode);
        let start = now_ns();
        spu.run(u64::MAX, &probes, &mut Discard).unwrap();
        bare.push((now_ns() - start) / 1e9);

        let mut spu = unit(mode);
        let start = now_ns();
        spu.run(u64::MAX, &(&probes, Listening), &mut Discard)
            .unwrap();
        listening.push((now_ns() - start) / 1e9);

        let mut packets = vec![vec![0u8; PACKET_BYTES]; 4];
        let mut writers = packets
            .iter_mut()
            .map(|packet| StreamWriter::new(packet, Counting::default(), CONFIG).unwrap());
        let mut next = || writers.next().unwrap();
        let trace = SpuTrace::new(SpuStreams {
            memory: next(),
            dma: next(),
            stalls: next(),
            pc_events: next(),
        });
        let mut spu = unit(mode);
        let start = now_ns();
        spu.run(u64::MAX, &(&probes, &trace), &mut Discard).unwrap();
        let streams = trace.finish();
        traced.push((now_ns() - start) / 1e9);
        let all = streams
            .named()
            .map(|(_, (sink, stats))| (stats.events, sink.bytes));
        events = all.iter().map(|s| s.0).sum();
        bytes = all.iter().map(|s| s.1).sum();
    }
    (
        [least(bare), least(listening), least(traced)],
        events,
        bytes,
    )
}

fn spu_rows() {
    if !selected("spu instruction") && !selected("spu pipeline") {
        return;
    }
    println!();
    println!(
        "SpuTrace on an SPU run (250 000 passes of a load and a store), beside SpuProbes; \
         ns/event: (traced - listening) / events"
    );
    println!(
        "{:<12} {:>9} {:>12} {:>9} {:>13} {:>10} {:>9}",
        "mode", "events", "bytes/event", "bare ms", "listening ms", "traced ms", "ns/event"
    );
    for (name, mode) in [
        ("instruction", Mode::Instruction),
        ("pipeline", Mode::Pipeline),
    ] {
        if !selected(&format!("spu {name}")) {
            continue;
        }
        let ([bare, listening, traced], events, bytes) = spu_run(mode);
        println!(
            "{name:<12} {events:>9} {:>12.2} {:>9.3} {:>13.3} {:>10.3} {:>9.2}",
            bytes as f64 / events as f64,
            bare * 1e3,
            listening * 1e3,
            traced * 1e3,
            (traced - listening) * 1e9 / events as f64
        );
    }
}

/// Whether the command line's words (those `cargo bench -- WORDS` passes on, `--bench`
/// aside) select `row`: all rows without words, else those that hold one of them.
fn selected(row: &str) -> bool {
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|word| !word.starts_with("--"))
        .collect();
    words.is_empty() || words.iter().any(|word| row.contains(word.as_str()))
}

fn main() {
    if selected("writer") {
        writer_rows();
    }
    spu_rows();
}
