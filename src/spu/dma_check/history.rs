//! The main-memory transfers of every SPU that some other SPU does not yet know to be
//! complete: what a command of another SPU is checked against.
//!
//! A transfer stays until every other SPU checked has learnt (through its clock) that its SPU
//! saw it complete; the oldest is forgotten when the table is full (counted).

use super::clocks::Clock;
use super::race::TransferInfo;

/// Transfers kept for the check across SPUs.
pub const HISTORY_TRANSFERS: usize = 256;

/// A transfer as the history keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Record {
    pub transfer: TransferInfo,
    /// The issuing SPU's command counter of its command.
    pub seq: u64,
    /// Writes main memory (a put) rather than reading it (a get).
    pub writes: bool,
    /// The issuing SPU's epoch in which it saw the transfer complete (0: not yet).
    pub done: u32,
}

impl Record {
    /// Whether SPU `spu`, whose clock is `clock`, knows the transfer complete: anything it
    /// does from now on is ordered after the transfer.
    pub fn known_done_by(&self, clock: &Clock) -> bool {
        self.done != 0 && clock.of(self.transfer.spu) >= self.done
    }
}

/// The records, oldest first.
#[derive(Clone, Debug)]
pub(super) struct History {
    records: [Option<Record>; HISTORY_TRANSFERS],
    len: usize,
    /// Records forgotten while another SPU might still race with them.
    pub forgotten: u64,
}

impl History {
    pub const fn new() -> Self {
        History {
            records: [None; HISTORY_TRANSFERS],
            len: 0,
            forgotten: 0,
        }
    }

    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().take(self.len).flatten()
    }

    /// Adds `record`; when full, first drops the records every SPU of `clocks` (those
    /// checked, but the issuing one) knows complete, then the oldest (counted).
    pub fn add(&mut self, record: Record, clocks: &[(u8, Clock)]) {
        if self.len == HISTORY_TRANSFERS {
            self.retain(|r| {
                !clocks
                    .iter()
                    .filter(|(spu, _)| *spu != r.transfer.spu)
                    .all(|(_, clock)| r.known_done_by(clock))
            });
        }
        if self.len == HISTORY_TRANSFERS {
            self.records.copy_within(1.., 0);
            self.len -= 1;
            self.forgotten += 1;
        }
        if let Some(slot) = self.records.get_mut(self.len) {
            *slot = Some(record);
            self.len += 1;
        }
    }

    /// SPU `spu` saw the transfers of its command `seq` complete in epoch `epoch` (a record
    /// already marked keeps its earlier epoch).
    pub fn mark_done(&mut self, spu: u8, seq: u64, epoch: u32) {
        for record in self.records.iter_mut().take(self.len).flatten() {
            if record.transfer.spu == spu && record.seq == seq && record.done == 0 {
                record.done = epoch;
            }
        }
    }

    fn retain(&mut self, mut keep: impl FnMut(&Record) -> bool) {
        let mut kept = 0;
        for index in 0..self.len {
            let record = self.records.get(index).copied().flatten();
            if let Some(record) = record.filter(|r| keep(r))
                && let Some(slot) = self.records.get_mut(kept)
            {
                *slot = Some(record);
                kept += 1;
            }
        }
        self.len = kept;
    }
}
