//! One CTF 1.8 data stream: events packed into fixed-size packets in a buffer of the caller's,
//! each packet handed to a [`PacketSink`] when the next event does not fit.
//!
//! # A packet, byte by byte (little-endian, every field byte-aligned)
//! ```text
//!  0  magic             u32   0xC1FC1FC1
//!  4  uuid              [u8; 16]  the trace's (the metadata's `trace.uuid`)
//! 20  stream_id         u32   0 (the one stream class)
//! 24  timestamp_begin   u64   the first event's timestamp (the last one's for an empty packet)
//! 32  timestamp_end     u64   the last event's timestamp
//! 40  content_size      u64   bits of the packet, headers included
//! 48  packet_size       u64   the same: a packet ends where its content does
//! 56  packet_seq_num    u64   0, 1, 2, ... per stream (a refused packet leaves a gap)
//! 64  events_discarded  u64   events lost in this stream so far (a running count)
//! 72  cpu_id            u32   the producer's number (the SPU)
//! 76  events
//! ```
//! An event is a header, then its payload:
//! - **compact** (4 bytes): a little-endian `u32` holding the event id (0 to 30) in bits 0..5
//!   and the low 27 bits of the timestamp in bits 5..32. The reader takes the clock's high bits
//!   from the previous event of the stream (or the packet's `timestamp_begin`) and adds 2^27
//!   once when the low bits went down; so a compact header is used only when the event is less
//!   than 2^27 clock units after the previous one.
//! - **extended** (13 bytes): the byte 31, then the id as a `u32` and the whole timestamp as a
//!   `u64`: for ids from 31 on and for longer gaps.
//!
//! This is the "type 1" event header of the CTF specification (section 6.1.1, byte-packed),
//! the one LTTng calls `event_header_compact`.
//!
//! # Loss
//! Nothing is lost silently. An event whose timestamp is earlier than the stream's last one
//! (a CTF stream's clock never goes back) or that would not fit an empty packet is refused
//! with an [`EventLost`]; a packet the sink refuses loses its events. Both are counted
//! ([`StreamStats::discarded`]) and the count travels in the next packet's
//! `events_discarded`, so readers report the loss (babeltrace2 prints a "discarded events"
//! message), and the packet sequence number's gap names a refused packet.

use core::fmt;

/// The CTF packet magic number.
pub const CTF_MAGIC: u32 = 0xC1FC_1FC1;
/// Bytes of a packet's header and context, before its first event.
pub const PACKET_HEADER_BYTES: usize = 76;
/// The smallest packet buffer a stream takes: the header and room for events of up to
/// 108 bytes (the largest of pmprobe's is 31).
pub const MIN_PACKET_BYTES: usize = 196;
/// The first event id that needs the extended header.
pub const EXTENDED_ID: u32 = 31;
/// Timestamps a compact header can advance: less than 2^27 clock units.
pub const COMPACT_SPAN: u64 = 1 << 27;

const COMPACT_HEADER_BYTES: usize = 4;
const EXTENDED_HEADER_BYTES: usize = 13;

/// Where finished packets go: a file, a buffer, a link.
pub trait PacketSink {
    /// Takes one whole packet. [`PacketRefused`] when it cannot (its events are then counted
    /// as discarded); a sink that can report why keeps the reason itself.
    fn take(&mut self, packet: &[u8]) -> Result<(), PacketRefused>;
}

impl<S: PacketSink + ?Sized> PacketSink for &mut S {
    fn take(&mut self, packet: &[u8]) -> Result<(), PacketRefused> {
        (**self).take(packet)
    }
}

/// A sink did not take a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PacketRefused;

impl fmt::Display for PacketRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the packet sink refused a packet")
    }
}

impl core::error::Error for PacketRefused {}

/// The packet buffer given to [`StreamWriter::new`] is shorter than [`MIN_PACKET_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PacketBufferTooSmall {
    /// Its length.
    pub bytes: usize,
}

impl fmt::Display for PacketBufferTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a CTF packet buffer needs at least {MIN_PACKET_BYTES} bytes, not {}",
            self.bytes
        )
    }
}

impl core::error::Error for PacketBufferTooSmall {}

/// Why an event is not in the stream (it is counted in [`StreamStats::discarded`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EventLost {
    /// Its timestamp is earlier than the last one written to the stream.
    OutOfOrder {
        /// The event's timestamp.
        timestamp: u64,
        /// The stream's last timestamp.
        last: u64,
    },
    /// Header and payload need more room than an empty packet has.
    TooLarge {
        /// The bytes the event needs.
        bytes: usize,
        /// The bytes an empty packet has for events.
        room: usize,
    },
}

impl fmt::Display for EventLost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfOrder { timestamp, last } => write!(
                f,
                "event at {timestamp} is earlier than the stream's last event at {last}"
            ),
            Self::TooLarge { bytes, room } => write!(
                f,
                "an event of {bytes} bytes does not fit a packet's {room} bytes of room"
            ),
        }
    }
}

impl core::error::Error for EventLost {}

/// What a stream is: the trace it belongs to and the producer it describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StreamConfig {
    /// The trace's UUID (the same in the metadata and every packet).
    pub uuid: [u8; 16],
    /// The packet context's `cpu_id`: which producer (SPU, core) the stream's events are of.
    pub cpu_id: u32,
}

/// What a stream did, so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StreamStats {
    /// Events in packets the sink took.
    pub events: u64,
    /// Events lost: refused ([`EventLost`]) or in packets the sink refused.
    pub discarded: u64,
    /// Of `discarded`, those refused for a timestamp earlier than the stream's last.
    pub out_of_order: u64,
    /// Packets the sink took.
    pub packets: u64,
    /// Packets the sink refused.
    pub refused_packets: u64,
    /// Bytes of the packets the sink took.
    pub bytes: u64,
}

/// One CTF stream being written (see the module documentation for the layout).
pub struct StreamWriter<'b, S> {
    packet: &'b mut [u8],
    /// Bytes of the open packet used, its header included.
    len: usize,
    /// Events in the open packet.
    in_packet: u64,
    /// The open packet's first timestamp.
    begin: u64,
    /// The last timestamp written (the clock's value as a reader has it).
    last: u64,
    sequence: u64,
    config: StreamConfig,
    stats: StreamStats,
    sink: S,
}

impl<'b, S: PacketSink> StreamWriter<'b, S> {
    /// A stream whose packets are built in `packet` (its length is the largest packet) and
    /// handed to `sink`.
    pub fn new(
        packet: &'b mut [u8],
        sink: S,
        config: StreamConfig,
    ) -> Result<Self, PacketBufferTooSmall> {
        if packet.len() < MIN_PACKET_BYTES {
            return Err(PacketBufferTooSmall {
                bytes: packet.len(),
            });
        }
        Ok(Self {
            packet,
            len: PACKET_HEADER_BYTES,
            in_packet: 0,
            begin: 0,
            last: 0,
            sequence: 0,
            config,
            stats: StreamStats::default(),
            sink,
        })
    }

    /// Appends an event of class `id` at `timestamp` with its payload's bytes.
    #[inline]
    pub fn write(&mut self, id: u32, timestamp: u64, payload: &[u8]) -> Result<(), EventLost> {
        match self.compact_slot(id, timestamp, payload.len()) {
            Some(body) => {
                body.copy_from_slice(payload);
                Ok(())
            }
            None => self.write_slow(id, timestamp, payload),
        }
    }

    /// Appends an event of class `id` at `timestamp` whose `N`-byte payload `fill` writes in
    /// place (what pmprobe's event methods use: no copy of the payload).
    #[inline(always)]
    pub fn write_with<const N: usize>(
        &mut self,
        id: u32,
        timestamp: u64,
        fill: impl FnOnce(&mut [u8; N]),
    ) -> Result<(), EventLost> {
        if let Some(body) = self.compact_slot(id, timestamp, N)
            && let Ok(body) = <&mut [u8; N]>::try_from(body)
        {
            fill(body);
            return Ok(());
        }
        let mut payload = [0u8; N];
        fill(&mut payload);
        self.write_slow(id, timestamp, &payload)
    }

    /// The common case in one test: a packet already open (its clock set), a timestamp no
    /// earlier than the last and less than 2^27 after it (the wrapping difference of an earlier
    /// one is huge), a compact id, room left. Writes the compact header and counts the event;
    /// the payload's `len` bytes are the caller's to fill.
    #[inline(always)]
    fn compact_slot(&mut self, id: u32, timestamp: u64, len: usize) -> Option<&mut [u8]> {
        let delta = timestamp.wrapping_sub(self.last);
        if delta >= COMPACT_SPAN || id >= EXTENDED_ID || self.in_packet == 0 {
            return None;
        }
        let start = self.len;
        let end = start + COMPACT_HEADER_BYTES + len;
        if end > self.packet.len() {
            return None;
        }
        self.len = end;
        self.last = timestamp;
        self.in_packet += 1;
        let slot = self.packet.get_mut(start..end)?;
        let (head, body) = slot.split_at_mut(COMPACT_HEADER_BYTES);
        // The low 27 bits of the timestamp above the 5-bit id.
        let word = id | ((timestamp as u32) << 5);
        head.copy_from_slice(&word.to_le_bytes());
        Some(body)
    }

    /// [`write`](Self::write) for every other case: a new packet, an extended header, an
    /// event out of order.
    #[inline(never)]
    fn write_slow(&mut self, id: u32, timestamp: u64, payload: &[u8]) -> Result<(), EventLost> {
        if timestamp < self.last {
            return Err(self.lose_out_of_order(timestamp));
        }
        if self.in_packet == 0 {
            self.begin = timestamp;
            self.last = timestamp;
        }
        let compact = id < EXTENDED_ID && timestamp - self.last < COMPACT_SPAN;
        let header = if compact {
            COMPACT_HEADER_BYTES
        } else {
            EXTENDED_HEADER_BYTES
        };
        let end = self.len + header + payload.len();
        let Some(slot) = self.packet.get_mut(self.len..end) else {
            return self.write_in_new_packet(id, timestamp, payload);
        };
        let (head, body) = slot.split_at_mut(header);
        if compact {
            let word = id | ((timestamp as u32) << 5);
            head.copy_from_slice(&word.to_le_bytes());
        } else {
            write_extended_header(head, id, timestamp);
        }
        body.copy_from_slice(payload);
        self.len = end;
        self.last = timestamp;
        self.in_packet += 1;
        Ok(())
    }

    /// The event did not fit the open packet: closes it and writes the event into a new one.
    fn write_in_new_packet(
        &mut self,
        id: u32,
        timestamp: u64,
        payload: &[u8],
    ) -> Result<(), EventLost> {
        let room = self.packet.len() - PACKET_HEADER_BYTES;
        // An empty packet starts at the event's timestamp, so the compact header fits a
        // low id.
        let header = if id < EXTENDED_ID {
            COMPACT_HEADER_BYTES
        } else {
            EXTENDED_HEADER_BYTES
        };
        if header + payload.len() > room {
            self.count_lost(1);
            return Err(EventLost::TooLarge {
                bytes: header + payload.len(),
                room,
            });
        }
        self.close_packet();
        self.write(id, timestamp, payload)
    }

    #[cold]
    fn lose_out_of_order(&mut self, timestamp: u64) -> EventLost {
        self.count_lost(1);
        self.stats.out_of_order = self.stats.out_of_order.saturating_add(1);
        EventLost::OutOfOrder {
            timestamp,
            last: self.last,
        }
    }

    fn count_lost(&mut self, events: u64) {
        self.stats.discarded = self.stats.discarded.saturating_add(events);
    }

    /// Fills in the open packet's header and hands the packet to the sink; the next event
    /// starts a new packet.
    fn close_packet(&mut self) {
        let bits = (self.len as u64) * 8;
        let fields: [&[u8]; 10] = [
            &CTF_MAGIC.to_le_bytes(),
            &self.config.uuid,
            &0u32.to_le_bytes(),
            &self.begin.to_le_bytes(),
            &self.last.to_le_bytes(),
            &bits.to_le_bytes(),
            &bits.to_le_bytes(),
            &self.sequence.to_le_bytes(),
            &self.stats.discarded.to_le_bytes(),
            &self.config.cpu_id.to_le_bytes(),
        ];
        let mut at = 0;
        for field in fields {
            if let Some(slot) = self.packet.get_mut(at..at + field.len()) {
                slot.copy_from_slice(field);
            }
            at += field.len();
        }
        let packet = self.packet.get(..self.len).unwrap_or_default();
        match self.sink.take(packet) {
            Ok(()) => {
                self.stats.events = self.stats.events.saturating_add(self.in_packet);
                self.stats.packets += 1;
                self.stats.bytes += self.len as u64;
            }
            Err(PacketRefused) => {
                self.count_lost(self.in_packet);
                self.stats.refused_packets += 1;
            }
        }
        self.sequence += 1;
        self.len = PACKET_HEADER_BYTES;
        self.in_packet = 0;
        self.begin = self.last;
    }

    /// Hands the open packet to the sink now if it holds an event (a reader sees the stream
    /// up to here).
    pub fn flush(&mut self) {
        if self.in_packet > 0 {
            self.close_packet();
        }
    }

    /// Events in the open packet, not yet given to the sink.
    pub fn pending(&self) -> u64 {
        self.in_packet
    }

    /// The last timestamp written.
    pub fn last_timestamp(&self) -> u64 {
        self.last
    }

    /// What the stream did so far (events still in the open packet are not in it yet).
    pub fn stats(&self) -> StreamStats {
        self.stats
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Closes the stream: the open packet goes to the sink (a stream that never had a packet
    /// gets an empty one, so that it is a valid CTF stream whose count of discarded events a
    /// reader sees); returns the sink and the stream's figures.
    pub fn finish(mut self) -> (S, StreamStats) {
        if self.in_packet > 0 || self.sequence == 0 {
            self.close_packet();
        }
        (self.sink, self.stats)
    }
}

fn write_extended_header(head: &mut [u8], id: u32, timestamp: u64) {
    let mut bytes = [0u8; EXTENDED_HEADER_BYTES];
    bytes[0] = EXTENDED_ID as u8;
    bytes[1..5].copy_from_slice(&id.to_le_bytes());
    bytes[5..].copy_from_slice(&timestamp.to_le_bytes());
    head.copy_from_slice(&bytes);
}

/// A [`PacketSink`] that appends packets to a caller's buffer: a whole stream file in memory,
/// to write out later. A packet that does not fit is refused and counted.
pub struct PacketStore<'b> {
    bytes: &'b mut [u8],
    len: usize,
}

impl<'b> PacketStore<'b> {
    /// An empty store over `bytes`.
    pub fn new(bytes: &'b mut [u8]) -> Self {
        Self { bytes, len: 0 }
    }

    /// The packets kept, one after the other: the stream file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }

    /// Forgets the packets kept.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl PacketSink for PacketStore<'_> {
    fn take(&mut self, packet: &[u8]) -> Result<(), PacketRefused> {
        let end = self.len + packet.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(PacketRefused)?;
        slot.copy_from_slice(packet);
        self.len = end;
        Ok(())
    }
}
