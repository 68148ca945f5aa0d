//! Instruction mode's blocks: straight-line runs of decoded instructions, so the quiet run
//! loop executes a run without fetching, looking up and checking each instruction again.
//!
//! A block holds up to [`BLOCK_LENGTH`] instructions decoded from consecutive addresses,
//! ending at the first branch (included) or before an illegal word. It is valid for the
//! local store's *code generation* it was decoded in: decoding marks the quadwords it read,
//! and a write to a marked quadword (or loading, clearing or copying the local store) moves
//! the generation on (`local_store.rs`), so rewritten code is never run from a stale block.
//! Blocks are kept direct-mapped by their start address.

use super::local_store::{LS_ADDRESS_MASK, LocalStore};
use crate::spu::isa::{Instruction, decode};

use super::decode_cache::DECODED_ZERO_WORD;

/// Instructions per block at most.
pub(super) const BLOCK_LENGTH: usize = 16;
/// Blocks kept.
const BLOCKS: usize = 32;

/// One block (see the module documentation). All-zero bits when empty.
#[derive(Clone, Copy)]
pub(super) struct Block {
    /// The start address, complemented (0: empty).
    not_start: u32,
    /// Instructions in the block (0: none could be decoded).
    pub length: u8,
    /// Its last instruction is a branch (the only one that may be).
    pub ends_in_branch: bool,
    generation: u64,
    pub instructions: [Instruction; BLOCK_LENGTH],
}

const EMPTY_BLOCK: Block = Block {
    not_start: 0,
    length: 0,
    ends_in_branch: false,
    generation: 0,
    instructions: [DECODED_ZERO_WORD; BLOCK_LENGTH],
};

/// The blocks of one SPU.
#[derive(Clone)]
pub(super) struct BlockCache {
    blocks: [Block; BLOCKS],
}

impl BlockCache {
    pub(super) const fn new() -> Self {
        BlockCache {
            blocks: [EMPTY_BLOCK; BLOCKS],
        }
    }

    /// The slot of the block starting at `pc`. Straight-line code falls from one block into
    /// the next one [`BLOCK_LENGTH`] words on: those land 17 slots apart (odd, so 32 of them
    /// in a row share none), rather than every other one on the same slot.
    #[inline(always)]
    pub(super) fn slot(pc: u32) -> usize {
        ((pc >> 2).wrapping_add(pc >> 6)) as usize % BLOCKS
    }

    /// The block in `slot` (see [`slot`](Self::slot)).
    #[inline(always)]
    pub(super) fn block(&self, slot: usize) -> &Block {
        &self.blocks[slot % BLOCKS]
    }
}

impl Default for BlockCache {
    fn default() -> Self {
        Self::new()
    }
}

/// The address after `pc`, wrapping in the local store.
#[inline(always)]
pub(super) fn next_address(pc: u32) -> u32 {
    pc.wrapping_add(4) & LS_ADDRESS_MASK & !3
}

impl BlockCache {
    /// The slot of a valid block starting at `pc`, decoding it from `local_store` if
    /// needed; `None` if not even the first instruction decodes (an illegal word: the caller
    /// steps it).
    #[inline(always)]
    pub(super) fn block_at(&mut self, pc: u32, local_store: &mut LocalStore) -> Option<usize> {
        let slot = BlockCache::slot(pc);
        let block = self.block(slot);
        let generation = local_store.code_generation();
        if block.not_start != !pc || block.generation != generation {
            self.decode(slot, pc, local_store);
        }
        (self.block(slot).length > 0).then_some(slot)
    }

    #[inline(never)]
    fn decode(&mut self, slot: usize, start: u32, local_store: &mut LocalStore) {
        let mut block = EMPTY_BLOCK;
        block.not_start = !start;
        let mut address = start;
        for entry in &mut block.instructions {
            let word = local_store.load_word(address);
            let Ok(instruction) = decode(word) else {
                break;
            };
            local_store.mark_code(address);
            *entry = instruction;
            block.length += 1;
            if instruction.is_branch() {
                block.ends_in_branch = true;
                break;
            }
            address = next_address(address);
        }
        // Marking never changes the generation: read it after.
        block.generation = local_store.code_generation();
        self.blocks[slot % BLOCKS] = block;
    }
}
