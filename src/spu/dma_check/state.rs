//! What the checker knows: each SPU's pending commands, ordering points and clock, the
//! objects SPUs synchronize through, the transfers other SPUs may race with, and the counts.
//! This file dispatches the channel traffic; `issue.rs` checks a command as it is issued,
//! `access.rs` an instruction's local-store access.

use super::clocks::{Clock, SyncObjects};
use super::history::History;
use super::pending::{PendingTable, Transfer};
use super::race::{DmaRace, TransferInfo, reads_local_store, writes_local_store};
use super::span::Span;
use super::stats::DmaCheckStats;
use crate::spu::arena::SPU_COUNT;
use crate::spu::exec::{
    ChannelOperation, MFC_CMD, MFC_RD_ATOMIC_STAT, MFC_RD_LIST_STALL_STAT, MFC_RD_TAG_STAT,
    MFC_WR_LIST_STALL_ACK, MFC_WR_TAG_UPDATE, SPU_RD_EVENT_STAT, SPU_RD_IN_MBOX,
    SPU_RD_SIG_NOTIFY_1, SPU_RD_SIG_NOTIFY_2, SPU_WR_OUT_INTR_MBOX, SPU_WR_OUT_MBOX,
};
use crate::spu::main_memory::LINE_BYTES;
use crate::spu::mfc::{CommandKind, EVENT_LIST_STALL};
use crate::spu::probes::ChannelEvent;

/// Tag groups.
const TAGS: usize = 32;
/// Races one notification can hand to the listeners; more are counted.
pub(super) const FOUND_PER_EVENT: usize = 16;

/// The races one notification found, for the listeners once the state is released.
pub(super) type Found = heapless::Vec<DmaRace, FOUND_PER_EVENT>;

/// One SPU's part.
#[derive(Clone, Debug)]
pub(super) struct SpuCheck {
    pub pending: PendingTable,
    /// Its vector clock.
    pub clock: Clock,
    /// The counter the next command gets (from 1).
    pub next_seq: u64,
    /// The last `barrier` command (0: none).
    pub queue_barrier: u64,
    /// The last barrier of each tag group (`b` form, `mfceieio`, `mfcsync`; 0: none).
    pub group_barriers: [u64; TAGS],
    /// Commands issued before the last `MFC_WrTagUpdate` (counters below this): a tag-status
    /// read reports on them.
    pub tag_update_seq: u64,
    /// Local-store bytes some pending command writes, and bytes one reads (its data or list
    /// elements): an access outside both meets no pending command.
    pub writes_ls: Span,
    pub reads_ls: Span,
}

impl SpuCheck {
    const fn new() -> Self {
        SpuCheck {
            pending: PendingTable::new(),
            clock: Clock::ZERO,
            next_seq: 1,
            queue_barrier: 0,
            group_barriers: [0; TAGS],
            tag_update_seq: 0,
            writes_ls: Span::EMPTY,
            reads_ls: Span::EMPTY,
        }
    }

    /// The bounds again, after the table changed.
    pub fn update_bounds(&mut self) {
        let (mut writes, mut reads) = (Span::EMPTY, Span::EMPTY);
        for command in self.pending.commands() {
            for transfer in self.pending.transfers(command) {
                if writes_local_store(&command.command) {
                    writes = writes.union(&transfer.ls());
                } else if reads_local_store(&command.command) {
                    reads = reads.union(&transfer.ls());
                }
            }
            if let Some(list) = command.list {
                reads = reads.union(&list.elements_read());
            }
        }
        (self.writes_ls, self.reads_ls) = (writes, reads);
    }

    /// The transfer `transfer` of pending command `index` as a race names it.
    pub fn info(&self, spu: u8, index: usize, transfer: &Transfer) -> Option<TransferInfo> {
        let command = self.pending.commands().get(index)?;
        Some(TransferInfo {
            spu,
            command: command.command,
            tag: command.tag,
            ls: transfer.ls(),
            ea: if moves_main_memory(command.command.kind) || is_atomic(command.command.kind) {
                transfer.ea()
            } else {
                Span::EMPTY
            },
            element: transfer.element(),
            pc: command.pc,
            cycle: command.cycle,
        })
    }
}

/// Whether a command of this kind moves data between the local store and main memory (not an
/// atomic command, which synchronizes, nor `sndsig`, whose EA is a register).
pub(super) fn moves_main_memory(kind: CommandKind) -> bool {
    matches!(
        kind,
        CommandKind::Get | CommandKind::Put | CommandKind::GetList | CommandKind::PutList
    )
}

/// Whether it is one of the lock-line commands.
pub(super) fn is_atomic(kind: CommandKind) -> bool {
    matches!(
        kind,
        CommandKind::Getllar | CommandKind::Putllc | CommandKind::Putlluc | CommandKind::Putqlluc
    )
}

/// The 128-byte line of `ea`.
pub(super) fn line_of(ea: u64) -> u64 {
    ea / LINE_BYTES
}

/// Everything the checker keeps.
#[derive(Clone, Debug)]
pub(super) struct State {
    pub spus: [SpuCheck; SPU_COUNT],
    /// The SPUs an observer was made for (bit n: SPU n).
    pub active: u8,
    pub sync: SyncObjects,
    pub history: History,
    pub stats: DmaCheckStats,
}

impl State {
    pub const fn new() -> Self {
        const SPU: SpuCheck = SpuCheck::new();
        State {
            spus: [SPU; SPU_COUNT],
            active: 0,
            sync: SyncObjects::new(),
            history: History::new(),
            stats: DmaCheckStats::new(),
        }
    }

    /// SPU `spu` is checked from now on.
    pub fn activate(&mut self, spu: u8) {
        if self.active & (1 << spu) == 0 {
            self.active |= 1 << spu;
            if let Some(check) = self.spus.get_mut(usize::from(spu)) {
                check.clock = Clock::start(spu);
            }
        }
    }

    /// Whether transfers are kept for the check across SPUs (more than one is checked).
    pub fn across_spus(&self) -> bool {
        self.active.count_ones() > 1
    }

    /// The clocks of the SPUs checked.
    pub fn clocks(&self) -> heapless::Vec<(u8, Clock), SPU_COUNT> {
        (0..SPU_COUNT as u8)
            .filter(|spu| self.active & (1 << spu) != 0)
            .filter_map(|spu| Some((spu, self.spus.get(usize::from(spu))?.clock)))
            .collect()
    }

    /// Hands `race` to the listeners (through `found`), or counts it when `found` is full.
    pub fn found(&mut self, found: &mut Found, race: DmaRace) {
        self.stats.races += 1;
        if found.push(race).is_ok() {
            self.stats.reported += 1;
        } else {
            self.stats.unreported += 1;
        }
    }

    /// A channel instruction of SPU `spu` completed.
    pub fn channel(&mut self, spu: u8, event: &ChannelEvent<'_>, found: &mut Found) {
        match (event.operation, event.channel) {
            (ChannelOperation::Write, MFC_CMD) => self.issue(spu, event, found),
            (ChannelOperation::Write, MFC_WR_TAG_UPDATE) => {
                if let Some(check) = self.spus.get_mut(usize::from(spu)) {
                    check.tag_update_seq = check.next_seq;
                }
            }
            (ChannelOperation::Read, MFC_RD_TAG_STAT) => self.tag_status(spu, event.value),
            (ChannelOperation::Read, MFC_RD_ATOMIC_STAT) => self.atomic_status(spu),
            (ChannelOperation::Read, MFC_RD_LIST_STALL_STAT) => self.list_stalled(spu, event.value),
            // The list-stall event says a list stalled, not which: every stalled list's stretch
            // is complete.
            (ChannelOperation::Read, SPU_RD_EVENT_STAT) if event.value & EVENT_LIST_STALL != 0 => {
                self.list_stalled(spu, u32::MAX);
            }
            (ChannelOperation::Write, MFC_WR_LIST_STALL_ACK) => {
                self.list_acknowledged(spu, event, found);
            }
            (ChannelOperation::Read, SPU_RD_SIG_NOTIFY_1 | SPU_RD_SIG_NOTIFY_2) => {
                let register = usize::from(event.channel == SPU_RD_SIG_NOTIFY_2);
                if let Some(signal) = self.sync.signal(spu, register) {
                    let learnt = *signal;
                    self.acquire(spu, &learnt);
                }
            }
            (ChannelOperation::Write, SPU_WR_OUT_MBOX | SPU_WR_OUT_INTR_MBOX) => {
                let mut host = *self.sync.host();
                self.release(spu, &mut host);
                *self.sync.host() = host;
            }
            (ChannelOperation::Read, SPU_RD_IN_MBOX) => {
                let learnt = *self.sync.host();
                self.acquire(spu, &learnt);
            }
            _ => {}
        }
    }

    /// SPU `spu` learns what `clock` knows.
    pub fn acquire(&mut self, spu: u8, clock: &Clock) {
        if let Some(check) = self.spus.get_mut(usize::from(spu)) {
            check.clock.join(clock);
        }
    }

    /// SPU `spu` publishes what it knows into `object` and starts a new epoch.
    pub fn release(&mut self, spu: u8, object: &mut Clock) {
        if let Some(check) = self.spus.get_mut(usize::from(spu)) {
            object.join(&check.clock);
            check.clock.tick(spu);
        }
    }

    /// `MFC_RdTagStat` read `status`: the commands of those groups issued before the status
    /// request are complete.
    fn tag_status(&mut self, spu: u8, status: u32) {
        let Some(check) = self.spus.get_mut(usize::from(spu)) else {
            return;
        };
        let epoch = check.clock.of(spu);
        let mut index = 0;
        while let Some(command) = check.pending.commands().get(index) {
            let complete = command
                .tag
                .is_some_and(|tag| status & (1 << (tag & 31)) != 0)
                && command.seq < check.tag_update_seq;
            if complete {
                self.history.mark_done(spu, command.seq, epoch);
                check.pending.remove(index);
            } else {
                index += 1;
            }
        }
        check.update_bounds();
    }

    /// `MFC_RdAtomicStat`: the immediate atomic command completed; a `getllar` acquires its
    /// line (whatever was released into it before the program saw the line loaded).
    fn atomic_status(&mut self, spu: u8) {
        let Some(check) = self.spus.get_mut(usize::from(spu)) else {
            return;
        };
        let Some(index) = check
            .pending
            .commands()
            .iter()
            .position(|c| c.tag.is_none())
        else {
            return;
        };
        let line = check
            .pending
            .commands()
            .get(index)
            .filter(|c| c.command.kind == CommandKind::Getllar)
            .and_then(|c| check.pending.transfers(c).first())
            .map(|transfer| line_of(transfer.ea));
        check.pending.remove(index);
        check.update_bounds();
        if let Some(line) = line {
            let learnt = self.sync.line(line);
            self.acquire(spu, &learnt);
        }
    }
}
