//! Decoded instructions, remembered per address and word.
//!
//! Both fetch models turn local-store words into [`InFlight`](super::inflight::InFlight)
//! records (decode, operand lists, class, register set) for every instruction they fetch; a
//! loop fetches the same words over and over, so the records are kept in a direct-mapped cache
//! keyed by address and word (a word changed by a store misses and is decoded again). Behind
//! it, where the decoded code's memory is lent to pipeline mode, each record is kept in a line
//! too (`decoded_lines.rs`), so that straight-line code longer than the cache decodes once.

use super::decoded::{Decoded, EMPTY_DECODED};
use super::decoded_lines;
use crate::spu::exec::LentLine;

/// Entries of the decoded-instruction cache (direct-mapped by word address): 512 cover a 2 KiB
/// loop body; the lean configuration keeps 128 (loops up to 512 bytes decode once).
#[cfg(not(feature = "spu-lean"))]
const DECODE_CACHE: usize = 512;
#[cfg(feature = "spu-lean")]
const DECODE_CACHE: usize = 128;

/// The cache of decoded instructions of a fetch model (512 entries, direct-mapped by word
/// address; about 36 KiB).
#[derive(Clone)]
pub(crate) struct DecodeCache {
    entries: [Decoded; DECODE_CACHE],
}

impl DecodeCache {
    /// An empty cache.
    pub(crate) const fn new() -> Self {
        DecodeCache {
            entries: [EMPTY_DECODED; DECODE_CACHE],
        }
    }

    /// The decoded form of `word` at `pc`. On a miss, `lines` gives the lines behind the
    /// cache (the decoded code's memory that pipeline mode borrows, `decoded_lines.rs`), if
    /// there are any: the record is read from its line, or decoded and kept there too.
    #[inline(always)]
    pub(crate) fn get<'l>(
        &mut self,
        pc: u32,
        word: u32,
        lines: impl FnOnce() -> Option<&'l mut [LentLine]>,
    ) -> &Decoded {
        let entry = &mut self.entries[((pc >> 2) as usize) % DECODE_CACHE];
        if entry.not_pc != !pc || entry.word != word {
            refill(entry, pc, word, lines());
        }
        entry
    }
}

/// Fills `entry` with the record of `word` at `pc`, out of the hit path: from its line if the
/// line keeps it, else decoded (and kept in the line). The record is built here, with
/// `Decoded::new`, `decode_at`, the instruction decoder and `InFlight::new` inlined, rather
/// than handed up by value through three calls: each copy read back as wide loads what the
/// callee had stored field by field, which the host cannot forward.
#[inline(never)]
fn refill(entry: &mut Decoded, pc: u32, word: u32, lines: Option<&mut [LentLine]>) {
    // The lines are a power of two in number: the mask picks one by word address.
    let line = lines.and_then(|lines| {
        let mask = lines.len().wrapping_sub(1);
        lines.get_mut((pc >> 2) as usize & mask)
    });
    let Some(line) = line else {
        *entry = Decoded::new(pc, word);
        return;
    };
    if let Some(kept) = decoded_lines::decoded_from(line, pc, word) {
        *entry = kept;
        return;
    }
    *entry = Decoded::new(pc, word);
    *line = decoded_lines::line_of(entry);
}

impl Default for DecodeCache {
    fn default() -> Self {
        Self::new()
    }
}
