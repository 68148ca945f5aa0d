//! Trial execution: instructions run on the architectural state with a journal that can take
//! them back.
//!
//! The pipeline's fast-forward under the real fetch unit completes a loop's next repetition
//! functionally before it knows the repetition is one: a branch may leave the path the fetch
//! unit predicted (the loop exits) or a store may hit the code being fetched. The journal
//! keeps what each instruction overwrote (its target register, the quadword a store
//! replaced) and the little scalar state an ordinary instruction may change, so such a
//! repetition is undone as if it had never run and the cycle-by-cycle model takes over.
//! Counting is left to the caller (`retire_replayed_run` once per repetition).
//!
//! The registers are kept whole rather than noted instruction by instruction: the caller
//! names, once for a run of trials, every register the instructions may overwrite (their RT
//! fields, [`Journal::keep_registers`]), and each trial starts by copying those. A loop body
//! writes a dozen registers or so, a few of them more than once; noting each instruction's
//! target as it ran cost the fast-forward about fourteen host instructions per instruction,
//! the copy costs about six per register and repetition.

use super::execute::Ordinary;
use super::instructions::store_address;
use super::op::Op;
use super::outcome::Status;
use super::quadword::Quadword;
use super::state::SpuState;
use crate::spu::isa::Instruction;

/// Registers at most: an RT field's seven bits.
const REGISTERS: usize = 128;

/// What a trial overwrote: the quadwords its stores replaced (newest last, up to `N`), the
/// registers it may write (kept whole at its start) and the scalar state.
#[derive(Clone, Debug)]
pub(crate) struct Journal<const N: usize> {
    /// Quadword address and what it held.
    stores: [(u32, Quadword); N],
    len: usize,
    /// The registers kept at each trial's start, `kept_count` of them, and as a bit set.
    kept: [u8; REGISTERS],
    kept_count: usize,
    kept_set: u128,
    /// What they held, by register number.
    saved: [Quadword; REGISTERS],
    pc: u32,
    fpscr: Quadword,
    interrupts_enabled: bool,
}

/// An instruction that completed on trial as an ordinary one: retired, SPU running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trial {
    /// What it was.
    pub ordinary: Ordinary,
    /// The quadword address it stored to.
    pub stored: Option<u32>,
}

impl<const N: usize> Journal<N> {
    /// An empty journal.
    pub(crate) const fn new() -> Self {
        Journal {
            stores: [(0, Quadword::ZERO); N],
            len: 0,
            kept: [0; REGISTERS],
            kept_count: 0,
            kept_set: 0,
            saved: [Quadword::ZERO; REGISTERS],
            pc: 0,
            fpscr: Quadword::ZERO,
            interrupts_enabled: false,
        }
    }

    /// Names the registers the instructions of the next trials may overwrite: the RT fields
    /// `targets` (each register once, whatever the repeats). Every instruction tried must
    /// have its RT among them.
    pub(crate) fn keep_registers(&mut self, targets: impl IntoIterator<Item = u8>) {
        self.kept_count = 0;
        self.kept_set = 0;
        for target in targets {
            let register = target & 0x7f;
            let bit = 1u128 << register;
            if self.kept_set & bit == 0 {
                self.kept_set |= bit;
                self.kept[self.kept_count] = register;
                self.kept_count += 1;
            }
        }
    }

    /// Notes that the quadword at `address` held `value`; `false` (nothing noted) when the
    /// journal is full.
    #[inline(always)]
    fn note_store(&mut self, address: u32, value: Quadword) -> bool {
        match self.stores.get_mut(self.len) {
            Some(entry) => {
                *entry = (address, value);
                self.len += 1;
                true
            }
            None => false,
        }
    }
}

impl<const N: usize> Default for Journal<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl SpuState {
    /// Starts a trial: from here on [`undo_trial`](Self::undo_trial) returns to this state
    /// (the registers [`Journal::keep_registers`] named, the stores, the scalar state).
    /// `false` (no trial) unless the SPU is running: a trial ends running or is undone.
    #[must_use]
    pub(crate) fn begin_trial<const N: usize>(&self, journal: &mut Journal<N>) -> bool {
        if self.status != Status::Running {
            return false;
        }
        for &register in &journal.kept[..journal.kept_count] {
            journal.saved[usize::from(register)] = self.register(register);
        }
        journal.len = 0;
        journal.pc = self.pc;
        journal.fpscr = self.fpscr;
        journal.interrupts_enabled = self.interrupts_enabled;
        true
    }

    /// Executes `insn` at the PC on trial, without counting it; `None` if it did anything
    /// but retire as an ordinary instruction (a checkpoint, a stop, a halt, a blocked
    /// channel, a fault) or the journal is full: the state may have changed, the caller
    /// undoes the trial. Channel instructions must not be tried (the journal does not keep
    /// the channels), nor an instruction whose RT the journal does not keep.
    #[inline(always)]
    pub(crate) fn try_execute<const N: usize>(
        &mut self,
        insn: &Instruction,
        journal: &mut Journal<N>,
    ) -> Option<Trial> {
        // Every instruction writes at most its RT register (or nothing), which the trial's
        // start kept.
        debug_assert!(
            journal.kept_set & (1 << (insn.rt & 0x7f)) != 0,
            "RT {} of {:?} is not kept",
            insn.rt,
            insn.mnemonic
        );
        let op = Op::of(insn);
        let stored = store_address(self, &op, self.pc);
        if let Some(address) = stored
            && !journal.note_store(address, self.local_store.load_quadword(address))
        {
            return None;
        }
        let ordinary = self.execute_uncounted(&op).ok()?;
        Some(Trial { ordinary, stored })
    }

    /// Takes back everything since [`begin_trial`](Self::begin_trial).
    pub(crate) fn undo_trial<const N: usize>(&mut self, journal: &Journal<N>) {
        for &(address, value) in journal.stores[..journal.len].iter().rev() {
            self.local_store.store_quadword(address, value);
        }
        for &register in &journal.kept[..journal.kept_count] {
            self.set_register(register, journal.saved[usize::from(register)]);
        }
        self.pc = journal.pc;
        self.status = Status::Running;
        self.fpscr = journal.fpscr;
        self.interrupts_enabled = journal.interrupts_enabled;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::boxed::Box;

    #[test]
    fn an_undone_trial_leaves_registers_memory_and_pc_as_they_were() {
        let mut spu = Box::new(SpuState::new(0));
        // il $3,7; stqd $3,32($0); ai $3,$3,1; brz $3,0 (not taken); stop
        let words = [
            0x4080_0383,
            0x2400_8003,
            0x1c00_4183,
            0x2000_0003,
            0x0000_0000,
        ];
        spu.load_program_words(&words, 0).unwrap();
        let before = spu.clone();
        let mut journal = Journal::<8>::new();
        // The RT fields: $3 four times (written twice), stop's 0.
        journal.keep_registers([3, 3, 3, 3, 0]);
        assert!(spu.begin_trial(&mut journal));
        let mut trials = [None; 4];
        for trial in &mut trials {
            let word = spu.local_store().load_word(spu.pc());
            let insn = crate::spu::isa::decode(word).unwrap();
            *trial = spu.try_execute(&insn, &mut journal);
        }
        assert_eq!(spu.register(3).words(), [8; 4]);
        assert_eq!(spu.local_store().load_quadword(32).words(), [7; 4]);
        assert_eq!(trials[1].map(|t| t.stored), Some(Some(32)));
        assert_eq!(spu.pc(), 16);
        // A stop is not an ordinary retirement.
        let stop = crate::spu::isa::decode(0).unwrap();
        assert_eq!(spu.try_execute(&stop, &mut journal), None);
        spu.undo_trial(&journal);
        assert_eq!(spu.pc(), before.pc());
        assert_eq!(spu.register(3), before.register(3));
        assert_eq!(
            spu.local_store().load_quadword(32),
            before.local_store().load_quadword(32)
        );
        assert_eq!(spu.status(), before.status());
        assert_eq!(spu.instructions_retired(), 0, "trials are not counted");
    }

    #[test]
    fn a_full_journal_refuses_the_instruction() {
        let mut spu = Box::new(SpuState::new(0));
        let mut journal = Journal::<0>::new();
        journal.keep_registers([3]);
        assert!(spu.begin_trial(&mut journal));
        // stqd $3,0($0) needs an entry for the quadword it replaces.
        let store = crate::spu::isa::decode(0x2400_0003).unwrap();
        assert_eq!(spu.try_execute(&store, &mut journal), None);
        spu.undo_trial(&journal);
        assert_eq!(spu.local_store().load_quadword(0), Quadword::ZERO);
    }
}
