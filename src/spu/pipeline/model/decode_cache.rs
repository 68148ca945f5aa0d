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
use super::inflight::InFlight;
use crate::spu::exec::LentLine;

/// Entries of the decoded-instruction cache (direct-mapped by word address): 512 cover a 2 KiB
/// loop body; the lean configuration keeps 128 (loops up to 512 bytes decode once).
#[cfg(not(feature = "spu-lean"))]
const DECODE_CACHE: usize = 512;
#[cfg(feature = "spu-lean")]
const DECODE_CACHE: usize = 128;

/// Addresses that missed each entry last, where there are lines behind the cache (none
/// where there are not: every miss fills its entry there).
const LAST_MISSES: usize = if cfg!(all(feature = "spu-decode-once", not(feature = "spu-lean"))) {
    DECODE_CACHE
} else {
    0
};

/// The cache of decoded instructions of a fetch model (512 entries, direct-mapped by word
/// address; about 36 KiB, and 2 KiB of last misses where there are lines behind it).
#[derive(Clone)]
pub(crate) struct DecodeCache {
    entries: [Decoded; DECODE_CACHE],
    /// The address (complemented: zero is none) that last missed each entry without
    /// filling it ([`copy_into`](Self::copy_into)).
    last_misses: [u32; LAST_MISSES],
}

impl DecodeCache {
    /// An empty cache.
    pub(crate) const fn new() -> Self {
        DecodeCache {
            entries: [EMPTY_DECODED; DECODE_CACHE],
            last_misses: [0; LAST_MISSES],
        }
    }

    /// Writes the record of `word` at `pc` into `place` (real fetch's slot in the issue
    /// window), all but its sequence number. A hit is copied from the cache. A miss with
    /// lines behind the cache is read from its line straight into `place`, and fills its
    /// entry only when the same address missed that entry last time too: a loop's
    /// instructions do on its second pass, while straight-line code longer than the cache,
    /// whose addresses take turns at each entry, does not. Filling an entry and copying it
    /// out right away cost a store miss and a store-forwarding stall per instruction (the
    /// copy's wide loads read what was just stored field by field): 18% and more of the
    /// time of a 6,900-instruction SHA-256d pass.
    #[inline(always)]
    pub(crate) fn copy_into<'l>(
        &mut self,
        pc: u32,
        word: u32,
        lines: impl FnOnce() -> Option<&'l mut [LentLine]>,
        place: &mut InFlight,
    ) {
        let index = ((pc >> 2) as usize) % DECODE_CACHE;
        let entry = &self.entries[index];
        if entry.not_pc == !pc && entry.word == word {
            place.copy_from(&entry.inflight);
            return;
        }
        let mut lines = lines();
        if let (Some(last_miss), Some(lines)) =
            (self.last_misses.get_mut(index), lines.as_deref_mut())
            && *last_miss != !pc
        {
            *last_miss = !pc;
            fill_from_lines(lines, pc, word, place);
            return;
        }
        let entry = &mut self.entries[index];
        refill(entry, pc, word, lines);
        place.copy_from(&entry.inflight);
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

/// Writes the record of `word` at `pc` into `place`: read from its line in `lines` (the
/// decoded code's memory that pipeline mode borrows), or decoded and kept there.
#[inline(always)]
fn fill_from_lines(lines: &mut [LentLine], pc: u32, word: u32, place: &mut InFlight) {
    // The lines are a power of two in number: the mask picks one by word address.
    let mask = lines.len().wrapping_sub(1);
    let line = lines.get_mut((pc >> 2) as usize & mask);
    match line {
        Some(line) if decoded_lines::read_into(line, pc, word, place) => {}
        line => decode_into_line(line, pc, word, place),
    }
}

/// Decodes `word` at `pc` into `place` and keeps the record in `line`, out of the hit path.
#[inline(never)]
fn decode_into_line(line: Option<&mut LentLine>, pc: u32, word: u32, place: &mut InFlight) {
    let decoded = Decoded::new(pc, word);
    if let Some(line) = line {
        *line = decoded_lines::line_of(&decoded);
    }
    *place = decoded.inflight;
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
