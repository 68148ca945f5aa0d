//! The simulator's profiling checkpoints (`prof_cpN`, encoded as `and $N,$N,$N`) and the
//! counters they control; the rules are on [`ProfileCounters`].

/// Checkpoint number that clears the counters.
pub const PROFILE_CLEAR: u8 = 0;
/// Checkpoint number that starts the counters.
pub const PROFILE_START: u8 = 30;
/// Checkpoint number that stops the counters.
pub const PROFILE_STOP: u8 = 31;

/// The performance counters the profiling checkpoints (`prof_cpN`, encoded as
/// `and $N,$N,$N`) control.
///
/// `prof_cp0` clears the counters, `prof_cp30` starts them, `prof_cp31` stops them, and every
/// checkpoint N = 0..=31 reports `SPU<n>: CP<N>, <instructions>(<non-NOP>), <cycles>`.
///
/// Counting rule of this model: a checkpoint instruction is itself counted when the counters
/// were running *before* it executed; then its action is applied and the line reports the
/// counters after the action (so `prof_cp0` always reports zeros and `prof_cp31` includes
/// itself). The non-NOP count excludes `nop`, `lnop`, the hints `hbr`/`hbra`/`hbrr` and the
/// checkpoint instructions themselves (the simulator's `nop_inst_count` counts NOP, LNOP,
/// HBR and HBC).
///
/// Cycles are measured from a cycle clock supplied by the caller (in instruction mode the
/// clock is the number of retired instructions), so a timing model can reuse the counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProfileCounters {
    /// True between `prof_cp30` and `prof_cp31`.
    pub running: bool,
    /// Instructions counted.
    pub instructions: u64,
    /// Instructions counted that are not NOP-class.
    pub non_nop_instructions: u64,
    /// Cycles accumulated in completed start..stop intervals (since the last clear).
    pub accumulated_cycles: u64,
    /// Clock value when counting last started (or was cleared while running).
    pub started_at: u64,
}

impl ProfileCounters {
    /// Stopped and zeroed.
    pub const fn new() -> Self {
        ProfileCounters {
            running: false,
            instructions: 0,
            non_nop_instructions: 0,
            accumulated_cycles: 0,
            started_at: 0,
        }
    }

    /// Counts one retired instruction, if running.
    #[inline]
    pub fn count(&mut self, is_nop: bool) {
        self.count_many(1, u64::from(!is_nop));
    }

    /// Counts `instructions` retired instructions, `non_nop` of them not NOP-class, if running.
    #[inline]
    pub fn count_many(&mut self, instructions: u64, non_nop: u64) {
        if self.running {
            self.instructions = self.instructions.wrapping_add(instructions);
            self.non_nop_instructions = self.non_nop_instructions.wrapping_add(non_nop);
        }
    }

    /// Cycles counted up to clock value `now`.
    pub fn cycles_at(&self, now: u64) -> u64 {
        let current = if self.running {
            now.saturating_sub(self.started_at)
        } else {
            0
        };
        self.accumulated_cycles.saturating_add(current)
    }

    /// Applies the action of checkpoint `checkpoint` at clock value `now` (clear/start/stop;
    /// other numbers do nothing).
    pub fn apply(&mut self, checkpoint: u8, now: u64) {
        match checkpoint {
            PROFILE_CLEAR => {
                self.instructions = 0;
                self.non_nop_instructions = 0;
                self.accumulated_cycles = 0;
                self.started_at = now;
            }
            PROFILE_START if !self.running => {
                self.running = true;
                self.started_at = now;
            }
            PROFILE_STOP if self.running => {
                self.accumulated_cycles = self.cycles_at(now);
                self.running = false;
            }
            _ => {}
        }
    }
}

/// One checkpoint report; its `Display` is the simulator's line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfileCheckpoint {
    /// SPU number.
    pub spu: u8,
    /// Checkpoint number N (0..=31).
    pub checkpoint: u8,
    /// Instructions counted.
    pub instructions: u64,
    /// Non-NOP instructions counted.
    pub non_nop_instructions: u64,
    /// Cycles counted.
    pub cycles: u64,
}

impl core::fmt::Display for ProfileCheckpoint {
    /// `SPU<n>: CP<N>, <instructions>(<non-NOP instructions>), <cycles>`
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "SPU{}: CP{}, {}({}), {}",
            self.spu, self.checkpoint, self.instructions, self.non_nop_instructions, self.cycles
        )
    }
}

/// The checkpoint number if `word` is a profiling checkpoint `and $N,$N,$N` with N <= 31.
pub const fn checkpoint_number(word: u32) -> Option<u8> {
    let n = word & 0x7f;
    if n <= 31 && word == (0x1820_0000 | (n << 14) | (n << 7) | n) {
        Some(n as u8)
    } else {
        None
    }
}
