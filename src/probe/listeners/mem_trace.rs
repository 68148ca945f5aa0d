//! Memory trace recorder: a fixed-capacity ring of [`MemAccess`] records.
//!
//! # Loss policy
//! The ring never loses a record silently. When it is full, the [`OverflowPolicy`] chosen at
//! construction decides which record is lost, and every lost record is counted in
//! [`MemTrace::dropped`]:
//! - [`OverflowPolicy::DropNewest`] keeps the oldest records (a trace with a clean start; the
//!   consumer is expected to [`drain`](MemTrace::drain) often enough);
//! - [`OverflowPolicy::OverwriteOldest`] keeps the most recent records (a flight recorder).
//!
//! # Output formats
//! - Dinero IV "din" text ([`MemTrace::write_din`], one [`DinRecord`] per line, read back by
//!   [`DinDecoder`]): one `<label> <hex address>` line per record, label 0 read, 1 write, 2
//!   instruction fetch, address in lowercase hex without `0x`. The decoder also takes the
//!   spellings other tools write: upper-case hex, a `0x` prefix, leading zeros, tabs or several
//!   spaces, `\r\n` line ends and blank lines; the format has no tick, PC or size.
//! - A compact binary form ([`MemTrace::encode_binary`], read back by [`TraceDecoder`]):
//!   ```text
//!   header : "PMTR" (4 bytes) , version = 1 (1 byte)
//!   record : kind (1 byte: the Dinero label 0, 1 or 2)
//!            tick    delta  (zigzag LEB128)
//!            pc      delta  (zigzag LEB128)
//!            address delta  (zigzag LEB128)
//!            size           (LEB128)
//!   ```
//!   Deltas are taken from the previous record of the same encoded block (the first record
//!   from 0) with wrapping 64-bit arithmetic; zigzag maps the signed delta `d` to
//!   `(d << 1) ^ (d >> 63)`; LEB128 stores 7 bits per byte, least significant first, with the
//!   high bit set on all but the last byte. A sequential trace costs about 5 bytes a record.

use core::fmt;

use super::{AccessKind, MemAccess};
use crate::probe::ListenerMut;

/// Which record is lost when the ring is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OverflowPolicy {
    /// The incoming record is dropped.
    DropNewest,
    /// The oldest record is overwritten.
    OverwriteOldest,
}

/// The magic bytes that start a binary trace.
pub const BINARY_MAGIC: [u8; 4] = *b"PMTR";
/// The binary format version written by this crate.
pub const BINARY_VERSION: u8 = 1;

/// Why [`MemTrace::encode_binary`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TraceEncodeError {
    /// The output buffer is too small; `records_written` complete records fit.
    BufferTooSmall {
        /// Records that fit before the buffer ran out.
        records_written: usize,
    },
}

impl fmt::Display for TraceEncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BufferTooSmall { records_written } => write!(
                f,
                "trace buffer too small (only {records_written} records fit)"
            ),
        }
    }
}

impl core::error::Error for TraceEncodeError {}

/// Why [`TraceDecoder`] rejected its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TraceDecodeError {
    /// The input does not start with `PMTR`.
    BadMagic,
    /// The version byte is not [`BINARY_VERSION`].
    UnsupportedVersion(u8),
    /// A record's kind byte is not 0, 1 or 2.
    BadKind {
        /// Byte offset of the kind byte.
        offset: usize,
        /// Its value.
        value: u8,
    },
    /// The input ends inside a record.
    Truncated {
        /// Byte offset where the record started.
        offset: usize,
    },
    /// A varint is longer than 10 bytes or a size exceeds `u32`.
    Overlong {
        /// Byte offset of the offending field.
        offset: usize,
    },
}

impl fmt::Display for TraceDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadMagic => f.write_str("not a pmprobe binary trace (bad magic)"),
            Self::UnsupportedVersion(v) => write!(f, "unsupported trace version {v}"),
            Self::BadKind { offset, value } => {
                write!(f, "bad access kind {value} at byte {offset}")
            }
            Self::Truncated { offset } => write!(f, "trace truncated in record at byte {offset}"),
            Self::Overlong { offset } => write!(f, "malformed number at byte {offset}"),
        }
    }
}

impl core::error::Error for TraceDecodeError {}

/// A ring of up to `N` memory access records.
pub struct MemTrace<const N: usize> {
    records: heapless::Deque<MemAccess, N>,
    policy: OverflowPolicy,
    dropped: u64,
}

impl<const N: usize> MemTrace<N> {
    /// An empty recorder.
    pub const fn new(policy: OverflowPolicy) -> Self {
        Self {
            records: heapless::Deque::new(),
            policy,
            dropped: 0,
        }
    }

    /// The loss policy.
    pub fn policy(&self) -> OverflowPolicy {
        self.policy
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no record is held.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The fixed capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Records lost to the overflow policy since construction.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Appends a record; returns `false` when a record (this one or the oldest, by policy) was
    /// lost.
    pub fn record(&mut self, access: MemAccess) -> bool {
        let Err(access) = self.records.push_back(access) else {
            return true;
        };
        self.dropped = self.dropped.saturating_add(1);
        if self.policy == OverflowPolicy::OverwriteOldest {
            self.records.pop_front();
            // Cannot fail: one slot was just freed (and N == 0 holds nothing to pop or push).
            let _ = self.records.push_back(access);
        }
        false
    }

    /// Appends `accesses` in order, as [`record`](Self::record) for each would; returns how
    /// many records were lost to the overflow policy. The ring's room is checked once for
    /// the batch, and under [`OverflowPolicy::DropNewest`] the records that do not fit are
    /// counted at once.
    pub fn record_all(&mut self, accesses: &[MemAccess]) -> usize {
        let room = N - self.records.len();
        let (fits, rest) = accesses.split_at(accesses.len().min(room));
        for &access in fits {
            // Cannot fail: `fits` is no longer than the room left.
            let _ = self.records.push_back(access);
        }
        if self.policy == OverflowPolicy::DropNewest {
            // Every one of the rest meets a full ring and is the one dropped.
            let lost = u64::try_from(rest.len()).unwrap_or(u64::MAX);
            self.dropped = self.dropped.saturating_add(lost);
            return rest.len();
        }
        let mut lost = 0;
        for &access in rest {
            lost += usize::from(!self.record(access));
        }
        lost
    }

    /// The held records, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &MemAccess> + '_ {
        self.records.iter()
    }

    /// Removes and returns the oldest record.
    pub fn pop(&mut self) -> Option<MemAccess> {
        self.records.pop_front()
    }

    /// Removes and yields records, oldest first, until the ring is empty.
    pub fn drain(&mut self) -> impl Iterator<Item = MemAccess> + '_ {
        core::iter::from_fn(move || self.records.pop_front())
    }

    /// Forgets all records (the drop count is kept).
    pub fn clear(&mut self) {
        self.records.clear();
    }

    /// Writes the held records as Dinero IV "din" lines (see the module docs).
    pub fn write_din(&self, out: &mut impl fmt::Write) -> fmt::Result {
        for access in self.records.iter() {
            writeln!(out, "{}", DinRecord::from(access))?;
        }
        Ok(())
    }

    /// Writes the held records in the binary form (see the module docs) into `out`; returns
    /// the number of bytes written.
    pub fn encode_binary(&self, out: &mut [u8]) -> Result<usize, TraceEncodeError> {
        let mut writer = ByteWriter { out, len: 0 };
        let header_fits = BINARY_MAGIC
            .iter()
            .chain(&[BINARY_VERSION])
            .all(|&byte| writer.push(byte));
        if !header_fits {
            return Err(TraceEncodeError::BufferTooSmall { records_written: 0 });
        }
        let mut previous = Previous::default();
        for (written, access) in self.records.iter().enumerate() {
            if !writer.record(access, &previous) {
                return Err(TraceEncodeError::BufferTooSmall {
                    records_written: written,
                });
            }
            previous = Previous::of(access);
        }
        Ok(writer.len)
    }
}

impl<const N: usize> ListenerMut<MemAccess> for MemTrace<N> {
    fn notify_mut(&mut self, access: &MemAccess) {
        self.record(*access);
    }

    fn notify_mut_all(&mut self, accesses: &[MemAccess]) {
        self.record_all(accesses);
    }
}

#[derive(Default, Clone, Copy)]
struct Previous {
    tick: u64,
    pc: u64,
    address: u64,
}

impl Previous {
    fn of(access: &MemAccess) -> Self {
        Self {
            tick: access.tick,
            pc: access.pc,
            address: access.address,
        }
    }
}

fn zigzag(delta: u64) -> u64 {
    let signed = delta as i64;
    ((signed << 1) ^ (signed >> 63)) as u64
}

fn unzigzag(value: u64) -> u64 {
    (value >> 1) ^ (value & 1).wrapping_neg()
}

struct ByteWriter<'o> {
    out: &'o mut [u8],
    len: usize,
}

impl ByteWriter<'_> {
    fn push(&mut self, byte: u8) -> bool {
        match self.out.get_mut(self.len) {
            Some(slot) => {
                *slot = byte;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    fn varint(&mut self, mut value: u64) -> bool {
        loop {
            let low = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                return self.push(low);
            }
            if !self.push(low | 0x80) {
                return false;
            }
        }
    }

    fn record(&mut self, access: &MemAccess, previous: &Previous) -> bool {
        self.push(access.kind.dinero_label())
            && self.varint(zigzag(access.tick.wrapping_sub(previous.tick)))
            && self.varint(zigzag(access.pc.wrapping_sub(previous.pc)))
            && self.varint(zigzag(access.address.wrapping_sub(previous.address)))
            && self.varint(u64::from(access.size))
    }
}

/// Reads records back from the binary form; an iterator of `Result<MemAccess, _>` that stops
/// after the first error.
pub struct TraceDecoder<'b> {
    bytes: &'b [u8],
    offset: usize,
    previous: Previous,
    failed: bool,
}

impl<'b> TraceDecoder<'b> {
    /// Checks the header of `bytes`.
    pub fn new(bytes: &'b [u8]) -> Result<Self, TraceDecodeError> {
        if bytes.get(..4) != Some(&BINARY_MAGIC[..]) {
            return Err(TraceDecodeError::BadMagic);
        }
        match bytes.get(4) {
            Some(&BINARY_VERSION) => Ok(Self {
                bytes,
                offset: 5,
                previous: Previous::default(),
                failed: false,
            }),
            Some(&other) => Err(TraceDecodeError::UnsupportedVersion(other)),
            None => Err(TraceDecodeError::BadMagic),
        }
    }

    fn varint(&mut self, record_start: usize) -> Result<u64, TraceDecodeError> {
        let field_start = self.offset;
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *self
                .bytes
                .get(self.offset)
                .ok_or(TraceDecodeError::Truncated {
                    offset: record_start,
                })?;
            self.offset += 1;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(TraceDecodeError::Overlong {
                    offset: field_start,
                });
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(TraceDecodeError::Overlong {
            offset: field_start,
        })
    }

    fn decode_record(&mut self) -> Result<MemAccess, TraceDecodeError> {
        let start = self.offset;
        let label = self.bytes.get(start).copied().unwrap_or(0);
        let kind = AccessKind::from_dinero_label(label).ok_or(TraceDecodeError::BadKind {
            offset: start,
            value: label,
        })?;
        self.offset += 1;
        let tick = self
            .previous
            .tick
            .wrapping_add(unzigzag(self.varint(start)?));
        let pc = self.previous.pc.wrapping_add(unzigzag(self.varint(start)?));
        let address = self
            .previous
            .address
            .wrapping_add(unzigzag(self.varint(start)?));
        let size_offset = self.offset;
        let size = u32::try_from(self.varint(start)?).map_err(|_| TraceDecodeError::Overlong {
            offset: size_offset,
        })?;
        let access = MemAccess {
            tick,
            pc,
            address,
            size,
            kind,
        };
        self.previous = Previous::of(&access);
        Ok(access)
    }
}

impl Iterator for TraceDecoder<'_> {
    type Item = Result<MemAccess, TraceDecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.bytes.len() {
            return None;
        }
        let result = self.decode_record();
        self.failed = result.is_err();
        Some(result)
    }
}

/// One line of a Dinero IV "din" trace: what the format records of a [`MemAccess`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DinRecord {
    /// Read, write or instruction fetch (the line's label).
    pub kind: AccessKind,
    /// The address.
    pub address: u64,
}

impl From<&MemAccess> for DinRecord {
    fn from(access: &MemAccess) -> Self {
        Self {
            kind: access.kind,
            address: access.address,
        }
    }
}

/// The line without its end: `<label> <address in lowercase hex>`.
impl fmt::Display for DinRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:x}", self.kind.dinero_label(), self.address)
    }
}

/// Why [`DinDecoder`] rejected a line (`line` counts from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DinDecodeError {
    /// The label is not 0 (read), 1 (write) or 2 (instruction fetch); Dinero's escape labels 3
    /// and 4 have no [`AccessKind`].
    BadLabel {
        /// The line.
        line: usize,
    },
    /// The address is missing, not hexadecimal, or wider than 64 bits.
    BadAddress {
        /// The line.
        line: usize,
    },
    /// Something follows the address.
    TrailingText {
        /// The line.
        line: usize,
    },
}

impl fmt::Display for DinDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadLabel { line } => {
                write!(f, "din line {line}: the label is not 0, 1 or 2")
            }
            Self::BadAddress { line } => {
                write!(
                    f,
                    "din line {line}: expected a hexadecimal address of at most 64 bits"
                )
            }
            Self::TrailingText { line } => {
                write!(f, "din line {line}: unexpected text after the address")
            }
        }
    }
}

impl core::error::Error for DinDecodeError {}

/// Reads a din trace (see the module docs): an iterator of `Result<DinRecord, _>` over its
/// lines, skipping blank ones, that stops after the first error. Takes bytes, so a file need
/// not be checked for UTF-8 first (anything but ASCII is an error anyway).
pub struct DinDecoder<'t> {
    text: &'t [u8],
    offset: usize,
    line: usize,
    failed: bool,
}

impl<'t> DinDecoder<'t> {
    /// A decoder over the whole trace text.
    pub const fn new(text: &'t [u8]) -> Self {
        Self {
            text,
            offset: 0,
            line: 0,
            failed: false,
        }
    }

    fn decode_line(line: &[u8], number: usize) -> Result<DinRecord, DinDecodeError> {
        let mut fields = line
            .split(|&byte| byte == b' ' || byte == b'\t')
            .filter(|field| !field.is_empty());
        let kind = match fields.next() {
            Some([digit @ b'0'..=b'2']) => AccessKind::from_dinero_label(digit - b'0'),
            _ => None,
        }
        .ok_or(DinDecodeError::BadLabel { line: number })?;
        let address = fields
            .next()
            .and_then(parse_hex)
            .ok_or(DinDecodeError::BadAddress { line: number })?;
        if fields.next().is_some() {
            return Err(DinDecodeError::TrailingText { line: number });
        }
        Ok(DinRecord { kind, address })
    }
}

/// A hexadecimal `u64`, with or without `0x`/`0X` (at least one digit).
fn parse_hex(field: &[u8]) -> Option<u64> {
    let digits = match field {
        [b'0', b'x' | b'X', rest @ ..] => rest,
        _ => field,
    };
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |value, &byte| {
        let digit = char::from(byte).to_digit(16)?;
        value.checked_mul(16)?.checked_add(u64::from(digit))
    })
}

impl Iterator for DinDecoder<'_> {
    type Item = Result<DinRecord, DinDecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.failed && self.offset < self.text.len() {
            let rest = self.text.get(self.offset..).unwrap_or_default();
            let len = rest.iter().position(|&byte| byte == b'\n');
            let line = rest.get(..len.unwrap_or(rest.len())).unwrap_or_default();
            self.offset += len.map_or(rest.len(), |len| len + 1);
            self.line += 1;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(|&byte| byte == b' ' || byte == b'\t') {
                continue;
            }
            let result = Self::decode_line(line, self.line);
            self.failed = result.is_err();
            return Some(result);
        }
        None
    }
}
