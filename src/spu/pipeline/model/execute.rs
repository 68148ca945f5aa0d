//! Execution pipes and operand dependency state.
//!
//! The two execution pipes are kept as a ring of rows, one row per cycle: the row written in
//! cycle `c` is stage `jj` during cycle `c`, stage `k` in `c + 1`, ... and stage `o` in
//! `c + O_STAGE`. Execution pipes never stall, so "advancing" is just the clock moving on.
//! Rows stay in the ring after stage o until the longest configurable depth has passed, so a
//! trace can show the dependency columns down to the end of the pipes.
//!
//! Dependencies use a scoreboard equivalent to the article's rule ("a source register is the
//! target of a valid unexecuted instruction in an execution pipe"): for each register, the
//! cycle at which the last in-flight writer releases it (`issue cycle + depth`) and that
//! writer's class. An instruction issued in cycle `c` with depth `d` blocks readers in cycles
//! `c + 1 .. c + d - 1`; a reader can issue in cycle `c + d`, so a chain of dependent class-C
//! instructions issues one link every `depth(C)` cycles.

use super::config::Config;
use super::inflight::{InFlight, NO_REGISTER};
use super::sizes::RING;
use crate::spu::isa::IClass;

/// One instruction in an execution pipe: its sequence number (the record is in the issue
/// pipes' instruction window) and what the scoreboard needs when the pipes are rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::spu::pipeline) struct Slot {
    /// Fetch sequence number; 0 is a bubble.
    pub(in crate::spu::pipeline) seq: u64,
    /// Register written, or [`NO_REGISTER`].
    pub(in crate::spu::pipeline) target: u8,
    /// Class (depth).
    pub(in crate::spu::pipeline) class: IClass,
}

/// An empty slot: sequence number 0 (its target and class are never read), all-zero bits.
const BUBBLE: Slot = Slot {
    seq: 0,
    target: 0,
    class: IClass::Fx2,
};

/// The execution pipes and the register scoreboard.
#[derive(Clone, Debug)]
pub(crate) struct ExecPipes {
    /// Pipe 0 and pipe 1 of the row that entered `jj` in each cycle (mod [`RING`]).
    pub(in crate::spu::pipeline) rows: [[Slot; 2]; RING],
    /// Release cycle of each register (index 128: "no register", always released). Indexed
    /// by any `u8`, so a lookup needs no bounds check.
    pub(in crate::spu::pipeline) ready: [u64; 256],
    /// Class of the last writer of each register.
    pub(in crate::spu::pipeline) producer: [IClass; 256],
}

impl ExecPipes {
    /// Empty pipes, every register released.
    pub const fn new() -> Self {
        ExecPipes {
            rows: [[BUBBLE; 2]; RING],
            ready: [0; 256],
            producer: [IClass::Fx2; 256],
        }
    }

    /// Drops every instruction and releases every register.
    pub fn flush(&mut self) {
        *self = Self::new();
    }

    #[inline(always)]
    pub(in crate::spu::pipeline) fn index(cycle: u64) -> usize {
        (cycle % RING as u64) as usize
    }

    /// The sequence numbers of the instructions that entered `jj` in `cycle` in pipe 0 and 1
    /// (0: a bubble), while the row is kept (up to [`RING`] cycles).
    #[inline(always)]
    pub fn row(&self, cycle: u64) -> [u64; 2] {
        self.rows[Self::index(cycle)].map(|slot| slot.seq)
    }

    /// Starts cycle `cycle`: its `jj` row begins as two bubbles.
    #[inline(always)]
    pub fn open_row(&mut self, cycle: u64) {
        self.rows[Self::index(cycle)] = [BUBBLE; 2];
    }

    /// The sequence number of the instruction of `pipe` (0 or 1) in the row that entered
    /// `jj` in `cycle`; 0 for a bubble.
    #[inline(always)]
    pub fn slot(&self, cycle: u64, pipe: usize) -> u64 {
        self.rows[Self::index(cycle)][pipe & 1].seq
    }

    /// The class whose unreleased target `register` is at `cycle`, if any.
    #[inline(always)]
    pub fn blocking(&self, register: u8, cycle: u64) -> Option<IClass> {
        let index = usize::from(register);
        if self.ready[index] > cycle {
            Some(self.producer[index])
        } else {
            None
        }
    }

    /// The class whose unreleased target `register` is at `cycle` and the cycle it is
    /// released, if it is not yet.
    #[inline(always)]
    pub fn blocking_until(&self, register: u8, cycle: u64) -> Option<(IClass, u64)> {
        let index = usize::from(register);
        let release = self.ready[index];
        (release > cycle).then(|| (self.producer[index], release))
    }

    /// Opens the rows of the `count` cycles after `last` as bubbles, as `count` calls of
    /// [`open_row`](Self::open_row) would (the stall skip: nothing issues in them).
    pub fn open_rows_after(&mut self, last: u64, count: u64) {
        for cycle in last + 1..=last + count.min(RING as u64) {
            self.open_row(cycle);
        }
    }

    /// Whether the row that entered `jj` in `cycle` holds only bubbles.
    #[inline(always)]
    pub fn row_is_empty(&self, cycle: u64) -> bool {
        let [even, odd] = self.rows[Self::index(cycle)];
        even.seq == 0 && odd.seq == 0
    }

    /// The dependency column value of the article for an instruction that entered `jj` in
    /// `entered` and is looked at in `now`: its target, -1 for none or a bubble, 128 once
    /// released.
    pub fn dependency_column(slot: Option<&InFlight>, depth: u8, entered: u64, now: u64) -> i16 {
        match slot {
            Some(inflight) if inflight.target != NO_REGISTER => {
                if now.saturating_sub(entered) >= u64::from(depth) {
                    128
                } else {
                    i16::from(inflight.target)
                }
            }
            _ => -1,
        }
    }

    /// Removes every instruction younger than the one in `pipe` of the row that entered `jj`
    /// in `row` (a mispredicted branch), up to cycle `now`, and rebuilds the register release
    /// times from the instructions that remain.
    pub fn squash_younger(&mut self, row: u64, pipe: usize, now: u64, config: &Config) {
        if pipe == 0 {
            self.rows[Self::index(row)][1] = BUBBLE;
        }
        for cycle in row + 1..=now {
            self.rows[Self::index(cycle)] = [BUBBLE; 2];
        }
        // Only registers 0-127 are ever written (entries 128-255 stay 0, "no register").
        self.ready[..128].fill(0);
        let oldest = now.saturating_sub(RING as u64 - 1);
        for cycle in oldest..=now {
            for slot in self.rows[Self::index(cycle)] {
                if slot.seq != 0 && slot.target != NO_REGISTER {
                    let index = usize::from(slot.target & 0x7f);
                    let release = cycle + u64::from(config.depth(slot.class));
                    if release >= self.ready[index] {
                        self.ready[index] = release;
                        self.producer[index] = slot.class;
                    }
                }
            }
        }
    }

    /// Moves the pipes `cycles` cycles and `seqs` fetches on from the end of cycle `now`, as
    /// if that many cycles had repeated what happened before (the fast-forward): each row
    /// moves to the cycle `cycles` later with its sequence numbers `seqs` higher, and each
    /// unreleased register is released `cycles` later.
    #[cfg_attr(feature = "spu-lean", allow(dead_code))] // the fast-forward's only
    pub(in crate::spu::pipeline) fn shift(&mut self, seqs: u64, cycles: u64, now: u64) {
        let old = self.rows;
        for back in 0..RING as u64 {
            let row = old[Self::index(now.wrapping_sub(back))];
            self.rows[Self::index(now.wrapping_add(cycles).wrapping_sub(back))] =
                row.map(|slot| Slot {
                    seq: if slot.seq == 0 { 0 } else { slot.seq + seqs },
                    ..slot
                });
        }
        for ready in &mut self.ready {
            if *ready > now {
                *ready += cycles;
            }
        }
    }

    /// Puts `inflight` into its execution pipe in this cycle's row and records its target's
    /// release.
    #[inline(always)]
    pub fn enter(&mut self, cycle: u64, inflight: &InFlight, depth: u8) {
        let pipe = usize::from(inflight.class.pipe() & 1);
        self.rows[Self::index(cycle)][pipe] = Slot {
            seq: inflight.seq,
            target: inflight.target,
            class: inflight.class,
        };
        if inflight.target != NO_REGISTER {
            let index = usize::from(inflight.target & 0x7f);
            let release = cycle + u64::from(depth);
            if release >= self.ready[index] {
                self.ready[index] = release;
                self.producer[index] = inflight.class;
            }
        }
    }
}

impl Default for ExecPipes {
    fn default() -> Self {
        Self::new()
    }
}
