//! Guest benchmark (prints figures; its checks only cover the measurement set-up): what a CTF
//! event costs in instructions (`pmprobe::ctf`), counted with the PMU driver (INST_RETIRED)
//! under `-icount shift=0`, where the count is exact; the guest half of `benches/ctf_write.rs`.
//!
//! - The stream writer alone, per event class, into a sink that keeps nothing, packets of
//!   4096 bytes (the demo's): the writer's own cost, packet headers and closes included.
//! - `SpuTrace` as the demo's `--ctf` uses it: its listeners on a `dyn` `DataAccess` point
//!   (`SpuTraceListeners`), an access notified as the SPU model notifies it; and as an
//!   observer, `SpuObserver::retired` of a load.
//!
//! Method: a loop of `ITERATIONS` events minus the same loop without them (identical
//! `black_box` pattern), divided by `ITERATIONS`; the driver's read cost cancels.
#![no_std]
#![no_main]

use core::hint::black_box;

use pmprobe::ctf::{
    PacketRefused, PacketSink, SpuStreams, SpuTrace, SpuTraceListeners, StreamConfig, StreamWriter,
};
use pmprobe::pmu::{Event, EventReading, GroupId};
use pmprobe::probe::listeners::{AccessKind, MemAccess};
use pmprobe::spu::exec::{Executed, LsAccess};
use pmprobe::spu::isa::decode;
use pmprobe::spu::probes::{SpuObserver, SpuProbes, StallReason};
use pmprobe_guest::{Hundredths, InstructionMeter};

pmprobe::entry!(main);

const ITERATIONS: u64 = 10_000;
const PACKET_BYTES: usize = 4096;
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

#[inline(never)]
fn empty_loop() {
    for i in 0..ITERATIONS {
        black_box(i);
    }
}

#[inline(never)]
fn event_loop<F: FnMut(u64)>(mut event: F) {
    for i in 0..ITERATIONS {
        event(black_box(i));
    }
}

/// An SPU local-store access, as the host benchmark makes them.
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

fn reading(i: u64) -> EventReading {
    EventReading {
        event: Event::INST_RETIRED,
        group: GroupId::new(0),
        raw: i * 3,
        enabled: i * 4,
        running: i * 4,
    }
}

/// One stream's writer into a fresh `Counting` sink over `packet`.
fn writer(packet: &mut [u8]) -> Option<StreamWriter<'_, Counting>> {
    StreamWriter::new(packet, Counting::default(), CONFIG).ok()
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("ctf_bench");
    let Some(mut meter) = InstructionMeter::start(&mut t) else {
        return t.finish();
    };
    let Some(baseline) = meter.count(empty_loop) else {
        t.check("pmu_read", false);
        return t.finish();
    };
    pmprobe::println!(
        "ctf_bench: INST_RETIRED, -icount shift=0, {ITERATIONS} events minus an empty loop, packets of {PACKET_BYTES} bytes: instructions and bytes per event"
    );
    let mut packet = [0u8; PACKET_BYTES];
    // Each row: the events written by `write` into a fresh stream, then the stream closed.
    macro_rules! row {
        ($what:expr, |$s:ident, $i:ident| $write:expr) => {{
            let Some(mut $s) = writer(&mut packet) else {
                t.check("writer_created", false);
                return t.finish();
            };
            let total = meter
                .count(|| {
                    event_loop(|$i| {
                        let _ = $write;
                    })
                })
                .unwrap_or(0);
            let (sink, stats) = $s.finish();
            t.check("every_event_written", stats.events == ITERATIONS);
            let insts = total.saturating_sub(baseline) * 100 / ITERATIONS;
            let bytes = sink.bytes * 100 / ITERATIONS;
            pmprobe::println!(
                "ctf_bench: {:>8} insts {:>6} bytes  {}",
                Hundredths(insts),
                Hundredths(bytes),
                $what
            );
        }};
    }
    row!("writer: mem_read/mem_write (SPU LS)", |s, i| s
        .mem_access(&spu_access(i)));
    row!("writer: stall", |s, i| s.stall(
        i * 5,
        StallReason::ChannelWait,
        3
    ));
    row!("writer: pc_event", |s, i| s.pc_event(i * 7, 0x40, 0));
    row!("writer: pmu_count", |s, i| s
        .pmu_count(i * 4096, &reading(i)));
    row!("writer: mem_read64 (64-bit address)", |s, i| {
        let mut access = spu_access(i);
        access.address |= 1 << 40;
        s.mem_access(&access)
    });

    // SpuTrace, its memory stream: through its listeners on a dyn point (the demo's way), and
    // as an observer.
    let mut packets = [[0u8; PACKET_BYTES]; 4];
    let [p0, p1, p2, p3] = &mut packets;
    let (Some(memory), Some(dma), Some(stalls), Some(pc_events)) =
        (writer(p0), writer(p1), writer(p2), writer(p3))
    else {
        t.check("writers_created", false);
        return t.finish();
    };
    let trace = SpuTrace::new(SpuStreams {
        memory,
        dma,
        stalls,
        pc_events,
    });
    let probes = SpuProbes::new();
    let listeners = SpuTraceListeners::new(&trace);
    let pcs = listeners.retired_pcs();
    t.check(
        "listeners_attached",
        listeners.attach(&pcs, &probes).is_ok(),
    );
    let through_listeners = meter
        .count(|| event_loop(|i| probes.data_access.notify(&spu_access(i))))
        .unwrap_or(0);
    probes.clear();
    let load = decode(0x3400_0285).ok(); // lqd $5,0($5)
    t.check("instruction_decoded", load.is_some());
    let loaded = |i: u64| {
        Executed::retired_running(
            0x200 + (i as u32 & 0x3f) * 4,
            0,
            12,
            false,
            Some(LsAccess {
                address: (i as u32 * 16) & 0x3_fff0,
                size: 16,
                kind: AccessKind::Read,
            }),
            false,
        )
    };
    let as_observer = match load {
        Some(load) => meter
            // After the first loop's ticks: a stream refuses an event older than its last.
            .count(|| event_loop(|i| trace.retired(&load, &loaded(i), 2 * ITERATIONS + i)))
            .unwrap_or(0),
        None => 0,
    };
    let streams = trace.finish();
    t.check(
        "every_access_traced",
        streams.memory.1.events == 2 * ITERATIONS && streams.memory.1.discarded == 0,
    );
    for (what, total) in [
        (
            "SpuTrace: an access through SpuTraceListeners on a dyn DataAccess point",
            through_listeners,
        ),
        (
            "SpuTrace: SpuObserver::retired of a load (the access built from the record)",
            as_observer,
        ),
    ] {
        pmprobe::println!(
            "ctf_bench: {:>8} insts {:>6} bytes  {what}",
            Hundredths(total.saturating_sub(baseline) * 100 / ITERATIONS),
            Hundredths(streams.memory.0.bytes * 100 / (2 * ITERATIONS)),
        );
    }
    t.check("baseline_counted", baseline >= ITERATIONS);
    t.finish()
}
