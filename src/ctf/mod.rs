//! CTF 1.8 traces (the Common Trace Format that babeltrace2, Trace Compass and LTTng read),
//! written without a heap: the probe framework's and the SPU model's events as CTF streams.
//!
//! A CTF trace is a directory: a `metadata` file, the TSDL text that describes the binary
//! layouts ([`write_metadata`]), and one file per stream, a sequence of packets
//! ([`StreamWriter`]). The layouts are fixed ones of pmprobe's ([`events`]): memory accesses,
//! DMA transfers with their issue and completion cycles, runs of stalled cycles, PMU readings
//! as counters, PC events. Everything lives in buffers of the caller's: each stream builds one
//! packet at a time in its packet buffer and hands it, full, to a [`PacketSink`] (a file, a
//! [`PacketStore`] in memory); what a sink refuses, or an event a stream refuses, is counted
//! and the count is in the trace for readers to report.
//!
//! An event costs 4 bytes of header (its id and the low 27 bits of its timestamp; 13 bytes
//! after a gap of 2^27 clock units or more) and its payload: 14 bytes for an SPU load or store.
//!
//! - [`SpuTrace`]: an `SpuObserver` writing an SPU's memory accesses, DMA transfers, stalls
//!   and PC events ([`TracePcEvent`]) into four streams; composed with the model's other
//!   observers, or attached to an `SpuProbes`' points ([`SpuTraceListeners`]);
//! - [`StreamWriter::pmu_count`]: a PMU reading (raw count, times enabled and running), as a
//!   counter sample;
//! - a `MutListener<StreamWriter>` listens to any `MemAccess` or `DmaEvent` probe point.
//!
//! No crate writes CTF without an allocator (barectf generates C; the Rust ones parse), so
//! this is written from the specification (CTF 1.8.3).
//!
//! # Example
//! ```
//! use pmprobe::ctf::{
//!     ClockDescription, PacketStore, StreamConfig, StreamWriter, TraceDescription,
//!     write_metadata,
//! };
//! use pmprobe::probe::listeners::{AccessKind, MemAccess};
//!
//! let uuid = pmprobe::ctf::uuid_v4([7; 16]);
//! let (mut packet, mut file) = ([0u8; 512], [0u8; 4096]);
//! let mut stream = StreamWriter::new(
//!     &mut packet,
//!     PacketStore::new(&mut file),
//!     StreamConfig { uuid, cpu_id: 0 },
//! )?;
//! let access = MemAccess { tick: 5, pc: 0x40, address: 0x1000, size: 16, kind: AccessKind::Read };
//! stream.mem_access(&access)?;
//! let (store, stats) = stream.finish();
//! assert_eq!((stats.events, store.bytes().len()), (1, 76 + 14));
//!
//! let mut metadata = heapless::String::<8192>::new();
//! let clock = ClockDescription { name: "spu_cycles", description: "SPU cycles", frequency: 3_200_000_000 };
//! write_metadata(&mut metadata, &TraceDescription { uuid, clock, pc_events: &[], env: &[] })?;
//! assert!(metadata.starts_with("/* CTF 1.8 */"));
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

pub mod events;
mod listen;
mod metadata;
mod pc_events;
mod spu_listeners;
mod spu_trace;
mod stream;

pub use metadata::{ClockDescription, MetadataError, TraceDescription, uuid_v4, write_metadata};
pub use pc_events::{HITS_PER_INSTRUCTION, PcEventHits, TracePcEvent};
pub use spu_listeners::{RetiredPcs, SpuTraceListeners};
pub use spu_trace::{PC_EVENTS, SPU_CLOCK_HZ, SpuStreams, SpuTrace};
pub use stream::{
    COMPACT_SPAN, CTF_MAGIC, EXTENDED_ID, EventLost, MIN_PACKET_BYTES, PACKET_HEADER_BYTES,
    PacketBufferTooSmall, PacketRefused, PacketSink, PacketStore, StreamConfig, StreamStats,
    StreamWriter,
};
