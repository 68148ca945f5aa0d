//! Running one decoded block (`block_cache.rs`): the inner loop both of instruction mode's
//! run loops share. The quiet loop (`stepping.rs`) wants nothing per instruction; the batch
//! loop for observers (`completed.rs`) records each instruction through a [`BlockSink`].

use super::block_cache::{BLOCK_LENGTH, next_address};
use super::decode_cache::DecodeCache;
use super::flow::Flow;
use super::instructions::{INLINE_SP_IN_RUN_LOOPS, apply};
use super::outcome::Status;
use super::state::SpuState;
use crate::spu::isa::Instruction;

/// What [`SpuState::run_block`] did.
pub(super) enum BlockRun {
    /// `instructions` ordinary instructions retired (not counted yet), `nops` of them
    /// NOP-class; `branch`: the last was a branch instruction (taken or not).
    Retired {
        instructions: u64,
        nops: u64,
        branch: bool,
    },
    /// `retired` ordinary instructions (`nops` NOP-class) retired, then `flow` came from
    /// `instruction` at `pc` (the PC); its step is not finished.
    Unusual {
        retired: u64,
        nops: u64,
        flow: Flow,
        pc: u32,
        instruction: Instruction,
    },
    /// The block at the PC is longer than the budget and the caller wants whole blocks.
    DoesNotFit,
    /// No block at the PC (an illegal word, or the SPU is stopped): the caller steps.
    None,
}

/// Hears of each ordinary instruction a block run retires.
pub(super) trait BlockSink {
    /// Whether [`retired`](Self::retired) wants every instruction; `false`: only loads
    /// and stores.
    const EVERY_INSTRUCTION: bool;
    /// The `index`-th instruction of the run (from 0), at `pc`, retired with `flow`
    /// (`Next`, `Nop`, `Load`, `Store` or `Branch`); `is_branch`: it is a branch
    /// instruction, taken or not. Called for every instruction, or for the loads and
    /// stores only ([`EVERY_INSTRUCTION`](Self::EVERY_INSTRUCTION)). `decodes` is the SPU's cache for `step`, which observers
    /// look instructions up in.
    fn retired(&mut self, decodes: &mut DecodeCache, retired: Retired<'_>);
}

/// One ordinary instruction a block run retired (see [`BlockSink::retired`]).
pub(super) struct Retired<'i> {
    pub index: u64,
    pub pc: u32,
    pub instruction: &'i Instruction,
    pub flow: Flow,
    pub is_branch: bool,
}

/// The quiet loop's sink: nothing per instruction.
impl BlockSink for () {
    const EVERY_INSTRUCTION: bool = false;
    #[inline(always)]
    fn retired(&mut self, _: &mut DecodeCache, _: Retired<'_>) {}
}

impl SpuState {
    /// Runs at most `budget` instructions of the block at the PC, as
    /// [`step`](Self::step) would one by one, without counting them (the caller counts), and
    /// tells `sink` of each ordinary one. With `whole`, a block longer than `budget` does
    /// not run at all ([`BlockRun::DoesNotFit`]).
    #[inline(always)]
    pub(super) fn run_block<S: BlockSink>(
        &mut self,
        budget: u64,
        whole: bool,
        sink: &mut S,
    ) -> BlockRun {
        if let Status::Stopped(_) = self.status {
            return BlockRun::None;
        }
        let Some(slot) = self.blocks.block_at(self.pc, &mut self.local_store) else {
            return BlockRun::None;
        };
        let generation = self.local_store.code_generation();
        let block = self.blocks.block(slot);
        let full = u64::from(block.length);
        if whole && full > budget {
            return BlockRun::DoesNotFit;
        }
        let ends_in_branch = block.ends_in_branch;
        let length = full.min(budget);
        // A retried channel access that goes through leaves `Blocked`, as in `execute` (one
        // that waits again is set back by `finish_unusual`).
        self.status = Status::Running;
        let mut pc = self.pc;
        let mut nops = 0;
        let mut retired = 0;
        while retired < length {
            // Copied out of the block: executing needs the whole SPU mutably.
            let instruction = self.blocks.block(slot).instructions[retired as usize % BLOCK_LENGTH];
            retired += 1;
            let flow = apply::<INLINE_SP_IN_RUN_LOOPS>(self, &instruction, pc);
            let (ends_run, next_pc) = match flow {
                Flow::Next | Flow::Load(_) => (false, next_address(pc)),
                Flow::Nop => {
                    nops += 1;
                    (false, next_address(pc))
                }
                // A store that rewrote code: the rest of the block may be stale.
                Flow::Store(_) => (
                    self.local_store.code_generation() != generation,
                    next_address(pc),
                ),
                // A branch ends its block.
                Flow::Branch(target) => (true, target),
                flow => {
                    self.pc = pc;
                    return BlockRun::Unusual {
                        retired: retired - 1,
                        nops,
                        flow,
                        pc,
                        instruction,
                    };
                }
            };
            if S::EVERY_INSTRUCTION || matches!(flow, Flow::Load(_) | Flow::Store(_)) {
                let done = Retired {
                    index: retired - 1,
                    pc,
                    instruction: &instruction,
                    flow,
                    is_branch: ends_in_branch && retired == full,
                };
                sink.retired(&mut self.decode_cache, done);
            }
            pc = next_pc;
            if ends_run {
                break;
            }
        }
        self.pc = pc;
        BlockRun::Retired {
            instructions: retired,
            nops,
            branch: ends_in_branch && retired == full,
        }
    }
}
