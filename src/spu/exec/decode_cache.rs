//! A small direct-mapped cache of decoded instructions for [`SpuState::step`](super::SpuState::step).
//!
//! Slots are chosen by the instruction address; a slot hits only when it holds the decode of
//! the very word just fetched, so self-modifying code and reloaded images never see a stale
//! decode and nothing needs invalidating. (Two addresses sharing a slot and holding the same
//! word share one correct decode: decoding depends on the word alone.)

use crate::spu::isa::Mnemonic;
use crate::spu::isa::{Instruction, decode};

/// Number of slots: 256 × 16 bytes = 4 KiB, covering 1 KiB of straight-line code.
pub(super) const DECODE_CACHE_SLOTS: usize = 256;

/// The decode of word 0 (`stop 0`: RR format, every field zero). Every slot starts with it,
/// which keeps the invariant "a slot holds the decode of its `word`" from the start.
pub(super) const DECODED_ZERO_WORD: Instruction = Instruction {
    word: 0,
    mnemonic: Mnemonic::Stop,
    rt: 0,
    ra: 0,
    rb: 0,
    rc: 0,
    imm: 0,
    hint_offset: 0,
};

/// Decoded instructions indexed by word address modulo [`DECODE_CACHE_SLOTS`].
#[derive(Clone)]
pub(super) struct DecodeCache {
    slots: [Instruction; DECODE_CACHE_SLOTS],
}

impl DecodeCache {
    /// Copies `other` into `self` in place.
    pub(super) fn copy_from(&mut self, other: &DecodeCache) {
        self.slots = other.slots;
    }

    pub(super) const fn new() -> Self {
        DecodeCache {
            slots: [DECODED_ZERO_WORD; DECODE_CACHE_SLOTS],
        }
    }

    /// The decode of `word`, fetched from address `pc`; `None` if the word is illegal
    /// (illegal words are not cached: they stop the SPU anyway).
    #[inline(always)]
    pub(super) fn decode(&mut self, pc: u32, word: u32) -> Option<&Instruction> {
        // The mask keeps the index in bounds, so the indexing below cannot panic.
        let slot = &mut self.slots[(pc >> 2) as usize & (DECODE_CACHE_SLOTS - 1)];
        if slot.word != word {
            Self::fill(slot, word)?;
        }
        Some(slot)
    }

    /// Keeps `instruction`, decoded from address `pc`, for [`lookup`](Self::lookup) (the
    /// block loops decode ahead; observers look their instructions up here).
    #[inline(always)]
    pub(super) fn remember(&mut self, pc: u32, instruction: &Instruction) {
        let slot = &mut self.slots[(pc >> 2) as usize & (DECODE_CACHE_SLOTS - 1)];
        if slot.word != instruction.word {
            *slot = *instruction;
        }
    }

    /// The decode of `word` at `pc` if the cache holds it, else `word` decoded afresh (the
    /// cache is left alone); `None` if the word is illegal.
    #[inline(always)]
    pub(super) fn lookup(&self, pc: u32, word: u32) -> Option<Instruction> {
        match self
            .slots
            .get((pc >> 2) as usize & (DECODE_CACHE_SLOTS - 1))
        {
            Some(slot) if slot.word == word => Some(*slot),
            _ => decode(word).ok(),
        }
    }

    #[inline(never)]
    fn fill(slot: &mut Instruction, word: u32) -> Option<()> {
        *slot = decode(word).ok()?;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_slots_hold_the_decode_of_word_zero() {
        assert_eq!(decode(0), Ok(DECODED_ZERO_WORD));
    }

    #[test]
    fn a_slot_hits_only_for_the_same_word() {
        let mut cache = DecodeCache::new();
        let nop = 0x4020_0000; // nop (RR opcode 0x201)
        let il = 0x4080_0283; // il $3,5
        let mut lookup = |pc: u32, word: u32| cache.decode(pc, word).copied();
        assert_eq!(lookup(0x100, nop), decode(nop).ok());
        // Same slot, different word (code was overwritten): decoded afresh.
        assert_eq!(lookup(0x100, il), decode(il).ok());
        // Another address mapping to the same slot.
        let aliased = 0x100 + 4 * DECODE_CACHE_SLOTS as u32;
        assert_eq!(lookup(aliased, nop), decode(nop).ok());
        // Illegal words are reported and leave the slot alone.
        assert_eq!(lookup(0x100, 0x0080_0000), None);
        assert_eq!(lookup(0x100, nop), decode(nop).ok());
        assert_eq!(lookup(0x100, 0), decode(0).ok());
    }
}
