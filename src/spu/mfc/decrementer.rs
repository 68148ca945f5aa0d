//! The SPU decrementer (`SPU_WrDec`, `SPU_RdDec`): a 32-bit counter that counts down at the
//! timebase frequency and raises the `Tm` event when it passes from 0 to -1.
//!
//! The model counts in SPU cycles: one timebase tick every
//! [`cycles_per_tick`](Decrementer::cycles_per_tick) cycles (tick `k` begins at cycle
//! `k · cycles_per_tick`). The default, [`DEFAULT_CYCLES_PER_TICK`], is the PlayStation 3's
//! ratio: a 3.2 GHz SPU and a timebase of about 80 MHz (79.8 MHz in PS3 system software and
//! homebrew code, 80 MHz in RPCS3; `docs/spu-mfc.md` has the sources). It counts only while the
//! SPU runs: its clock is the SPU's cycle count. It starts stopped and runs from the first
//! `SPU_WrDec`; acknowledging `Tm` while `Tm` is masked stops it, the procedure IBM's SPU
//! timer library uses.

/// Core cycles per timebase tick by default: 3.2 GHz / 80 MHz.
pub const DEFAULT_CYCLES_PER_TICK: u32 = 40;

/// One SPU's decrementer. All-zero bits is the reset state (stopped at 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decrementer {
    /// The value at `written_at` (or the frozen value while stopped).
    value: u32,
    written_at: u64,
    running: bool,
    /// Cycles per tick; 0 stands for the default.
    ratio: u32,
}

impl Decrementer {
    /// Stopped at 0, at the default ratio.
    pub const fn new() -> Self {
        Decrementer {
            value: 0,
            written_at: 0,
            running: false,
            ratio: 0,
        }
    }

    /// Core cycles per timebase tick.
    pub fn cycles_per_tick(&self) -> u32 {
        if self.ratio == 0 {
            DEFAULT_CYCLES_PER_TICK
        } else {
            self.ratio
        }
    }

    /// Sets the ratio (0 restores the default). The value so far is kept.
    pub fn set_cycles_per_tick(&mut self, ratio: u32, now: u64) {
        self.value = self.read(now);
        self.written_at = now;
        self.ratio = ratio;
    }

    fn tick(&self, cycle: u64) -> u64 {
        cycle / u64::from(self.cycles_per_tick())
    }

    /// `SPU_WrDec` at cycle `now`: loads the value and starts counting.
    pub fn write(&mut self, value: u32, now: u64) {
        self.value = value;
        self.written_at = now;
        self.running = true;
    }

    /// `SPU_RdDec` at cycle `now`.
    pub fn read(&self, now: u64) -> u32 {
        if !self.running {
            return self.value;
        }
        let elapsed = self.tick(now).saturating_sub(self.tick(self.written_at));
        self.value.wrapping_sub(elapsed as u32)
    }

    /// Freezes the value at cycle `now`.
    pub fn stop(&mut self, now: u64) {
        self.value = self.read(now);
        self.written_at = now;
        self.running = false;
    }

    /// Whether it counts.
    pub fn running(&self) -> bool {
        self.running
    }

    /// The first cycle after `after` at which the value passes from 0 to -1, if it runs.
    pub fn next_underflow(&self, after: u64) -> Option<u64> {
        if !self.running {
            return None;
        }
        let start = self.tick(self.written_at);
        // The value is -1 (all ones) `value + 1` ticks after the write, then every 2^32.
        let first = start + u64::from(self.value) + 1;
        let after_tick = self.tick(after);
        let tick = if first > after_tick {
            first
        } else {
            let periods = (after_tick - first) / (1 << 32) + 1;
            first + periods * (1 << 32)
        };
        tick.checked_mul(u64::from(self.cycles_per_tick()))
    }
}
