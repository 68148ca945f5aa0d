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

use super::config::{Config, MAX_DEPTH};
use super::fetch::{InFlight, NO_REGISTER};
use crate::spu::isa::opcodes::IClass;

/// Stages from `jj` (0) to `o`: `jj k l m n o`.
pub const O_STAGE: u64 = 5;
/// Names of the execution stages from the top.
pub const STAGE_NAMES: [&str; 6] = ["jj", "k", "l", "m", "n", "o"];
/// Rows kept (a power of two above the longest depth).
pub const RING: usize = 64;
const _: () = assert!(RING > MAX_DEPTH as usize && RING > O_STAGE as usize);

/// One cycle's entry into the execution pipes: pipe 0 and pipe 1 (`None` is a bubble).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// Instructions in execution pipe 0 and 1.
    pub slots: [Option<InFlight>; 2],
}

const EMPTY_ROW: Row = Row {
    slots: [None, None],
};

/// The execution pipes and the register scoreboard.
#[derive(Clone, Debug)]
pub struct ExecPipes {
    rows: [Row; RING],
    /// Release cycle of each register (index 128: "no register", always released).
    ready: [u64; 129],
    /// Class of the last writer of each register.
    producer: [IClass; 129],
}

impl ExecPipes {
    /// Empty pipes, every register released.
    pub const fn new() -> Self {
        ExecPipes {
            rows: [EMPTY_ROW; RING],
            ready: [0; 129],
            producer: [IClass::Nop; 129],
        }
    }

    /// Drops every instruction and releases every register.
    pub fn flush(&mut self) {
        *self = Self::new();
    }

    #[inline(always)]
    fn index(cycle: u64) -> usize {
        (cycle % RING as u64) as usize
    }

    /// The row that entered `jj` in `cycle`.
    #[inline(always)]
    pub fn row(&self, cycle: u64) -> &Row {
        &self.rows[Self::index(cycle)]
    }

    /// Starts cycle `cycle`: its `jj` row begins as two bubbles.
    #[inline(always)]
    pub fn open_row(&mut self, cycle: u64) {
        self.rows[Self::index(cycle)] = EMPTY_ROW;
    }

    /// Takes the instruction of `pipe` in the row that entered `jj` in `cycle`.
    #[inline(always)]
    pub fn slot(&self, cycle: u64, pipe: usize) -> Option<InFlight> {
        self.rows[Self::index(cycle)]
            .slots
            .get(pipe)
            .copied()
            .flatten()
    }

    /// The class whose unreleased target `register` is at `cycle`, if any.
    #[inline(always)]
    pub fn blocking(&self, register: u8, cycle: u64) -> Option<IClass> {
        let index = usize::from(register.min(NO_REGISTER));
        if self.ready[index] > cycle {
            Some(self.producer[index])
        } else {
            None
        }
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
        if pipe == 0
            && let Some(slot) = self.rows[Self::index(row)].slots.get_mut(1)
        {
            *slot = None;
        }
        for cycle in row + 1..=now {
            self.rows[Self::index(cycle)] = EMPTY_ROW;
        }
        self.ready = [0; 129];
        let oldest = now.saturating_sub(RING as u64 - 1);
        for cycle in oldest..=now {
            for inflight in self.rows[Self::index(cycle)].slots.iter().flatten() {
                if inflight.target != NO_REGISTER {
                    let index = usize::from(inflight.target & 0x7f);
                    let release = cycle + u64::from(config.depth(inflight.class));
                    if release >= self.ready[index] {
                        self.ready[index] = release;
                        self.producer[index] = inflight.class;
                    }
                }
            }
        }
    }

    /// Puts `inflight` into `pipe` of this cycle's row and records its target's release.
    #[inline(always)]
    pub fn enter(&mut self, cycle: u64, pipe: usize, inflight: InFlight, depth: u8) {
        if let Some(slot) = self.rows[Self::index(cycle)].slots.get_mut(pipe) {
            *slot = Some(inflight);
        }
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
