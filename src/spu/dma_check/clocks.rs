//! Happens-before across SPUs: a vector clock per SPU and per synchronizing object (signal
//! registers, lock lines, the host's mailboxes).
//!
//! Each SPU counts its own epochs. A *release* (a `sndsig`, a lock-line store, an outbound
//! mailbox write) joins the SPU's clock into the object's and starts a new epoch; an
//! *acquire* (a signal read, a `getllar`, an inbound mailbox read) joins the object's clock
//! into the reader's. Whatever an SPU did in epoch `e` happened before anything another SPU
//! does once its clock holds at least `e` for that SPU: so a transfer that an SPU saw complete
//! in epoch `e` is ordered before another SPU's later command whose issue clock holds `e`.

use crate::spu::arena::SPU_COUNT;

/// Epochs of each SPU that are known to have happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Clock([u32; SPU_COUNT]);

impl Clock {
    /// Knows nothing.
    pub(super) const ZERO: Clock = Clock([0; SPU_COUNT]);

    /// SPU `spu`'s own clock at its start: its first epoch, 1.
    pub(super) fn start(spu: u8) -> Clock {
        let mut clock = Clock::ZERO;
        if let Some(own) = clock.0.get_mut(usize::from(spu)) {
            *own = 1;
        }
        clock
    }

    /// The epoch of `spu` this clock knows (0: none).
    pub(super) fn of(&self, spu: u8) -> u32 {
        self.0.get(usize::from(spu)).copied().unwrap_or(0)
    }

    /// Learns everything `other` knows.
    pub(super) fn join(&mut self, other: &Clock) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0.iter()) {
            *mine = (*mine).max(*theirs);
        }
    }

    /// SPU `spu` starts a new epoch (after a release).
    pub(super) fn tick(&mut self, spu: u8) {
        if let Some(own) = self.0.get_mut(usize::from(spu)) {
            *own = own.saturating_add(1);
        }
    }
}

/// Lock lines whose clocks are kept apart.
pub(super) const LINES: usize = 32;

/// The clocks of the objects SPUs synchronize through.
#[derive(Clone, Debug)]
pub(super) struct SyncObjects {
    /// Each SPU's two signal-notification registers.
    signals: [[Clock; 2]; SPU_COUNT],
    /// Lock lines (128-byte line numbers) and their clocks, oldest first.
    lines: [(u64, Clock); LINES],
    lines_len: usize,
    /// The join of the clocks of lines no longer kept apart: an acquire of a line not in
    /// `lines` takes it too, so forgetting a line can hide a race but never invent one.
    forgotten_lines: Clock,
    /// Lines merged into `forgotten_lines`.
    pub(super) lines_merged: u64,
    /// The host: what an SPU writes to an outbound mailbox, the host may pass to any SPU's
    /// inbound mailbox.
    host: Clock,
}

impl SyncObjects {
    pub(super) const fn new() -> Self {
        SyncObjects {
            signals: [[Clock::ZERO; 2]; SPU_COUNT],
            lines: [(0, Clock::ZERO); LINES],
            lines_len: 0,
            forgotten_lines: Clock::ZERO,
            lines_merged: 0,
            host: Clock::ZERO,
        }
    }

    /// Signal register `register` (0 or 1) of SPU `spu`.
    pub(super) fn signal(&mut self, spu: u8, register: usize) -> Option<&mut Clock> {
        self.signals
            .get_mut(usize::from(spu))
            .and_then(|registers| registers.get_mut(register))
    }

    /// The host's clock.
    pub(super) fn host(&mut self) -> &mut Clock {
        &mut self.host
    }

    /// Joins `clock` into lock line `line`'s.
    pub(super) fn release_line(&mut self, line: u64, clock: &Clock) {
        if let Some((_, kept)) = self
            .lines
            .iter_mut()
            .take(self.lines_len)
            .find(|(l, _)| *l == line)
        {
            kept.join(clock);
            return;
        }
        if self.lines_len == LINES {
            // Merge the oldest line into the forgotten ones to make room.
            if let Some((_, oldest)) = self.lines.first() {
                self.forgotten_lines.join(oldest);
            }
            self.lines.copy_within(1.., 0);
            self.lines_len -= 1;
            self.lines_merged += 1;
        }
        if let Some(slot) = self.lines.get_mut(self.lines_len) {
            *slot = (line, *clock);
            self.lines_len += 1;
        }
    }

    /// What an acquire of lock line `line` learns.
    pub(super) fn line(&self, line: u64) -> Clock {
        let mut clock = self.forgotten_lines;
        if let Some((_, kept)) = self
            .lines
            .iter()
            .take(self.lines_len)
            .find(|(l, _)| *l == line)
        {
            clock.join(kept);
        }
        clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forgotten_line_still_orders_its_acquirers() {
        let mut objects = SyncObjects::new();
        let mut writer = Clock::start(1);
        writer.tick(1);
        objects.release_line(0, &writer);
        for line in 1..=LINES as u64 {
            objects.release_line(line, &Clock::start(2));
        }
        assert_eq!(objects.lines_merged, 1);
        // Line 0 was merged: acquiring it (or any line) learns SPU1's epoch 2.
        assert_eq!(objects.line(0).of(1), 2);
        assert_eq!(objects.line(5).of(1), 2);
        assert_eq!(objects.line(5).of(2), 1);
    }

    #[test]
    fn join_keeps_the_larger_epochs() {
        let mut a = Clock::start(0);
        let mut b = Clock::start(3);
        b.tick(3);
        a.join(&b);
        assert_eq!((a.of(0), a.of(3), a.of(5)), (1, 2, 0));
        assert_eq!(Clock::ZERO.of(9), 0);
    }
}
