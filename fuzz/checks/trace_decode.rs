//! Checks of the `trace_decode` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): arbitrary bytes through the two memory trace decoders of
//! `probe::listeners::mem_trace`.
//!
//! Binary form (`TraceDecoder`; when byte 0 is odd the rest of the input gets a valid header,
//! so most inputs reach the records): no panic; an error is typed, points inside the input and
//! ends the iteration; the records decoded before any error re-encode (`encode_binary`) to
//! bytes that decode to the same records, and that are the input's own bytes whenever they are
//! as long as the input (the format's numbers may be written with redundant bytes; the encoder
//! writes the shortest form, so only a longer input may differ).
//!
//! Din text (`DinDecoder`, the whole input): no panic; an error names a line of the input and
//! ends the iteration; the records before it, written back (`DinRecord`'s `Display`, the same
//! as `MemTrace::write_din`), decode to the same records without error, and that canonical text
//! is a fixed point (the format allows other spellings: case, `0x`, leading zeros, spacing).
use pmprobe::probe::listeners::{
    BINARY_MAGIC, BINARY_VERSION, DinDecodeError, DinDecoder, DinRecord, MemAccess, MemTrace,
    OverflowPolicy, TraceDecodeError, TraceDecoder,
};

/// Records re-encoded at most (a record takes at least 5 bytes).
const RING: usize = 2048;

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let binary: Vec<u8> = match data.split_first() {
        Some((first, rest)) if first & 1 == 1 => BINARY_MAGIC
            .iter()
            .chain(&[BINARY_VERSION])
            .chain(rest)
            .copied()
            .collect(),
        _ => data.to_vec(),
    };
    check_binary(&binary);
    check_din(data);
}

fn check_binary(bytes: &[u8]) {
    let decoder = match TraceDecoder::new(bytes) {
        Ok(decoder) => decoder,
        Err(TraceDecodeError::BadMagic) => {
            assert!(
                bytes.len() < 5 || bytes[..4] != BINARY_MAGIC,
                "good magic refused"
            );
            return;
        }
        Err(TraceDecodeError::UnsupportedVersion(version)) => {
            assert_eq!(bytes[..4], BINARY_MAGIC);
            assert_ne!(version, BINARY_VERSION);
            return;
        }
        Err(other) => panic!("the header gave {other:?}"),
    };
    let mut records: Vec<MemAccess> = Vec::new();
    let mut failed = false;
    for result in decoder {
        assert!(!failed, "the decoder went on after an error");
        match result {
            Ok(access) => records.push(access),
            Err(error) => {
                let offset = match error {
                    TraceDecodeError::BadKind { offset, value } => {
                        assert!(value > 2, "kind {value} refused");
                        offset
                    }
                    TraceDecodeError::Truncated { offset }
                    | TraceDecodeError::Overlong { offset } => offset,
                    other => panic!("a header error after the header: {other:?}"),
                };
                assert!(
                    (5..bytes.len()).contains(&offset),
                    "{error:?} outside the {} bytes",
                    bytes.len()
                );
                failed = true;
            }
        }
    }
    if records.len() > RING {
        return;
    }
    let mut trace: Box<MemTrace<RING>> = Box::new(MemTrace::new(OverflowPolicy::DropNewest));
    for access in &records {
        assert!(trace.record(*access));
    }
    // Every record is at most 1 + 4 * 10 bytes; the header 5.
    let mut encoded = vec![0u8; 5 + 41 * records.len()];
    let len = trace
        .encode_binary(&mut encoded)
        .expect("the buffer is large enough");
    let encoded = &encoded[..len];
    let again: Result<Vec<MemAccess>, _> = TraceDecoder::new(encoded)
        .expect("the encoder's header")
        .collect();
    assert_eq!(again.as_ref(), Ok(&records), "re-encoded records differ");
    if !failed {
        assert!(
            encoded.len() <= bytes.len(),
            "the encoder is not the shortest form"
        );
        if encoded.len() == bytes.len() {
            assert_eq!(encoded, bytes, "same length, different bytes");
        }
    }
}

fn check_din(text: &[u8]) {
    let lines = text.split(|&byte| byte == b'\n').count();
    let mut records: Vec<DinRecord> = Vec::new();
    let mut failed = false;
    for result in DinDecoder::new(text) {
        assert!(!failed, "the decoder went on after an error");
        match result {
            Ok(record) => records.push(record),
            Err(error) => {
                let (DinDecodeError::BadLabel { line }
                | DinDecodeError::BadAddress { line }
                | DinDecodeError::TrailingText { line }) = error;
                assert!(
                    (1..=lines).contains(&line),
                    "{error:?} outside {lines} lines"
                );
                assert!(error.to_string().starts_with(&format!("din line {line}: ")));
                failed = true;
            }
        }
    }
    let canonical = din_text(&records);
    let again: Result<Vec<DinRecord>, _> = DinDecoder::new(canonical.as_bytes()).collect();
    assert_eq!(
        again.as_ref(),
        Ok(&records),
        "written back, the records differ"
    );
    assert_eq!(
        din_text(&again.unwrap_or_default()),
        canonical,
        "not a fixed point"
    );
    // The trace recorder writes the same lines.
    let mut trace: Box<MemTrace<RING>> = Box::new(MemTrace::new(OverflowPolicy::DropNewest));
    if records.len() <= RING {
        for record in &records {
            trace.record(MemAccess {
                tick: 0,
                pc: 0,
                address: record.address,
                size: 0,
                kind: record.kind,
            });
        }
        let mut written = String::new();
        trace.write_din(&mut written).expect("writing to a String");
        assert_eq!(written, canonical);
    }
}

fn din_text(records: &[DinRecord]) -> String {
    records.iter().map(|record| format!("{record}\n")).collect()
}
