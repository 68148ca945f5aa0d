//! A fixed byte buffer holding samples already encoded as `PMPS` records.
//!
//! The sampling interrupt handler encodes each sample as it is taken (a few hundred
//! instructions), so memory holds 10 to 30 bytes per sample instead of a whole [`Sample`]
//! with room for 32 frames, and writing the profile out is one copy of the bytes after the
//! file header. Each core has its own buffer: records are delta-coded per core, so the buffers
//! of several cores can be written one after the other (see [`wire`](super::wire)).

use super::sample::Sample;
use super::store::SampleStore;
use super::wire::{RecordDecoder, SampleEncoder};

/// `BYTES` bytes of encoded samples, oldest first. A record that does not fit in the space
/// left is dropped and counted (a later, smaller one may still fit); the count goes into the
/// file header, so the host tool can say how much of the run is missing.
pub struct EncodedBuffer<const BYTES: usize> {
    bytes: [u8; BYTES],
    len: usize,
    kept: u64,
    dropped: u64,
    encoder: SampleEncoder,
}

impl<const BYTES: usize> Default for EncodedBuffer<BYTES> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const BYTES: usize> EncodedBuffer<BYTES> {
    /// An empty buffer (all-zero, so a `static` one lives in `.bss`).
    pub const fn new() -> Self {
        Self {
            bytes: [0; BYTES],
            len: 0,
            kept: 0,
            dropped: 0,
            encoder: SampleEncoder::new(),
        }
    }

    /// The encoded records kept, oldest first: what follows the header in a `PMPS` file.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&self.bytes)
    }

    /// Decodes the records kept (for checks inside the firmware, and tests).
    pub fn records(&self) -> RecordDecoder<'_> {
        RecordDecoder::new(self.bytes(), 0)
    }

    /// The fixed capacity in bytes.
    pub const fn capacity(&self) -> usize {
        BYTES
    }
}

impl<const BYTES: usize> SampleStore for EncodedBuffer<BYTES> {
    fn keep(&mut self, sample: &Sample) -> bool {
        let rest = self.bytes.get_mut(self.len..).unwrap_or(&mut []);
        // On failure the encoder's state is unchanged, so the next record is coded against the
        // last one kept, as the decoder will read it.
        match self.encoder.encode(sample, rest) {
            Ok(written) => {
                self.len += written;
                self.kept = self.kept.saturating_add(1);
                true
            }
            Err(_) => {
                self.dropped = self.dropped.saturating_add(1);
                false
            }
        }
    }

    fn kept(&self) -> u64 {
        self.kept
    }

    fn dropped(&self) -> u64 {
        self.dropped
    }

    fn clear(&mut self) {
        self.len = 0;
        self.kept = 0;
        self.dropped = 0;
        self.encoder = SampleEncoder::new();
    }
}
