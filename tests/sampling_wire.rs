//! The `PMPS` sample file format: round trips, compactness and every decode error.
use pmprobe::sampling::{
    EncodedBuffer, MAX_STACK_DEPTH, ProfileDecoder, ProfileHeader, Sample, SampleEncoder,
    SampleSource, SampleStore, WalkEnd, WireError, encode_header, encode_profile,
};
use pmprobe::sampling::{HEADER_LEN, MAX_RECORD_LEN};

fn header() -> ProfileHeader {
    ProfileHeader {
        source: SampleSource::PmuOverflow,
        event: 0x11,
        period: 100_003,
        dropped: 7,
    }
}

fn samples() -> Vec<Sample> {
    let mut samples = vec![
        Sample::with_frames(
            0x4008_1000,
            2,
            &[0x4008_2004, 0x4008_3008],
            WalkEnd::Complete,
        )
        .with_lr(0x4008_2004),
        Sample::with_frames(
            0x4008_0ffc,
            0,
            &[0x4008_2004, 0x4008_3008],
            WalkEnd::Complete,
        ),
        Sample::new(u64::MAX - 3, u64::MAX).with_lr(7),
        Sample::with_frames(0, 1 << 40, &[u64::MAX, 0, 1], WalkEnd::NotAscending),
    ];
    let deep: Vec<u64> = (0..MAX_STACK_DEPTH as u64)
        .map(|i| 0x4000_0000 + i * 0x1234)
        .collect();
    samples.push(Sample::with_frames(
        0x4000_0000,
        9,
        &deep,
        WalkEnd::DepthLimit,
    ));
    samples
}

#[test]
fn a_profile_round_trips() {
    let samples = samples();
    let mut file = vec![0u8; 4096];
    let len = encode_profile(&header(), &samples, &mut file).unwrap();
    let decoder = ProfileDecoder::new(&file[..len]).unwrap();
    assert_eq!(decoder.header(), header());
    let decoded: Vec<Sample> = decoder.map(Result::unwrap).collect();
    assert_eq!(decoded, samples);
}

#[test]
fn the_header_has_the_documented_layout() {
    let mut bytes = [0u8; HEADER_LEN];
    assert_eq!(encode_header(&header(), &mut bytes), Ok(HEADER_LEN));
    assert_eq!(&bytes[..4], b"PMPS");
    assert_eq!(bytes[4], 2);
    assert_eq!(bytes[5], 0);
    assert_eq!(&bytes[6..8], &[0x11, 0]);
    assert_eq!(&bytes[8..16], &100_003u64.to_le_bytes());
    assert_eq!(&bytes[16..24], &7u64.to_le_bytes());
}

#[test]
fn loop_samples_are_compact() {
    // 1000 samples of a 16-instruction loop 3 calls deep: small PC deltas, repeated stacks.
    let samples: Vec<Sample> = (0..1000u64)
        .map(|i| {
            Sample::with_frames(
                0x4008_1000 + 4 * (i * 7 % 16),
                i % 3,
                &[0x4008_2004, 0x4008_3008, 0x4008_0100],
                WalkEnd::Complete,
            )
            .with_lr(0x4008_2004)
        })
        .collect();
    let mut file = vec![0u8; 64 * 1024];
    let len = encode_profile(&header(), &samples, &mut file).unwrap();
    let per_sample = (len - HEADER_LEN) as f64 / 1000.0;
    println!("{per_sample:.1} bytes per sample");
    assert!(per_sample < 16.0, "{per_sample} bytes per sample");
}

#[test]
fn a_full_buffer_leaves_the_encoder_ready_to_retry() {
    let samples = samples();
    let mut encoder = SampleEncoder::new();
    let mut tiny = [0u8; 3];
    assert_eq!(
        encoder.encode(&samples[0], &mut tiny),
        Err(WireError::BufferTooSmall)
    );
    let mut big = [0u8; MAX_RECORD_LEN];
    let mut file = vec![0u8; HEADER_LEN];
    encode_header(&header(), &mut file).unwrap();
    for sample in &samples {
        let len = encoder.encode(sample, &mut big).unwrap();
        assert!(len <= MAX_RECORD_LEN);
        file.extend_from_slice(&big[..len]);
    }
    let decoded: Vec<Sample> = ProfileDecoder::new(&file)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(decoded, samples);
    assert_eq!(
        encode_header(&header(), &mut [0u8; HEADER_LEN - 1]),
        Err(WireError::BufferTooSmall)
    );
}

#[test]
fn malformed_files_are_typed_errors() {
    let mut file = vec![0u8; 4096];
    let len = encode_profile(&header(), &samples(), &mut file).unwrap();
    let file = &file[..len];
    assert_eq!(
        ProfileDecoder::new(b"PMTR\x01").err(),
        Some(WireError::BadMagic)
    );
    assert_eq!(
        ProfileDecoder::new(&file[..10]).err(),
        Some(WireError::Truncated { offset: 0 })
    );
    let mut other = file.to_vec();
    other[4] = 1;
    assert_eq!(
        ProfileDecoder::new(&other).err(),
        Some(WireError::UnsupportedVersion(1)),
        "version 1 records had no core byte"
    );
    other[4] = 2;
    other[5] = 9;
    assert_eq!(
        ProfileDecoder::new(&other).err(),
        Some(WireError::BadSource(9))
    );
    // Every truncation inside the records ends in one Truncated error, never a panic.
    for cut in HEADER_LEN + 1..len {
        let results: Vec<_> = ProfileDecoder::new(&file[..cut]).unwrap().collect();
        let errors = results.iter().filter(|r| r.is_err()).count();
        assert!(errors <= 1);
        if let Some(Err(e)) = results.last() {
            assert!(matches!(e, WireError::Truncated { .. }), "{e}");
        }
    }
    let mut bad_depth = file.to_vec();
    bad_depth[HEADER_LEN] = (MAX_STACK_DEPTH + 1) as u8;
    let first = ProfileDecoder::new(&bad_depth).unwrap().next();
    assert_eq!(
        first,
        Some(Err(WireError::BadRecord { offset: HEADER_LEN }))
    );
    let mut bad_end = file.to_vec();
    bad_end[HEADER_LEN + 1] = 6;
    let first = ProfileDecoder::new(&bad_end).unwrap().next();
    assert_eq!(
        first,
        Some(Err(WireError::BadRecord { offset: HEADER_LEN }))
    );
    let mut overlong = file[..HEADER_LEN].to_vec();
    overlong.extend_from_slice(&[0, 0, 0]);
    overlong.extend_from_slice(&[0xff; 11]);
    let first = ProfileDecoder::new(&overlong).unwrap().next();
    assert_eq!(
        first,
        Some(Err(WireError::Overlong {
            offset: HEADER_LEN + 3
        }))
    );
}

#[test]
fn samples_of_several_cores_interleaved_keep_their_core() {
    let samples: Vec<Sample> = (0..40u64)
        .map(|i| {
            Sample::with_frames(
                0x4008_1000 + 8 * i,
                i,
                &[0x4008_2004 + i, 0x4008_3008],
                WalkEnd::Complete,
            )
            .on_core((i * 7 % 5) as u8)
        })
        .collect();
    let mut file = vec![0u8; 8192];
    let len = encode_profile(&header(), &samples, &mut file).unwrap();
    let decoded: Vec<Sample> = ProfileDecoder::new(&file[..len])
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(decoded, samples);
}

#[test]
fn per_core_buffers_written_one_after_the_other_make_one_profile() {
    // What the firmware does: each core encodes into its own buffer; the file is the header
    // followed by every buffer's bytes.
    let mut cores: Vec<EncodedBuffer<4096>> = (0..3).map(|_| EncodedBuffer::new()).collect();
    let mut expected = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..60u64 {
        let core = (i % 3) as usize;
        let sample = Sample::with_frames(
            0x4008_0000 + 0x1000 * core as u64 + 4 * (i % 7),
            i,
            &[0x4009_0000 + i],
            WalkEnd::Complete,
        )
        .on_core(core as u8);
        assert!(cores[core].keep(&sample));
        expected[core].push(sample);
    }
    let mut file = vec![0u8; HEADER_LEN];
    encode_header(&header(), &mut file).unwrap();
    for buffer in &cores {
        assert_eq!(
            buffer.records().map(Result::unwrap).count() as u64,
            buffer.kept()
        );
        file.extend_from_slice(buffer.bytes());
    }
    let decoded: Vec<Sample> = ProfileDecoder::new(&file)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(decoded, expected.concat());
}

#[test]
fn an_encoded_buffer_drops_what_does_not_fit_and_counts_it() {
    let mut buffer: EncodedBuffer<100> = EncodedBuffer::new();
    let deep: Vec<u64> = (0..20).map(|i| 0x4000_0000 + i * 0x10_0000).collect();
    let big = Sample::with_frames(0x4008_0000, 5, &deep, WalkEnd::Complete);
    let small = Sample::new(0x4008_0004, 1);
    let mut kept = Vec::new();
    for sample in [small, big, small, big, small, small] {
        if buffer.keep(&sample) {
            kept.push(sample);
        }
    }
    assert!(buffer.dropped() >= 1, "a 20-frame record cannot fit twice");
    assert_eq!(buffer.kept() + buffer.dropped(), 6);
    assert!(buffer.bytes().len() <= buffer.capacity());
    let decoded: Vec<Sample> = buffer.records().map(Result::unwrap).collect();
    assert_eq!(
        decoded, kept,
        "a dropped record leaves the delta chain intact"
    );
    buffer.clear();
    assert_eq!(
        (buffer.kept(), buffer.dropped(), buffer.bytes().len()),
        (0, 0, 0)
    );
}
