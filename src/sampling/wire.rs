//! The compact binary form of a profile, written by the firmware (through semihosting) and read
//! by the host tool `pmprofile`.
//!
//! ```text
//! header, 24 bytes, little-endian:
//!   0   magic    "PMPS"
//!   4   version  u8 = 2
//!   5   source   u8: 0 PMU counter overflow, 1 generic timer
//!   6   event    u16: the PMU event number (0 for the timer)
//!   8   period   u64: events (or timer ticks) between samples
//!   16  dropped  u64: samples the firmware's buffers could not keep
//! record, one per sample:
//!   depth    u8: number of frames (at most 32)
//!   walk end u8: why the stack walk stopped (0 complete, 1 depth limit, 2 misaligned,
//!                3 out of bounds, 4 not ascending, 5 unreadable)
//!   core     u8: the core the sample was taken on
//!   pc       zigzag LEB128 of pc minus the pc of the previous record when that record is of
//!            the same core, minus 0 otherwise (the first record, a change of core)
//!   counter  LEB128: the counter value read in the handler (the skid)
//!   lr       zigzag LEB128 of the interrupted link register minus pc
//!   frames   depth times zigzag LEB128 of the return address minus the previous address of
//!            this record (pc for the first frame)
//! ```
//! Deltas use wrapping 64-bit arithmetic; zigzag maps a signed delta `d` to
//! `(d << 1) ^ (d >> 63)`; LEB128 stores 7 bits per byte, least significant first, with the high
//! bit set on every byte but the last. A sample of a tight loop with a 4-deep stack costs about
//! 13 bytes.
//!
//! Because the PC chain restarts at every change of core, each core can encode its own records
//! into its own buffer ([`EncodedBuffer`](super::EncodedBuffer)) and the file is simply the
//! header followed by every core's bytes, one after the other.

use core::fmt;

use super::sample::{MAX_STACK_DEPTH, Sample, WalkEnd};

/// The magic bytes that start a sample file.
pub const MAGIC: [u8; 4] = *b"PMPS";
/// The format version written by this crate.
pub const VERSION: u8 = 2;
/// Size of the header in bytes.
pub const HEADER_LEN: usize = 24;
/// The most bytes one record can take: depth, walk end and core, then pc, counter, lr and up to
/// [`MAX_STACK_DEPTH`] frames as varints of at most 10 bytes each.
pub const MAX_RECORD_LEN: usize = 3 + 10 * (3 + MAX_STACK_DEPTH);

/// What triggers a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SampleSource {
    /// A PMU event counter overflowing every `period` events (its overflow interrupt).
    PmuOverflow,
    /// The generic timer firing every `period` ticks (the fallback when the PMU interrupt is
    /// unavailable).
    GenericTimer,
}

/// The profile's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProfileHeader {
    /// The trigger.
    pub source: SampleSource,
    /// The PMU event number counted (0 for the timer).
    pub event: u16,
    /// Events or ticks between samples.
    pub period: u64,
    /// Samples that were dropped before the profile was written.
    pub dropped: u64,
}

/// Why encoding or decoding failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WireError {
    /// The output buffer is too small for the header or the record (nothing was written).
    BufferTooSmall,
    /// The input does not start with `PMPS`.
    BadMagic,
    /// The version byte is not [`VERSION`].
    UnsupportedVersion(u8),
    /// The source byte is not 0 or 1.
    BadSource(u8),
    /// The input ends inside the header or a record.
    Truncated {
        /// Byte offset where the header or record started.
        offset: usize,
    },
    /// A record's depth is larger than [`MAX_STACK_DEPTH`] or its walk end is unknown.
    BadRecord {
        /// Byte offset of the record.
        offset: usize,
    },
    /// A varint longer than 10 bytes or overflowing 64 bits.
    Overlong {
        /// Byte offset of the field.
        offset: usize,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BufferTooSmall => f.write_str("output buffer too small"),
            Self::BadMagic => f.write_str("not a pmprobe sample file (bad magic)"),
            Self::UnsupportedVersion(v) => write!(f, "unsupported sample file version {v}"),
            Self::BadSource(s) => write!(f, "unknown sample source {s}"),
            Self::Truncated { offset } => write!(f, "sample file truncated at byte {offset}"),
            Self::BadRecord { offset } => write!(f, "malformed sample record at byte {offset}"),
            Self::Overlong { offset } => write!(f, "malformed number at byte {offset}"),
        }
    }
}

impl core::error::Error for WireError {}

fn zigzag(delta: u64) -> u64 {
    let signed = delta as i64;
    ((signed << 1) ^ (signed >> 63)) as u64
}

fn unzigzag(value: u64) -> u64 {
    (value >> 1) ^ (value & 1).wrapping_neg()
}

struct Writer<'o> {
    out: &'o mut [u8],
    len: usize,
}

impl Writer<'_> {
    fn bytes(&mut self, bytes: &[u8]) -> Result<(), WireError> {
        let end = self.len + bytes.len();
        self.out
            .get_mut(self.len..end)
            .ok_or(WireError::BufferTooSmall)?
            .copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }

    fn varint(&mut self, mut value: u64) -> Result<(), WireError> {
        loop {
            let low = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                return self.bytes(&[low]);
            }
            self.bytes(&[low | 0x80])?;
        }
    }
}

/// Writes the header into `out`; returns [`HEADER_LEN`].
pub fn encode_header(header: &ProfileHeader, out: &mut [u8]) -> Result<usize, WireError> {
    let mut writer = Writer { out, len: 0 };
    let source = match header.source {
        SampleSource::PmuOverflow => 0,
        SampleSource::GenericTimer => 1,
    };
    writer.bytes(&MAGIC)?;
    writer.bytes(&[VERSION, source])?;
    writer.bytes(&header.event.to_le_bytes())?;
    writer.bytes(&header.period.to_le_bytes())?;
    writer.bytes(&header.dropped.to_le_bytes())?;
    Ok(writer.len)
}

/// The PC a record's PC is delta-coded against: the previous record's when it is of the same
/// core, 0 otherwise.
fn pc_base(previous: Option<(u8, u64)>, core: u8) -> u64 {
    match previous {
        Some((previous_core, pc)) if previous_core == core => pc,
        _ => 0,
    }
}

/// Encodes records one at a time (records are delta-coded against the previous one of the same
/// core).
#[derive(Debug, Default, Clone, Copy)]
pub struct SampleEncoder {
    /// Core and PC of the previous record.
    previous: Option<(u8, u64)>,
}

impl SampleEncoder {
    /// An encoder for the first record after a header (or the first of a core's own buffer).
    pub const fn new() -> Self {
        Self { previous: None }
    }

    /// Writes one record into `out`; returns its length. On
    /// [`WireError::BufferTooSmall`] the encoder state is unchanged, so the record can be
    /// retried with a larger buffer. [`MAX_RECORD_LEN`] bytes always suffice.
    pub fn encode(&mut self, sample: &Sample, out: &mut [u8]) -> Result<usize, WireError> {
        let mut writer = Writer { out, len: 0 };
        let frames = sample.frames();
        // At most MAX_STACK_DEPTH (32) frames: fits a u8.
        writer.bytes(&[frames.len() as u8, sample.walk_end.code(), sample.core])?;
        let base = pc_base(self.previous, sample.core);
        writer.varint(zigzag(sample.pc.wrapping_sub(base)))?;
        writer.varint(sample.counter)?;
        writer.varint(zigzag(sample.lr.wrapping_sub(sample.pc)))?;
        let mut previous = sample.pc;
        for &frame in frames {
            writer.varint(zigzag(frame.wrapping_sub(previous)))?;
            previous = frame;
        }
        self.previous = Some((sample.core, sample.pc));
        Ok(writer.len)
    }
}

/// Writes a header and then every sample into `out`; returns the bytes written.
pub fn encode_profile<'s>(
    header: &ProfileHeader,
    samples: impl IntoIterator<Item = &'s Sample>,
    out: &mut [u8],
) -> Result<usize, WireError> {
    let mut len = encode_header(header, out)?;
    let mut encoder = SampleEncoder::new();
    for sample in samples {
        let rest = out.get_mut(len..).ok_or(WireError::BufferTooSmall)?;
        len += encoder.encode(sample, rest)?;
    }
    Ok(len)
}

/// Reads a profile: the header, then the records as an iterator of `Result<Sample, _>` that
/// stops after the first error.
pub struct ProfileDecoder<'b> {
    header: ProfileHeader,
    records: RecordDecoder<'b>,
}

impl<'b> ProfileDecoder<'b> {
    /// Checks and decodes the header of `bytes`.
    pub fn new(bytes: &'b [u8]) -> Result<Self, WireError> {
        if bytes.get(..4).is_some_and(|magic| magic != MAGIC) {
            return Err(WireError::BadMagic);
        }
        let header = bytes
            .get(..HEADER_LEN)
            .ok_or(WireError::Truncated { offset: 0 })?;
        let word = |at: usize| {
            let mut le = [0u8; 8];
            le.copy_from_slice(header.get(at..at + 8).unwrap_or(&[0; 8]));
            u64::from_le_bytes(le)
        };
        let version = header.get(4).copied().unwrap_or(0);
        if version != VERSION {
            return Err(WireError::UnsupportedVersion(version));
        }
        let source = match header.get(5).copied().unwrap_or(0xFF) {
            0 => SampleSource::PmuOverflow,
            1 => SampleSource::GenericTimer,
            other => return Err(WireError::BadSource(other)),
        };
        let event = u16::from_le_bytes([
            header.get(6).copied().unwrap_or(0),
            header.get(7).copied().unwrap_or(0),
        ]);
        Ok(Self {
            header: ProfileHeader {
                source,
                event,
                period: word(8),
                dropped: word(16),
            },
            records: RecordDecoder::new(bytes.get(HEADER_LEN..).unwrap_or(&[]), HEADER_LEN),
        })
    }

    /// The header.
    pub fn header(&self) -> ProfileHeader {
        self.header
    }
}

impl Iterator for ProfileDecoder<'_> {
    type Item = Result<Sample, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.records.next()
    }
}

/// Reads records without a header (a core's [`EncodedBuffer`](super::EncodedBuffer), or what
/// follows the header of a file), as an iterator of `Result<Sample, _>` that stops after the
/// first error.
pub struct RecordDecoder<'b> {
    bytes: &'b [u8],
    /// Where `bytes` starts in the file, for the offsets of errors.
    origin: usize,
    offset: usize,
    previous: Option<(u8, u64)>,
    failed: bool,
}

impl<'b> RecordDecoder<'b> {
    /// Records in `bytes`; error offsets are reported as `origin + ` the offset in `bytes`.
    pub fn new(bytes: &'b [u8], origin: usize) -> Self {
        Self {
            bytes,
            origin,
            offset: 0,
            previous: None,
            failed: false,
        }
    }

    fn varint(&mut self, record: usize) -> Result<u64, WireError> {
        let field = self.origin + self.offset;
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *self.bytes.get(self.offset).ok_or(WireError::Truncated {
                offset: self.origin + record,
            })?;
            self.offset += 1;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(WireError::Overlong { offset: field });
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(WireError::Overlong { offset: field })
    }

    fn record(&mut self) -> Result<Sample, WireError> {
        let start = self.offset;
        let at = self.origin + start;
        let (Some(&depth), Some(&end), Some(&core)) = (
            self.bytes.get(start),
            self.bytes.get(start + 1),
            self.bytes.get(start + 2),
        ) else {
            return Err(WireError::Truncated { offset: at });
        };
        let walk_end = WalkEnd::from_code(end).ok_or(WireError::BadRecord { offset: at })?;
        if usize::from(depth) > MAX_STACK_DEPTH {
            return Err(WireError::BadRecord { offset: at });
        }
        self.offset += 3;
        let base = pc_base(self.previous, core);
        let pc = base.wrapping_add(unzigzag(self.varint(start)?));
        let counter = self.varint(start)?;
        let lr = pc.wrapping_add(unzigzag(self.varint(start)?));
        let mut sample = Sample::new(pc, counter).with_lr(lr).on_core(core);
        sample.walk_end = walk_end;
        let mut previous = pc;
        for _ in 0..depth {
            let frame = previous.wrapping_add(unzigzag(self.varint(start)?));
            // Cannot fail: depth <= MAX_STACK_DEPTH was checked above.
            sample.push_frame(frame);
            previous = frame;
        }
        self.previous = Some((core, pc));
        Ok(sample)
    }
}

impl Iterator for RecordDecoder<'_> {
    type Item = Result<Sample, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.bytes.len() {
            return None;
        }
        let result = self.record();
        self.failed = result.is_err();
        Some(result)
    }
}
