//! Host tests of the memory trace recorder: loss policies with counted drops, draining,
//! Dinero IV "din" output and the binary form with its decoder.

use pmprobe::probe::listeners::{
    AccessKind, MemAccess, MemTrace, OverflowPolicy, TraceDecodeError, TraceDecoder,
    TraceEncodeError,
};
use pmprobe::probe::listeners::{BINARY_MAGIC, BINARY_VERSION};
use pmprobe::probe::{MutListener, ProbePoint};

fn access(tick: u64, address: u64, kind: AccessKind) -> MemAccess {
    MemAccess {
        tick,
        pc: 0x8_0000 + tick * 4,
        address,
        size: 8,
        kind,
    }
}

fn addresses<const N: usize>(trace: &MemTrace<N>) -> Vec<u64> {
    trace.iter().map(|a| a.address).collect()
}

#[test]
fn drop_newest_keeps_the_first_records_and_counts_the_rest() {
    let mut trace: MemTrace<3> = MemTrace::new(OverflowPolicy::DropNewest);
    for i in 0..5 {
        let kept = trace.record(access(i, 0x100 * i, AccessKind::Read));
        assert_eq!(kept, i < 3);
    }
    assert_eq!(addresses(&trace), [0x000, 0x100, 0x200]);
    assert_eq!(trace.dropped(), 2);
}

#[test]
fn overwrite_oldest_keeps_the_last_records_and_counts_the_overwritten() {
    let mut trace: MemTrace<3> = MemTrace::new(OverflowPolicy::OverwriteOldest);
    for i in 0..5 {
        trace.record(access(i, 0x100 * i, AccessKind::Write));
    }
    assert_eq!(addresses(&trace), [0x200, 0x300, 0x400]);
    assert_eq!(trace.dropped(), 2);
    assert_eq!(trace.len(), 3);
}

#[test]
fn draining_frees_room_and_yields_oldest_first() {
    let mut trace: MemTrace<2> = MemTrace::new(OverflowPolicy::DropNewest);
    trace.record(access(0, 0xa, AccessKind::Read));
    trace.record(access(1, 0xb, AccessKind::Read));
    let drained: Vec<u64> = trace.drain().map(|a| a.address).collect();
    assert_eq!(drained, [0xa, 0xb]);
    assert!(trace.is_empty());
    assert!(trace.record(access(2, 0xc, AccessKind::Read)));
    assert_eq!(trace.pop().map(|a| a.address), Some(0xc));
    assert_eq!(trace.pop(), None);
    assert_eq!(trace.dropped(), 0);
}

#[test]
fn din_output_has_one_label_and_hex_address_per_line() {
    let mut trace: MemTrace<8> = MemTrace::new(OverflowPolicy::DropNewest);
    trace.record(access(0, 0x8_0000, AccessKind::InstructionFetch));
    trace.record(access(1, 0x1234_abcd, AccessKind::Read));
    trace.record(access(2, 0xffff_ffff_ffff_fff8, AccessKind::Write));
    trace.record(access(3, 0, AccessKind::Read));
    let mut din = String::new();
    trace.write_din(&mut din).unwrap();
    // Dinero IV din: label 0 read, 1 write, 2 instruction fetch; address in hex.
    assert_eq!(din, "2 80000\n0 1234abcd\n1 fffffffffffffff8\n0 0\n");
}

#[test]
fn binary_form_round_trips_through_the_decoder() {
    let mut trace: MemTrace<16> = MemTrace::new(OverflowPolicy::DropNewest);
    let records = [
        access(5, 0x1000, AccessKind::Read),
        access(6, 0x1008, AccessKind::Write),
        access(6, 0x0ff0, AccessKind::InstructionFetch), // backwards address
        access(2, u64::MAX, AccessKind::Read),           // backwards tick, extreme address
        MemAccess {
            tick: u64::MAX,
            pc: 0,
            address: 0,
            size: u32::MAX,
            kind: AccessKind::Write,
        },
    ];
    for record in records {
        trace.record(record);
    }
    let mut bytes = [0u8; 256];
    let len = trace.encode_binary(&mut bytes).unwrap();
    assert_eq!(&bytes[..4], &BINARY_MAGIC);
    assert_eq!(bytes[4], BINARY_VERSION);
    let decoded: Result<Vec<_>, _> = TraceDecoder::new(&bytes[..len]).unwrap().collect();
    assert_eq!(decoded.unwrap(), records);
}

#[test]
fn the_binary_layout_is_the_documented_one() {
    let mut trace: MemTrace<4> = MemTrace::new(OverflowPolicy::DropNewest);
    trace.record(MemAccess {
        tick: 1,
        pc: 0x80,
        address: 0x100,
        size: 4,
        kind: AccessKind::Write,
    });
    trace.record(MemAccess {
        tick: 2,
        pc: 0x84,
        address: 0xf8,
        size: 4,
        kind: AccessKind::Read,
    });
    let mut bytes = [0u8; 64];
    let len = trace.encode_binary(&mut bytes).unwrap();
    let expected: &[u8] = &[
        b'P', b'M', b'T', b'R', 1, // header
        1, // write
        2, // tick +1 -> zigzag 2
        0x80, 0x02, // pc +0x80 -> zigzag 0x100 -> LEB128 80 02
        0x80, 0x04, // address +0x100 -> zigzag 0x200 -> LEB128 80 04
        4,    // size
        0,    // read
        2,    // tick +1
        8,    // pc +4 -> 8
        15,   // address -8 -> zigzag 15
        4,    // size
    ];
    assert_eq!(&bytes[..len], expected);
}

#[test]
fn a_too_small_buffer_is_an_error_saying_how_many_records_fit() {
    let mut trace: MemTrace<4> = MemTrace::new(OverflowPolicy::DropNewest);
    for i in 0..3 {
        trace.record(access(i, i * 8, AccessKind::Read));
    }
    let mut header_only = [0u8; 4];
    assert_eq!(
        trace.encode_binary(&mut header_only),
        Err(TraceEncodeError::BufferTooSmall { records_written: 0 })
    );
    let mut full = [0u8; 64];
    let needed = trace.encode_binary(&mut full).unwrap();
    let mut short = vec![0u8; needed - 1];
    assert_eq!(
        trace.encode_binary(&mut short),
        Err(TraceEncodeError::BufferTooSmall { records_written: 2 })
    );
}

#[test]
fn the_decoder_rejects_malformed_input() {
    assert_eq!(
        TraceDecoder::new(b"XXXX\x01").err(),
        Some(TraceDecodeError::BadMagic)
    );
    assert_eq!(
        TraceDecoder::new(b"PMTR\x07").err(),
        Some(TraceDecodeError::UnsupportedVersion(7))
    );
    let bad_kind: Vec<_> = TraceDecoder::new(b"PMTR\x01\x03\x00\x00\x00\x00")
        .unwrap()
        .collect();
    assert_eq!(
        bad_kind,
        [Err(TraceDecodeError::BadKind {
            offset: 5,
            value: 3
        })]
    );
    let truncated: Vec<_> = TraceDecoder::new(b"PMTR\x01\x00\x02\x80")
        .unwrap()
        .collect();
    assert_eq!(truncated, [Err(TraceDecodeError::Truncated { offset: 5 })]);
    let too_long: Vec<_> = TraceDecoder::new(&[
        b'P', b'M', b'T', b'R', 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
    ])
    .unwrap()
    .collect();
    assert_eq!(too_long, [Err(TraceDecodeError::Overlong { offset: 6 })]);
}

#[test]
fn it_is_a_listener_of_memory_access_points() {
    let trace = MutListener::new(MemTrace::<4>::new(OverflowPolicy::DropNewest));
    let point: ProbePoint<MemAccess, 2> = ProbePoint::new();
    point.add_object(&trace).unwrap();
    point.notify(&access(1, 0x40, AccessKind::Read));
    point.notify(&access(2, 0x80, AccessKind::Write));
    assert_eq!(trace.with(|t| addresses(t)).unwrap(), [0x40, 0x80]);
}

/// A small xorshift, so the batches below vary without a dependency.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn a_batch_is_recorded_as_its_records_one_by_one_under_both_policies() {
    for policy in [OverflowPolicy::DropNewest, OverflowPolicy::OverwriteOldest] {
        let mut state = 0x9e37_79b9_7f4a_7c15;
        let mut batched: MemTrace<7> = MemTrace::new(policy);
        let mut one_by_one: MemTrace<7> = MemTrace::new(policy);
        let mut tick = 0;
        for round in 0..300 {
            let batch: Vec<MemAccess> = (0..next(&mut state) % 12)
                .map(|_| {
                    tick += 1;
                    access(tick, next(&mut state) & 0xfff0, AccessKind::Read)
                })
                .collect();
            let lost = batched.record_all(&batch);
            let lost_one_by_one = batch.iter().filter(|a| !one_by_one.record(**a)).count();
            assert_eq!(lost, lost_one_by_one, "{policy:?} round {round}");
            assert!(
                batched.iter().eq(one_by_one.iter()),
                "{policy:?} round {round}"
            );
            assert_eq!(batched.dropped(), one_by_one.dropped());
            // Drain some now and then, so the ring wraps at different places.
            for _ in 0..next(&mut state) % 9 {
                assert_eq!(batched.pop(), one_by_one.pop());
            }
        }
        assert!(
            batched.dropped() > 0,
            "{policy:?}: the batches overflowed the ring"
        );
    }
}

#[test]
fn a_point_hands_the_recorder_a_batch_through_its_mut_listener() {
    let trace = MutListener::new(MemTrace::<4>::new(OverflowPolicy::DropNewest));
    let point: ProbePoint<MemAccess, 2> = ProbePoint::new();
    point.add_object(&trace).unwrap();
    let batch: Vec<MemAccess> = (0..6)
        .map(|i| access(i, 0x10 * i, AccessKind::Write))
        .collect();
    point.notify_all(&batch);
    let (held, dropped) = trace
        .with(|ring| (addresses(ring), ring.dropped()))
        .unwrap();
    assert_eq!(held, [0x00, 0x10, 0x20, 0x30]);
    assert_eq!(dropped, 2);
}
