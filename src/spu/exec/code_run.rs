//! Running from the decoded code (`code.rs`): the inner loop both of instruction mode's run
//! loops share. The quiet loop (`stepping.rs`) wants nothing per instruction; the batch loop
//! for observers (`completed.rs`) records each instruction through a [`CodeSink`].

use super::code::{CodeStore, LentLine};
use super::flow::Flow;
use super::instructions::{CHAIN, OBSERVED, ONE_TABLE, QUIET, Retirement};
use super::op::Op;
use super::outcome::Status;
use super::state::SpuState;

/// What [`SpuState::run_code`] did.
pub(super) enum CodeRun {
    /// `instructions` ordinary instructions retired (not counted yet), `nops` of them
    /// NOP-class.
    Retired { instructions: u64, nops: u64 },
    /// `retired` ordinary instructions (`nops` NOP-class) retired, then `flow` came from the
    /// instruction at `pc` (the PC); its step is not finished.
    Unusual {
        retired: u64,
        nops: u64,
        flow: Flow,
        pc: u32,
    },
    /// `retired` ordinary instructions (`nops` NOP-class) retired, then the SPU is stopped or
    /// the word at the PC is illegal: the caller steps.
    Step { retired: u64, nops: u64 },
}

/// Hears of the ordinary instructions a run retires.
pub(super) trait CodeSink {
    /// Whether [`retired`](Self::retired) wants every instruction (with its word); `false`:
    /// only loads, stores and (with [`OBSERVING`](Self::OBSERVING)) branch instructions.
    const EVERY_INSTRUCTION: bool;
    /// Whether [`retired`](Self::retired) wants the loads, stores and branch instructions
    /// (taken or not); `false`: nothing.
    const OBSERVING: bool;
    /// An instruction retired. Called for the instructions the constants above ask for.
    fn retired(&mut self, retired: Retired);
}

/// One ordinary instruction a run retired (see [`CodeSink::retired`]).
pub(super) struct Retired {
    /// Its position in the run, from 0.
    pub index: u64,
    pub pc: u32,
    /// Its word (0 unless the sink wants every instruction).
    pub word: u32,
    /// What it was ([`Retirement::BRANCH`] for any branch instruction), and the next PC.
    pub retirement: Retirement,
    /// The quadword address of a load or store.
    pub access: u32,
}

/// The quiet loop's sink: nothing per instruction.
impl CodeSink for () {
    const EVERY_INSTRUCTION: bool = false;
    const OBSERVING: bool = false;
    #[inline(always)]
    fn retired(&mut self, _: Retired) {}
}

impl<C: CodeStore> SpuState<C> {
    /// Forgets the ops of the code written since the last call (see the module
    /// documentation); needed before running from the decoded code after a store, DMA or a
    /// load.
    #[inline(always)]
    pub(super) fn catch_up_code(&mut self) {
        if self.local_store.code_written() {
            self.forget_written_code();
        }
    }

    #[cold]
    #[inline(never)]
    fn forget_written_code(&mut self) {
        let code = &mut self.code;
        self.local_store.take_written(|index| code.forget(index));
    }

    /// The op at `pc`, decoded if it is not yet; `None` for an illegal word. The decoded
    /// code has caught up ([`catch_up_code`](Self::catch_up_code)).
    #[inline(always)]
    pub(super) fn op_at(&mut self, pc: u32) -> Option<Op> {
        let op = self.code.op(pc);
        if op == Op::ZERO {
            return self.decode_missing(pc);
        }
        Some(op)
    }

    /// The op of the word at `pc`, which the decoded code holds as [`Op::ZERO`]: decoded
    /// and kept, or `stop 0` for a zero word (which needs no decoding); `None` for an
    /// illegal word.
    #[cold]
    #[inline(never)]
    pub(super) fn decode_missing(&mut self, pc: u32) -> Option<Op> {
        let word = self.local_store.load_word(pc);
        if word == 0 {
            return Some(Op::ZERO);
        }
        let op = Op::decode(word)?;
        self.local_store.mark_decoded(pc);
        self.code.remember(pc, op);
        Some(op)
    }
}

impl SpuState {
    /// The decoded code's memory, lent to pipeline mode as lines of raw words
    /// ([`DecodedCode::lend_lines`](super::DecodedCode::lend_lines)): pipeline mode runs no
    /// op, and its fetch keeps the instructions it decoded there. `None` where the decoded code
    /// is a small cache (`spu-lean`, or no `spu-decode-once`): nothing to lend.
    #[inline]
    pub(crate) fn lent_code_lines(&mut self) -> Option<&mut [LentLine]> {
        #[cfg(all(feature = "spu-decode-once", not(feature = "spu-lean")))]
        {
            let (lines, newly_lent) = self.code.lend_lines();
            if newly_lent {
                // Instruction mode forgets every word, ending the loan, before its next op.
                self.local_store.everything_written();
            }
            Some(lines)
        }
        #[cfg(any(feature = "spu-lean", not(feature = "spu-decode-once")))]
        None
    }

    /// Runs at most `budget` instructions from the PC, as [`step`](Self::step) would one by
    /// one, without counting them (the caller counts), and tells `sink` of the ordinary ones
    /// it asks for. The instructions run from their ops in the decoded code through chains of
    /// handlers (`instructions/handlers.rs`); a word met for the first time is decoded on the
    /// way (`code.rs`), and a store that wrote decoded code makes it forget those words
    /// before the next instruction.
    #[inline(always)]
    pub(super) fn run_code<S: CodeSink>(&mut self, budget: u64, sink: &mut S) -> CodeRun {
        if let Status::Stopped(_) = self.status {
            return CodeRun::Step {
                retired: 0,
                nops: 0,
            };
        }
        self.catch_up_code();
        // A retried channel access that goes through leaves `Blocked`, as in `execute` (one
        // that waits again is set back by `finish_unusual`).
        self.status = Status::Running;
        self.nops = 0;
        let mut pc = self.pc;
        let mut retired = 0;
        while retired < budget {
            let chain = if S::EVERY_INSTRUCTION {
                1
            } else {
                (budget - retired).min(u64::from(CHAIN)) as u32
            };
            let word = if S::EVERY_INSTRUCTION {
                self.local_store.load_word(pc)
            } else {
                0
            };
            let op = self.code.op(pc);
            let table = if S::OBSERVING || ONE_TABLE {
                &OBSERVED
            } else {
                &QUIET
            };
            let end = table[op.index()](self, op, pc, chain - 1);
            // The chain ran this many, its last included.
            let ran = u64::from(chain - end.left());
            if end.retirement().has(Retirement::UNUSUAL) {
                retired += ran - 1;
                pc = end.pc();
                self.pc = pc;
                if self.code.op(pc) == Op::ZERO {
                    // Not decoded yet, or `stop 0` (`code.rs`).
                    match self.decode_missing(pc) {
                        Some(Op::ZERO) => {}
                        Some(_) => continue,
                        None => {
                            return CodeRun::Step {
                                retired,
                                nops: self.nops,
                            };
                        }
                    }
                }
                return CodeRun::Unusual {
                    retired,
                    nops: self.nops,
                    flow: self.unusual,
                    pc,
                };
            }
            retired += ran;
            if S::EVERY_INSTRUCTION
                || S::OBSERVING
                    && end
                        .retirement()
                        .has(Retirement::LOAD | Retirement::STORE | Retirement::BRANCH)
            {
                sink.retired(Retired {
                    index: retired - 1,
                    pc: end.pc(),
                    word,
                    retirement: end.retirement(),
                    access: self.access,
                });
            }
            pc = end.retirement().pc();
        }
        self.pc = pc;
        CodeRun::Retired {
            instructions: retired,
            nops: self.nops,
        }
    }
}
