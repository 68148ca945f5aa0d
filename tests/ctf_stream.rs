//! The CTF 1.8 stream writer and metadata (`pmprobe::ctf`) on traces made here.
//!
//! Two oracles: the CTF specification (v1.8.3), whose layouts the first test spells out byte
//! by byte (section 5: the packet header and context, `magic` 0xC1FC1FC1; section 6.1.1: the
//! compact event header, a 5-bit id and a 27-bit timestamp, 31 for the extended header;
//! section 4.1.5: little-endian bit fields fill a byte from its low bits), and babeltrace2,
//! the reference reader, which must read back every event class with the values written,
//! timestamps in clock cycles, and report what was lost.
mod common;

use std::path::PathBuf;

use common::babeltrace::{BtRead, read_trace};
use pmprobe::ctf::{
    ClockDescription, EventLost, MetadataError, PacketBufferTooSmall, PacketRefused, PacketSink,
    PacketStore, SPU_CLOCK_HZ, StreamConfig, StreamStats, StreamWriter, TraceDescription, uuid_v4,
    write_metadata,
};
use pmprobe::pmu::{Event, EventReading, GroupId};
use pmprobe::probe::listeners::{AccessKind, MemAccess};
use pmprobe::spu::isa::IClass;
use pmprobe::spu::mfc::{Command, DmaEvent};
use pmprobe::spu::probes::StallReason;

const UUID: [u8; 16] = [
    0x6b, 0x3e, 0x10, 0x42, 0x9a, 0x51, 0x4c, 0x0e, 0x8f, 0x21, 0x33, 0x07, 0x5d, 0x90, 0xaa, 0x01,
];

fn config(cpu_id: u32) -> StreamConfig {
    StreamConfig { uuid: UUID, cpu_id }
}

fn access(tick: u64, pc: u64, address: u64, size: u32, kind: AccessKind) -> MemAccess {
    MemAccess {
        tick,
        pc,
        address,
        size,
        kind,
    }
}

/// A sink into a `Vec`, refusing the packets whose numbers (from 0) are in `refuse`.
#[derive(Default)]
struct VecSink {
    bytes: Vec<u8>,
    offered: usize,
    refuse: Vec<usize>,
}

impl PacketSink for VecSink {
    fn take(&mut self, packet: &[u8]) -> Result<(), PacketRefused> {
        let number = self.offered;
        self.offered += 1;
        if self.refuse.contains(&number) {
            return Err(PacketRefused);
        }
        self.bytes.extend_from_slice(packet);
        Ok(())
    }
}

/// A trace directory of its own under target/, with the metadata for `pc_events`.
fn trace_dir(name: &str, pc_events: &[&str]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("ctf-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut metadata = String::new();
    let clock = ClockDescription {
        name: "spu_cycles",
        description: "SPU cycles",
        frequency: SPU_CLOCK_HZ,
    };
    let trace = TraceDescription {
        uuid: UUID,
        clock,
        pc_events,
        env: &[("test", name)],
    };
    write_metadata(&mut metadata, &trace).unwrap();
    std::fs::write(dir.join("metadata"), metadata).unwrap();
    dir
}

/// Writes the stream `write` makes (packets of `packet_bytes`) as file `stream` of a new trace
/// and reads the trace back with babeltrace2.
fn through_babeltrace(
    name: &str,
    packet_bytes: usize,
    sink: VecSink,
    write: impl FnOnce(&mut StreamWriter<'_, VecSink>),
) -> (BtRead, StreamStats) {
    let dir = trace_dir(name, &["first mark", "a \"quoted\" mark"]);
    let mut packet = vec![0u8; packet_bytes];
    let mut stream = StreamWriter::new(&mut packet, sink, config(5)).unwrap();
    write(&mut stream);
    let (sink, stats) = stream.finish();
    std::fs::write(dir.join("stream"), &sink.bytes).unwrap();
    let read = read_trace(&dir);
    (read, stats)
}

fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

#[test]
fn a_packet_is_laid_out_as_the_specification_says() {
    let mut packet = [0u8; 256];
    let mut file = [0u8; 1024];
    let mut stream =
        StreamWriter::new(&mut packet, PacketStore::new(&mut file), config(3)).unwrap();
    stream
        .mem_access(&access(1000, 0x40, 0x1230, 16, AccessKind::Write))
        .unwrap();
    // 2^27 + 1000 cycles later: too far for the 27-bit timestamp, so the extended header.
    stream
        .mem_access(&access(
            1000 + (1 << 27),
            0x44,
            0x1240,
            16,
            AccessKind::Read,
        ))
        .unwrap();
    let (store, stats) = stream.finish();
    let bytes = store.bytes();
    // Header 76 bytes, a compact event (4 + 10), an extended one (13 + 10).
    assert_eq!(bytes.len(), 76 + 14 + 23);
    assert_eq!(stats.events, 2);
    assert_eq!(
        &bytes[0..4],
        &[0xC1, 0x1F, 0xFC, 0xC1],
        "magic, little-endian"
    );
    assert_eq!(&bytes[4..20], &UUID);
    assert_eq!(le_u32(bytes, 20), 0, "stream_id");
    assert_eq!(
        le_u64(bytes, 24),
        1000,
        "timestamp_begin: the first event's"
    );
    assert_eq!(
        le_u64(bytes, 32),
        1000 + (1 << 27),
        "timestamp_end: the last"
    );
    assert_eq!(le_u64(bytes, 40), 8 * 113, "content_size in bits");
    assert_eq!(le_u64(bytes, 48), 8 * 113, "packet_size: no padding");
    assert_eq!(le_u64(bytes, 56), 0, "packet_seq_num");
    assert_eq!(le_u64(bytes, 64), 0, "events_discarded");
    assert_eq!(le_u32(bytes, 72), 3, "cpu_id");
    // Compact header: id 1 (mem_write) in bits 0..5, timestamp's low 27 bits in bits 5..32.
    assert_eq!(le_u32(bytes, 76), 1 | (1000 << 5));
    assert_eq!(le_u32(bytes, 80), 0x40, "pc");
    assert_eq!(le_u32(bytes, 84), 0x1230, "address");
    assert_eq!(u16::from_le_bytes([bytes[88], bytes[89]]), 16, "size");
    // Extended header: 31 in the 5-bit id (3 bits of padding to the byte), the id as a u32,
    // the whole timestamp as a u64.
    assert_eq!(bytes[90], 31);
    assert_eq!(le_u32(bytes, 91), 0, "id 0: mem_read");
    assert_eq!(le_u64(bytes, 95), 1000 + (1 << 27));
    assert_eq!(le_u32(bytes, 103), 0x44);
}

#[test]
fn babeltrace2_reads_every_event_class_with_its_values() {
    let dma = |element| DmaEvent {
        spu: 1,
        command: Command::decode(0x44).unwrap(),
        tag: 7,
        lsa: 0x3_0000,
        ea: 0x1_2345_6780,
        size: 2048,
        element,
        issued: 900,
        completed: 1_200,
    };
    let reading = EventReading {
        event: Event::LD_RETIRED,
        group: GroupId::new(0),
        raw: 123_456,
        enabled: 5_000,
        running: 2_500,
    };
    let (read, stats) = through_babeltrace("classes", 4096, VecSink::default(), |s| {
        s.mem_access(&access(10, 0x100, 0x2000, 16, AccessKind::Read))
            .unwrap();
        s.mem_access(&access(11, 0x104, 0x2010, 16, AccessKind::Write))
            .unwrap();
        s.mem_access(&access(12, 0x108, 0x108, 4, AccessKind::InstructionFetch))
            .unwrap();
        let wide = 0x4000_0000_1000;
        s.mem_access(&access(13, wide, wide + 8, 8, AccessKind::Read))
            .unwrap();
        s.mem_access(&access(14, 0x10, 0x20, 70_000, AccessKind::Write))
            .unwrap();
        s.mem_access(&access(15, wide, 0x30, 1, AccessKind::InstructionFetch))
            .unwrap();
        s.stall(20, StallReason::Dependency(IClass::Fp6), 6)
            .unwrap();
        s.stall(26, StallReason::ChannelWait, 300).unwrap();
        s.dma(&dma(None)).unwrap();
        s.dma(&dma(Some(3))).unwrap();
        s.pmu_count(1_300, &reading).unwrap();
        s.pc_event(1_400, 0x88, 1).unwrap();
    });
    assert_eq!(stats.events, 12);
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    let names: Vec<&str> = read.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "mem_read",
            "mem_write",
            "mem_fetch",
            "mem_read64",
            "mem_write64",
            "mem_fetch64",
            "stall",
            "stall",
            "dma",
            "dma_list_element",
            "pmu_count",
            "pc_event",
        ]
    );
    let cycles: Vec<u64> = read.events.iter().map(|e| e.cycle).collect();
    assert_eq!(
        cycles,
        [10, 11, 12, 13, 14, 15, 20, 26, 1_200, 1_200, 1_300, 1_400]
    );
    assert!(read.events.iter().all(|e| e.cpu_id == 5));
    let e = &read.events;
    assert_eq!((e[0].number("pc"), e[0].number("address")), (0x100, 0x2000));
    assert_eq!(e[0].number("size"), 16);
    assert_eq!(e[2].number("size"), 4);
    assert_eq!(e[3].number("pc"), 0x4000_0000_1000);
    assert_eq!(e[3].number("address"), 0x4000_0000_1008);
    assert_eq!(e[4].number("size"), 70_000);
    assert_eq!(
        (e[6].label("reason"), e[6].number("cycles")),
        ("dependency_FP6", 6)
    );
    assert_eq!(
        (e[7].label("reason"), e[7].number("cycles")),
        ("channel_wait", 300)
    );
    for dma in [&e[8], &e[9]] {
        assert_eq!(dma.label("command"), "getl");
        assert_eq!(dma.number("command"), 0x44);
        assert_eq!((dma.number("tag"), dma.number("size")), (7, 2048));
        assert_eq!(
            (dma.number("lsa"), dma.number("ea")),
            (0x3_0000, 0x1_2345_6780)
        );
        assert_eq!(dma.number("issued"), 900);
    }
    assert_eq!(e[9].number("element"), 3);
    assert_eq!(e[10].label("counter"), "LD_RETIRED");
    assert_eq!(e[10].number("raw"), 123_456);
    assert_eq!(
        (e[10].number("enabled"), e[10].number("running")),
        (5_000, 2_500)
    );
    assert_eq!(e[11].number("pc"), 0x88);
    // The label is `a "quoted" mark`; sink.text.pretty escapes its quotes.
    assert_eq!(e[11].label("name"), "a \\\"quoted\\\" mark");
}

#[test]
fn timestamps_survive_the_27_bit_header_across_wraps_and_gaps() {
    const SPAN: u64 = 1 << 27;
    // Gaps just below 2^27 (compact, whose low bits wrap), exactly 2^27 and above (extended),
    // equal timestamps, a 64-bit value.
    let times = [
        0,
        SPAN - 1,
        SPAN,
        2 * SPAN - 1,
        3 * SPAN - 2,
        3 * SPAN - 2,
        4 * SPAN - 2,
        4 * SPAN + 5,
        1 << 45,
        (1 << 45) + SPAN - 1,
        u64::MAX >> 1,
    ];
    // Small packets: the clock also crosses packet boundaries.
    let (read, stats) = through_babeltrace("wraps", 196, VecSink::default(), |s| {
        for (i, &time) in times.iter().enumerate() {
            s.pc_event(time, i as u64, 0).unwrap();
        }
    });
    assert!(stats.packets > 1);
    let cycles: Vec<u64> = read.events.iter().map(|e| e.cycle).collect();
    assert_eq!(cycles, times);
    let pcs: Vec<u64> = read.events.iter().map(|e| e.number("pc")).collect();
    assert_eq!(pcs, (0..times.len() as u64).collect::<Vec<_>>());
}

#[test]
fn a_refused_packet_is_counted_and_babeltrace2_reports_the_loss() {
    let sink = VecSink {
        refuse: vec![1],
        ..VecSink::default()
    };
    // 196-byte packets hold 8 SPU accesses of 14 bytes after the 76-byte header.
    let (read, stats) = through_babeltrace("refused", 196, sink, |s| {
        for i in 0..40 {
            s.mem_access(&access(i * 2, 0x40, 16 * i, 16, AccessKind::Read))
                .unwrap();
        }
    });
    assert_eq!(stats.refused_packets, 1);
    assert_eq!((stats.events, stats.discarded), (32, 8));
    assert_eq!(read.count("mem_read"), 32);
    // The first packet's 8 events, then the third's: the second's 8 are gone.
    assert_eq!(read.events[8].cycle, 32);
    let warnings = read.warnings.join("\n");
    assert!(
        warnings.contains("Tracer discarded 8 events") && warnings.contains("discarded 1 packet"),
        "{warnings}"
    );
}

#[test]
fn late_and_oversized_events_are_refused_and_counted() {
    let (read, stats) = through_babeltrace("late", 196, VecSink::default(), |s| {
        s.pc_event(100, 0, 0).unwrap();
        // A packet of its own: babeltrace2 counts a loss from one packet to the next (in the
        // first packet of a stream it can only say that events may have been lost).
        s.flush();
        s.pc_event(100, 0, 0).unwrap();
        assert_eq!(
            s.pc_event(99, 0, 0),
            Err(EventLost::OutOfOrder {
                timestamp: 99,
                last: 100
            })
        );
        assert_eq!(
            s.write(0, 100, &[0; 200]),
            Err(EventLost::TooLarge {
                bytes: 204,
                room: 120
            })
        );
        s.pc_event(101, 0, 0).unwrap();
    });
    assert_eq!(
        (stats.events, stats.discarded, stats.out_of_order),
        (3, 2, 1)
    );
    assert_eq!(read.count("pc_event"), 3);
    let warnings = read.warnings.join("\n");
    assert!(warnings.contains("Tracer discarded 2 events"), "{warnings}");
}

#[test]
fn a_stream_without_events_is_one_empty_packet_babeltrace2_accepts() {
    let (read, stats) = through_babeltrace("empty", 196, VecSink::default(), |_| {});
    assert_eq!((stats.packets, stats.events, stats.bytes), (1, 0, 76));
    assert!(read.events.is_empty() && read.warnings.is_empty());
}

#[test]
fn a_stall_longer_than_32_bits_of_cycles_is_split() {
    let long = u64::from(u32::MAX) + 10;
    let (read, _) = through_babeltrace("long-stall", 196, VecSink::default(), |s| {
        s.stall(7, StallReason::ChannelWait, long).unwrap();
    });
    let parts: Vec<(u64, u64)> = read
        .named("stall")
        .map(|e| (e.cycle, e.number("cycles")))
        .collect();
    assert_eq!(
        parts,
        [(7, u64::from(u32::MAX)), (7 + u64::from(u32::MAX), 10)]
    );
}

#[test]
fn bad_buffers_and_names_are_typed_errors() {
    let mut packet = [0u8; 100];
    let error = StreamWriter::new(&mut packet, VecSink::default(), config(0)).err();
    assert_eq!(error, Some(PacketBufferTooSmall { bytes: 100 }));

    let mut file = [0u8; 100];
    let mut store = PacketStore::new(&mut file);
    assert_eq!(store.take(&[0; 60]), Ok(()));
    assert_eq!(store.take(&[0; 60]), Err(PacketRefused));
    assert_eq!(store.bytes().len(), 60);

    let mut text = String::new();
    let trace = |name, description, pc_events| TraceDescription {
        uuid: UUID,
        clock: ClockDescription {
            name,
            description,
            frequency: 1,
        },
        pc_events,
        env: &[],
    };
    assert_eq!(
        write_metadata(&mut text, &trace("2cycles", "", &[])),
        Err(MetadataError::NotAnIdentifier)
    );
    assert_eq!(
        write_metadata(&mut text, &trace("cycles", "a\nb", &[])),
        Err(MetadataError::ControlCharacter)
    );
    assert_eq!(
        write_metadata(&mut text, &trace("cycles", "", &["tab\there"])),
        Err(MetadataError::ControlCharacter)
    );
    let mut small = heapless::String::<64>::new();
    assert_eq!(
        write_metadata(&mut small, &trace("cycles", "", &[])),
        Err(MetadataError::Write)
    );
}

#[test]
fn a_version_4_uuid_has_its_version_and_variant_bits() {
    // RFC 4122 section 4.4: version 4 in the high nibble of byte 6, variant 10 in the two high
    // bits of byte 8.
    let uuid = uuid_v4([0xFF; 16]);
    assert_eq!((uuid[6], uuid[8]), (0x4F, 0xBF));
    let uuid = uuid_v4([0; 16]);
    assert_eq!((uuid[6], uuid[8]), (0x40, 0x80));
}
