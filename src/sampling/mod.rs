//! Sampling profiler, firmware side: samples with call stacks, a fixed buffer that counts what
//! it drops, a probe point, skid statistics and the binary wire format the host tool reads.
//!
//! - `sample`: [`Sample`] (PC, return addresses, counter value at the sample);
//! - `frame_walk`: the AArch64 frame-pointer walk, bounded and fault-free;
//! - `store`: [`SampleStore`], where a sampler keeps samples, with a drop count: `buffer`'s
//!   fixed [`SampleBuffer`] of whole samples, or `encoded_buffer`'s [`EncodedBuffer`] of
//!   wire-format records (what the firmware profiler uses);
//! - `skid`: [`SkidHistogram`], events between the programmed trigger and the handler;
//! - `sampler`: [`Sampler`], what the sampling interrupt handler calls;
//! - `wire`: the `PMPS` file format, encoder and decoder.
//!
//! # Example (host: a captured stack instead of the live one)
//! ```
//! use pmprobe::sampling::{
//!     InterruptedContext, ProfileDecoder, SampleBuffer, SampleSource, SampleStore, Sampler,
//!     SliceMemory, StackBounds, encode_profile,
//! };
//! // Two frame records: 0x1000 -> 0x1010 -> end, return addresses 0x4000_0100 and 0x4000_0200.
//! let words = [0x1010, 0x4000_0100, 0, 0x4000_0200];
//! let memory = SliceMemory { base: 0x1000, words: &words };
//! let bounds = StackBounds { low: 0x1000, high: 0x1020 };
//! let mut sampler: Sampler<SampleBuffer<16>> =
//!     Sampler::new(SampleSource::PmuOverflow, 0x08, 10_000, SampleBuffer::new());
//! let context = InterruptedContext { pc: 0x4000_0040, fp: 0x1000, lr: 0, counter: 3 };
//! assert!(sampler.take_sample(context, bounds, &memory));
//! assert_eq!(sampler.store().kept(), 1);
//! let sample = sampler.store().samples()[0];
//! assert_eq!(sample.frames(), &[0x4000_0100, 0x4000_0200]);
//!
//! let mut file = [0u8; 256];
//! let len = encode_profile(&sampler.header(), sampler.store().samples(), &mut file)?;
//! let decoded = ProfileDecoder::new(&file[..len])?;
//! assert_eq!(decoded.header().period, 10_000);
//! assert_eq!(decoded.collect::<Result<Vec<_>, _>>()?, vec![sample]);
//! # Ok::<(), pmprobe::sampling::WireError>(())
//! ```

#![forbid(unsafe_code)]

mod buffer;
mod encoded_buffer;
mod frame_walk;
mod sample;
mod sampler;
mod skid;
mod store;
mod wire;

pub use buffer::SampleBuffer;
pub use encoded_buffer::EncodedBuffer;
pub use frame_walk::{SliceMemory, StackBounds, StackMemory, walk_frames};
pub use sample::{MAX_STACK_DEPTH, Sample, WalkEnd};
pub use sampler::{InterruptedContext, Sampler};
pub use skid::{SKID_BINS, SkidHistogram};
pub use store::SampleStore;
pub use wire::{
    HEADER_LEN, MAGIC, MAX_RECORD_LEN, ProfileDecoder, ProfileHeader, RecordDecoder, SampleEncoder,
    SampleSource, VERSION, WireError, encode_header, encode_profile,
};
