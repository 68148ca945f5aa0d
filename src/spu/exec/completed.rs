//! Running a batch of instructions ahead of their observers.
//!
//! Instruction mode with observers attached has to tell them about every instruction, and
//! the observers are generic (each observer type gets its own copy of the loop). If that
//! loop held the interpreter too, every observer type would carry a copy of it (14–16 KiB
//! each), and if it called a step function per instruction, the call and the report would
//! cost more than the observers. [`SpuState::run_completed`] is the middle way: one
//! (non-generic) interpreter loop executes up to [`COMPLETED_BATCH`] ordinary instructions
//! and writes a compact [`Completed`] record for each, and the observers get the batch
//! ([`CompletedBatch`]). Nothing an observer can do reaches the SPU (observers get no access
//! to it), so telling them a few instructions late changes nothing they see.

use super::AccessKind;
use super::code_run::{CodeRun, CodeSink, Retired};
use super::flow::instruction_address;
use super::instructions::Retirement;
use super::outcome::{Executed, LsAccess, Status};
use super::state::SpuState;
use crate::probe::listeners::MemAccess;
use crate::spu::isa::{Instruction, decode};

/// Instructions instruction mode runs at most before its observers hear of them (one
/// [`CompletedBatch`]).
pub const COMPLETED_BATCH: usize = 128;

/// [`Completed::flags`] bits.
const READ: u8 = 1;
const WRITE: u8 = 2;
const TAKEN: u8 = 4;
const NOP: u8 = 8;
const BRANCH: u8 = 16;

/// One instruction that retired in instruction mode and left the SPU running, without a
/// profiling checkpoint: what its [`Executed`] report says, in 20 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completed {
    pc: u32,
    word: u32,
    /// The LS address of its load or store, the target of its taken branch, else 0.
    address: u32,
    flags: u8,
}

impl Completed {
    /// A record to fill a batch with before running.
    pub(crate) const EMPTY: Completed = Completed {
        pc: 0,
        word: 0,
        address: 0,
        flags: 0,
    };

    /// Its address.
    #[inline(always)]
    pub fn pc(&self) -> u32 {
        self.pc
    }

    /// The instruction word.
    #[inline(always)]
    pub fn word(&self) -> u32 {
        self.word
    }

    /// The address of the next instruction (a taken branch's target).
    #[inline(always)]
    pub fn next_pc(&self) -> u32 {
        if self.flags & TAKEN != 0 {
            self.address
        } else {
            instruction_address(self.pc.wrapping_add(4))
        }
    }

    /// The LS data access of a load or store.
    #[inline(always)]
    pub fn access(&self) -> Option<LsAccess> {
        let kind = if self.flags & READ != 0 {
            AccessKind::Read
        } else if self.flags & WRITE != 0 {
            AccessKind::Write
        } else {
            return None;
        };
        Some(LsAccess {
            address: self.address,
            size: 16,
            kind,
        })
    }

    /// Whether it is a branch instruction ([`Instruction::is_branch`]), taken or not.
    #[inline(always)]
    pub fn is_branch(&self) -> bool {
        self.flags & BRANCH != 0
    }

    /// The report [`SpuState::step`] gave for it.
    #[inline(always)]
    pub fn executed(&self) -> Executed {
        Executed::retired_running(
            self.pc,
            self.word,
            self.next_pc(),
            self.flags & TAKEN != 0,
            self.access(),
            self.flags & NOP != 0,
        )
    }
}

/// Instructions that completed one per cycle in instruction mode, oldest first, as its
/// observers hear of them ([`SpuObserver::completed`](crate::spu::probes::SpuObserver::completed)).
pub struct CompletedBatch<'a> {
    /// Empty when the observer needed none ([`SpuObserver::needs_records`](crate::spu::probes::SpuObserver::needs_records)).
    records: &'a [Completed],
    len: usize,
    accesses: &'a [MemAccess],
    cycle_before: u64,
    loads: u32,
    stores: u32,
    branches: u32,
}

impl<'a> CompletedBatch<'a> {
    /// The records, one per instruction; empty (whatever the [`len`](Self::len)) when the
    /// observer given the batch said it needs none
    /// ([`SpuObserver::needs_records`](crate::spu::probes::SpuObserver::needs_records)).
    #[inline(always)]
    pub fn records(&self) -> &'a [Completed] {
        self.records
    }

    /// The LS data accesses of the batch's loads and stores, oldest first, as the
    /// `DataAccess` probe point reports them (`tick` is the cycle count after the access).
    #[inline(always)]
    pub fn accesses(&self) -> &'a [MemAccess] {
        self.accesses
    }

    /// How many instructions (and cycles) the batch holds.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The SPU's cycle count after the `index`-th instruction of the batch (0-based): the
    /// `cycle` argument [`SpuObserver::retired`](crate::spu::probes::SpuObserver::retired)
    /// gets for it.
    #[inline(always)]
    pub fn cycle_after(&self, index: usize) -> u64 {
        // A batch holds at most COMPLETED_BATCH records.
        self.cycle_before.wrapping_add(index as u64).wrapping_add(1)
    }

    /// The decoded instruction of `record` (`None` cannot happen for a record of a batch).
    #[inline(always)]
    pub fn instruction(&self, record: &Completed) -> Option<Instruction> {
        decode(record.word).ok()
    }

    /// How many of the instructions are loads.
    #[inline(always)]
    pub fn loads(&self) -> u64 {
        u64::from(self.loads)
    }

    /// How many are stores.
    #[inline(always)]
    pub fn stores(&self) -> u64 {
        u64::from(self.stores)
    }

    /// How many are branches, taken or not.
    #[inline(always)]
    pub fn branches(&self) -> u64 {
        u64::from(self.branches)
    }
}

/// What ended a batch early: the step that was not an ordinary completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BatchEnd {
    /// The step's report, as [`SpuState::step`] gives it.
    pub(crate) executed: Executed,
    /// The instruction, unless the word was illegal.
    pub(crate) instruction: Option<Instruction>,
}

/// Where [`SpuState::run_completed`] writes a batch: a record per instruction and a
/// [`MemAccess`] per load or store (6 KiB, kept with the SPU rather than on the stack of
/// every run).
#[derive(Clone)]
pub(crate) struct BatchRecords {
    records: [Completed; COMPLETED_BATCH],
    accesses: [MemAccess; COMPLETED_BATCH],
}

impl BatchRecords {
    /// Room for a batch.
    pub(crate) const fn new() -> Self {
        const NO_ACCESS: MemAccess = MemAccess {
            tick: 0,
            pc: 0,
            address: 0,
            size: 0,
            kind: AccessKind::Read,
        };
        Self {
            records: [Completed::EMPTY; COMPLETED_BATCH],
            accesses: [NO_ACCESS; COMPLETED_BATCH],
        }
    }
}

/// Counts a batch keeps as it runs.
#[derive(Clone, Copy, Default)]
pub(crate) struct BatchCounts {
    /// The SPU's cycle count when the batch started.
    cycle_before: u64,
    written: usize,
    /// Records were written (else only the counts and the accesses).
    recorded: bool,
    /// Loads, stores and branches, one byte each from the least significant (a batch holds
    /// fewer than 256 instructions): one add per instruction keeps all three.
    packed: u32,
}

/// [`BatchCounts::packed`] units.
const ONE_LOAD: u32 = 1;
const ONE_STORE: u32 = 1 << 8;
const ONE_BRANCH: u32 = 1 << 16;

impl BatchCounts {
    /// Records written.
    pub(crate) fn written(&self) -> usize {
        self.written
    }

    /// Loads and stores among them (each wrote a `MemAccess`).
    fn accesses(&self) -> usize {
        ((self.packed & 0xff) + ((self.packed >> 8) & 0xff)) as usize
    }
}

/// The batch loop's [`CodeSink`]: an access for each load and store, and a record for each
/// instruction when the observer wants records. (The instruction count comes from the run
/// as a whole.)
struct BatchSink<'b, const RECORDS: bool> {
    batch: &'b mut BatchRecords,
    cycle_before: u64,
    /// Loads, stores and branches, as in [`BatchCounts::packed`].
    packed: u32,
}

/// Two loops, with and without records, each without a test per instruction.
impl<const RECORDS: bool> CodeSink for BatchSink<'_, RECORDS> {
    const EVERY_INSTRUCTION: bool = RECORDS;
    const OBSERVING: bool = true;
    #[inline(always)]
    fn retired(&mut self, retired: Retired) {
        let Retired {
            index,
            pc,
            word,
            retirement,
            access,
        } = retired;
        let is_branch = retirement.has(Retirement::BRANCH);
        let position = index as usize;
        let (address, flags) = if retirement.has(Retirement::LOAD) {
            (access, READ)
        } else if retirement.has(Retirement::STORE) {
            (access, WRITE)
        } else if retirement.has(Retirement::TAKEN) {
            (retirement.pc(), TAKEN)
        } else if retirement.has(Retirement::NOP) {
            (0, NOP)
        } else {
            (0, 0)
        };
        if flags & (READ | WRITE) != 0 {
            self.packed += if flags & READ != 0 {
                ONE_LOAD
            } else {
                ONE_STORE
            };
            let accesses = ((self.packed & 0xff) + ((self.packed >> 8) & 0xff)) as usize;
            // One access per record at most: the index stays below the batch length.
            if let Some(access) = self.batch.accesses.get_mut(accesses.wrapping_sub(1)) {
                *access = MemAccess {
                    tick: self.cycle_before.wrapping_add(position as u64 + 1),
                    pc: u64::from(pc),
                    address: u64::from(address),
                    size: 16,
                    kind: if flags & READ != 0 {
                        AccessKind::Read
                    } else {
                        AccessKind::Write
                    },
                };
            }
        }
        self.packed += if is_branch { ONE_BRANCH } else { 0 };
        if RECORDS && let Some(slot) = self.batch.records.get_mut(position) {
            *slot = Completed {
                pc,
                word,
                address,
                flags: flags | if is_branch { BRANCH } else { 0 },
            };
        }
    }
}

impl SpuState {
    /// Steps like [`step`](Self::step) up to `records.len()` times (at most `max`), writing a
    /// [`Completed`] record for each instruction that retires and leaves the SPU running
    /// without a checkpoint, from the decoded code (`code.rs`). The first step that is
    /// anything else (a checkpoint, stop, halt, channel wait, fault, illegal word, a stopped
    /// SPU) ends the batch and comes back as its
    /// report. The effect on the SPU is that of as many `step`s; the clock advances by one
    /// per retired instruction.
    #[inline(always)]
    pub(crate) fn run_completed(
        &mut self,
        max: usize,
        batch: &mut BatchRecords,
        records: bool,
    ) -> (BatchCounts, Option<BatchEnd>) {
        if records {
            self.run_batch::<true>(max, batch)
        } else {
            self.run_batch::<false>(max, batch)
        }
    }

    /// [`run_completed`](Self::run_completed) with or without records: one loop each, so
    /// that neither carries the other's registers.
    #[inline(never)]
    fn run_batch<const RECORDS: bool>(
        &mut self,
        max: usize,
        batch: &mut BatchRecords,
    ) -> (BatchCounts, Option<BatchEnd>) {
        // The records' retirements are counted when the batch ends (or before a step whose
        // ending reads the counters); until then the clock stands at the batch's start.
        let mut counts = BatchCounts {
            cycle_before: self.cycles,
            recorded: RECORDS,
            ..BatchCounts::default()
        };
        let max = max.min(COMPLETED_BATCH);
        let mut sink = BatchSink::<RECORDS> {
            batch: &mut *batch,
            cycle_before: counts.cycle_before,
            packed: 0,
        };
        let run = self.run_code(max as u64, &mut sink);
        counts.packed = sink.packed;
        let (retired, nops) = match run {
            CodeRun::Retired { instructions, nops } => (instructions, nops),
            CodeRun::Unusual {
                retired,
                nops,
                flow,
                pc,
            } => {
                counts.written = retired as usize;
                self.count_retired(retired, nops);
                let word = self.local_store.load_word(pc);
                let executed = self.finish_unusual::<false>(flow, pc, word, 0);
                let end = BatchEnd {
                    executed,
                    instruction: decode(word).ok(),
                };
                return (counts, Some(end));
            }
            CodeRun::Step { retired, nops } => {
                // A stopped SPU or an illegal word: `step`'s report.
                counts.written = retired as usize;
                self.count_retired(retired, nops);
                let pc = self.pc;
                let word = self.local_store.load_word(pc);
                let executed = if let Status::Stopped(_) = self.status {
                    self.not_executed(pc, word)
                } else {
                    self.illegal_instruction(pc, word)
                };
                let end = BatchEnd {
                    executed,
                    instruction: None,
                };
                return (counts, Some(end));
            }
        };
        counts.written = retired as usize;
        self.count_retired(retired, nops);
        (counts, None)
    }

    /// The batch of the first `counts.written()` records of `records`, run by
    /// [`run_completed`](Self::run_completed).
    pub(crate) fn completed_batch<'a>(
        &'a self,
        batch: &'a BatchRecords,
        counts: BatchCounts,
    ) -> CompletedBatch<'a> {
        let recorded = if counts.recorded { counts.written } else { 0 };
        CompletedBatch {
            records: batch.records.get(..recorded).unwrap_or(&[]),
            len: counts.written,
            accesses: batch.accesses.get(..counts.accesses()).unwrap_or(&[]),
            cycle_before: counts.cycle_before,
            loads: counts.packed & 0xff,
            stores: (counts.packed >> 8) & 0xff,
            branches: counts.packed >> 16,
        }
    }
}
