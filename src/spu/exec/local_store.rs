//! The 256 KiB SPU local store (LS).
//!
//! Every SPU address is reduced modulo the LS size (the LS limit register masks it), and
//! quadword loads and stores ignore the low four address bits. Keeping the storage as an array
//! of quadwords makes both rules a single mask, so no access can fall outside the array.

use super::quadword::Quadword;
use super::vector_lanes;
use crate::spu::mfc::LocalStoreBytes;

/// Size of the local store in bytes (256 KiB).
pub const LS_SIZE: u32 = 256 * 1024;
/// Mask that reduces any address into the local store (the LSLR value).
pub const LS_ADDRESS_MASK: u32 = LS_SIZE - 1;
const QUADWORDS: usize = (LS_SIZE / 16) as usize;

/// The image did not fit into the local store at the requested address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ImageTooLarge {
    /// Requested load address.
    pub address: u32,
    /// Image length in bytes.
    pub length: usize,
}

impl core::fmt::Display for ImageTooLarge {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "image of {} bytes at LS address {:#x} does not fit in the {} byte local store",
            self.length, self.address, LS_SIZE
        )
    }
}

impl core::error::Error for ImageTooLarge {}

/// Quadwords of decoded code a [`LocalStore`] notes as written before the decoded copy must
/// catch up (more: everything is decoded again).
const WRITTEN_LOG: usize = 8;
/// [`LocalStore::written_count`] when more quadwords of decoded code were written than the
/// log holds.
const WRITTEN_EVERYTHING: u8 = WRITTEN_LOG as u8 + 1;

/// The SPU local store: 256 KiB, addressed modulo its size.
///
/// It also keeps track of writes to code that instruction mode holds decoded (`code.rs`):
/// quadwords holding such code are marked, and writing one of them notes it (loading, clearing
/// or copying the store notes everything), so the decoded copy forgets those words before it
/// runs from them again. A program that rewrites its code (or has code brought in by DMA)
/// runs the new code.
#[derive(Clone)]
pub struct LocalStore {
    quadwords: [Quadword; QUADWORDS],
    /// One bit per quadword with decoded words.
    decoded: [u64; QUADWORDS / 64],
    /// The decoded quadwords written since the decoded copy last caught up (the first
    /// `written_count`; [`WRITTEN_EVERYTHING`]: more than fit, or the whole store changed).
    written: [u16; WRITTEN_LOG],
    written_count: u8,
}

impl LocalStore {
    /// Copies `other` into `self` in place (a whole-value clone builds a 256 KiB temporary).
    pub(super) fn copy_from(&mut self, other: &LocalStore) {
        self.quadwords = other.quadwords;
        self.everything_written();
    }

    /// Whether decoded code was written since [`take_written`](Self::take_written).
    #[inline(always)]
    pub(super) fn code_written(&self) -> bool {
        self.written_count != 0
    }

    /// Hands each decoded quadword written since the last call to `forget` (its index:
    /// address / 16), or `None` once for "every quadword", and forgets them.
    pub(super) fn take_written(&mut self, mut forget: impl FnMut(Option<usize>)) {
        if self.written_count == WRITTEN_EVERYTHING {
            forget(None);
        } else {
            for &index in self.written.iter().take(usize::from(self.written_count)) {
                forget(Some(usize::from(index)));
            }
        }
        self.written_count = 0;
    }

    /// Marks the quadword at `address` as holding decoded words.
    #[inline]
    pub(super) fn mark_decoded(&mut self, address: u32) {
        let index = Self::index(address);
        self.decoded[index / 64] |= 1 << (index % 64);
    }

    /// A decoded quadword, `index`, was written.
    #[cold]
    #[inline(never)]
    fn decoded_written(&mut self, index: usize) {
        self.decoded[index / 64] &= !(1 << (index % 64));
        // A full log (and WRITTEN_EVERYTHING) is past the end of `written`.
        if let Some(slot) = self.written.get_mut(usize::from(self.written_count)) {
            // QUADWORDS is 2^14: the index fits.
            *slot = index as u16;
            self.written_count += 1;
        } else {
            self.everything_written();
        }
    }

    /// The whole store may have changed: every decode so far is stale. (Also how the decoded
    /// code's memory is taken back from pipeline mode, `code.rs`.)
    #[cold]
    #[inline(never)]
    pub(super) fn everything_written(&mut self) {
        self.written_count = WRITTEN_EVERYTHING;
        self.decoded = [0; QUADWORDS / 64];
    }
}

impl Default for LocalStore {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for LocalStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "LocalStore({} bytes)", LS_SIZE)
    }
}

impl LocalStore {
    /// A zero-filled local store; `const` so it can initialise a `static`.
    pub const fn new() -> Self {
        LocalStore {
            quadwords: [Quadword::ZERO; QUADWORDS],
            decoded: [0; QUADWORDS / 64],
            written: [0; WRITTEN_LOG],
            written_count: 0,
        }
    }

    /// Zeroes the whole local store.
    pub fn clear(&mut self) {
        self.quadwords.fill(Quadword::ZERO);
        self.everything_written();
    }

    #[inline]
    const fn index(address: u32) -> usize {
        // The mask bounds the index below QUADWORDS, so indexing cannot panic.
        ((address & LS_ADDRESS_MASK) >> 4) as usize
    }

    /// Reads the quadword containing `address` (low 4 bits ignored, address wraps).
    #[inline]
    pub fn load_quadword(&self, address: u32) -> Quadword {
        self.quadwords[Self::index(address)]
    }

    /// Writes the quadword containing `address` (low 4 bits ignored, address wraps).
    #[inline]
    pub fn store_quadword(&mut self, address: u32, value: Quadword) {
        let index = Self::index(address);
        self.quadwords[index] = value;
        self.note_written(index);
    }

    /// The quadword containing `address` (low 4 bits ignored, address wraps), in place.
    #[inline]
    pub(super) fn quadword(&self, address: u32) -> &Quadword {
        &self.quadwords[Self::index(address)]
    }

    /// Copies `value` into the quadword containing `address`, as
    /// [`store_quadword`](Self::store_quadword) stores it, with one 128-bit copy.
    #[inline]
    pub(super) fn store_from(&mut self, address: u32, value: &Quadword) {
        let index = Self::index(address);
        vector_lanes::copy(value, &mut self.quadwords[index]);
        self.note_written(index);
    }

    /// After a store into quadword `index`: forgets its decoded code, if it holds any.
    #[inline(always)]
    fn note_written(&mut self, index: usize) {
        if self.decoded[index / 64] & (1 << (index % 64)) != 0 {
            self.decoded_written(index);
        }
    }

    /// Reads the big-endian word at `address & !3` (address wraps); used for instruction fetch.
    #[inline]
    pub fn load_word(&self, address: u32) -> u32 {
        // Word 0 is the most significant: pick the doubleword, then the word within it
        // (two selects instead of a variable 128-bit shift or an array round trip).
        let quadword = self.load_quadword(address).0;
        let doubleword = if address & 8 == 0 {
            (quadword >> 64) as u64
        } else {
            quadword as u64
        };
        let shift = if address & 4 == 0 { 32 } else { 0 };
        (doubleword >> shift) as u32
    }

    /// Writes the big-endian word at `address & !3` (address wraps).
    pub fn store_word(&mut self, address: u32, value: u32) {
        let mut words = self.load_quadword(address).words();
        let slot = ((address >> 2) & 3) as usize;
        words[slot] = value;
        self.store_quadword(address, Quadword::from_words(words));
    }

    /// Reads one byte (address wraps).
    pub fn load_byte(&self, address: u32) -> u8 {
        let slot = (address & 15) as usize;
        self.load_quadword(address).bytes()[slot]
    }

    /// Writes one byte (address wraps).
    pub fn store_byte(&mut self, address: u32, value: u8) {
        let mut bytes = self.load_quadword(address).bytes();
        bytes[(address & 15) as usize] = value;
        self.store_quadword(address, Quadword::from_bytes(bytes));
    }

    /// Copies `image` into the local store starting at `address`; the image must fit without
    /// wrapping.
    pub fn load_image(&mut self, address: u32, image: &[u8]) -> Result<(), ImageTooLarge> {
        let too_large = ImageTooLarge {
            address,
            length: image.len(),
        };
        let end = (address as usize)
            .checked_add(image.len())
            .ok_or(too_large)?;
        if end > LS_SIZE as usize {
            return Err(too_large);
        }
        let mut current = address;
        for &byte in image {
            self.store_byte(current, byte);
            current = current.wrapping_add(1);
        }
        Ok(())
    }

    /// Copies big-endian instruction/data words into the local store starting at `address`.
    pub fn load_words(&mut self, address: u32, words: &[u32]) -> Result<(), ImageTooLarge> {
        let too_large = ImageTooLarge {
            address,
            length: words.len().saturating_mul(4),
        };
        let end = (address as usize)
            .checked_add(words.len().saturating_mul(4))
            .ok_or(too_large)?;
        if end > LS_SIZE as usize || !address.is_multiple_of(4) {
            return Err(too_large);
        }
        let mut current = address;
        for &word in words {
            self.store_word(current, word);
            current = current.wrapping_add(4);
        }
        Ok(())
    }
}

impl LocalStoreBytes for LocalStore {
    /// Copies from `lsa` on (wrapping at the end of the store).
    fn read_bytes(&self, lsa: u32, out: &mut [u8]) {
        let mut address = lsa;
        for chunk in out.chunks_mut(16) {
            let bytes = self.load_quadword(address).bytes();
            let start = (address & 15) as usize;
            if start == 0 && chunk.len() == 16 {
                chunk.copy_from_slice(&bytes);
            } else {
                for (offset, byte) in chunk.iter_mut().enumerate() {
                    *byte = self.load_byte(address.wrapping_add(offset as u32));
                }
            }
            address = address.wrapping_add(chunk.len() as u32);
        }
    }

    /// Writes from `lsa` on, a quadword at a time where it can (wrapping at the end).
    fn write_bytes(&mut self, lsa: u32, data: &[u8]) {
        let mut address = lsa;
        for chunk in data.chunks(16) {
            if address & 15 == 0
                && let Ok(bytes) = <[u8; 16]>::try_from(chunk)
            {
                self.store_quadword(address, Quadword::from_bytes(bytes));
            } else {
                for (offset, &byte) in chunk.iter().enumerate() {
                    self.store_byte(address.wrapping_add(offset as u32), byte);
                }
            }
            address = address.wrapping_add(chunk.len() as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::boxed::Box;

    #[test]
    fn addresses_wrap_and_ignore_low_bits() {
        let mut ls = Box::new(LocalStore::new());
        let q = Quadword::from_words([1, 2, 3, 4]);
        ls.store_quadword(0x1_0007, q);
        assert_eq!(ls.load_quadword(0x1_0000), q);
        assert_eq!(ls.load_quadword(0x1_000f), q);
        // LS_SIZE + 0x10000 wraps to 0x10000.
        assert_eq!(ls.load_quadword(LS_SIZE + 0x1_0000), q);
        assert_eq!(ls.load_word(0x1_0008), 3);
        assert_eq!(ls.load_byte(0x1_000f), 4);
    }

    #[test]
    fn image_bounds_are_checked() {
        let mut ls = Box::new(LocalStore::new());
        assert!(ls.load_image(LS_SIZE - 4, &[1, 2, 3, 4]).is_ok());
        assert_eq!(ls.load_word(LS_SIZE - 4), 0x0102_0304);
        assert_eq!(
            ls.load_image(LS_SIZE - 3, &[1, 2, 3, 4]),
            Err(ImageTooLarge {
                address: LS_SIZE - 3,
                length: 4
            })
        );
        assert!(ls.load_words(4, &[0xdead_beef]).is_ok());
        assert_eq!(ls.load_byte(4), 0xde);
    }
}
