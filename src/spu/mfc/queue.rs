//! The MFC's SPU command queue: up to 16 commands that have not completed, in the order they
//! were issued, and the ordering rules that say which of them may start.

use super::command::{Command, CommandKind, Ordering};
use super::timing::Schedule;

/// Entries of the MFC SPU command queue (the CBEA's 16).
pub const COMMAND_QUEUE_DEPTH: usize = 16;

/// Where a queued command is. `repr(u8)`: `Waiting` is tag 0, so an empty queue is all-zero
/// bits (an SPU's reset state must be, to sit in `.bss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Progress {
    /// Not started: its ordering, or the engine, holds it.
    Waiting,
    /// Its requests are scheduled (for a list, the elements before `list_end`); it completes
    /// at `schedule.done()`.
    Scheduled {
        schedule: Schedule,
        /// One past the last list element of this stretch (0 for a single transfer).
        list_end: u16,
        /// The stretch ends at an element with stall-and-notify.
        stalls: bool,
    },
    /// A list stopped after an element with stall-and-notify; it waits for
    /// `MFC_WrListStallAck`.
    Stalled,
}

/// A command in the queue, with the parameters it was issued with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Queued {
    pub command: Command,
    pub tag: u8,
    pub lsa: u32,
    /// `MFC_EAH`:`MFC_EAL` (for a list: `MFC_EAH` and the list's LS address).
    pub ea: u64,
    pub size: u32,
    /// The cycle it entered the queue.
    pub issued: u64,
    pub progress: Progress,
    /// A list that started: its ordering was satisfied once and for all.
    pub started: bool,
    /// The next list element to transfer.
    pub next_element: u16,
    /// Where the next list element's data goes in the local store.
    pub list_lsa: u32,
}

impl Queued {
    /// Its tag group's bit.
    pub fn tag_bit(&self) -> u32 {
        1u32 << (self.tag & 31)
    }

    /// List elements (8 bytes each).
    pub fn elements(&self) -> u16 {
        (self.size / 8) as u16
    }

    /// The list's local-store address.
    pub fn list_address(&self) -> u32 {
        self.ea as u32
    }
}

const EMPTY: Queued = Queued {
    command: Command {
        opcode: 0,
        kind: CommandKind::Get,
        ordering: Ordering::None,
    },
    tag: 0,
    lsa: 0,
    ea: 0,
    size: 0,
    issued: 0,
    progress: Progress::Waiting,
    started: false,
    next_element: 0,
    list_lsa: 0,
};

/// The queue: a fixed array, oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CommandQueue {
    entries: [Queued; COMMAND_QUEUE_DEPTH],
    len: u8,
}

impl CommandQueue {
    pub const fn new() -> Self {
        CommandQueue {
            entries: [EMPTY; COMMAND_QUEUE_DEPTH],
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn is_full(&self) -> bool {
        self.len() >= COMMAND_QUEUE_DEPTH
    }

    /// Appends a command; `false` when the queue is full.
    pub fn push(&mut self, entry: Queued) -> bool {
        let len = self.len();
        match self.entries.get_mut(len) {
            Some(slot) => {
                *slot = entry;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// Removes entry `index`, keeping the order of the rest.
    pub fn remove(&mut self, index: usize) {
        let len = self.len();
        if index >= len {
            return;
        }
        self.entries.copy_within(index + 1..len, index);
        self.len -= 1;
    }

    pub fn get(&self, index: usize) -> Option<&Queued> {
        self.entries.get(..self.len())?.get(index)
    }

    pub fn get_mut(&mut self, index: usize) -> Option<&mut Queued> {
        let len = self.len();
        self.entries.get_mut(..len)?.get_mut(index)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.entries.iter().take(self.len())
    }

    /// The tag groups with a command that has not completed (a stalled list included).
    pub fn busy_tags(&self) -> u32 {
        self.iter().fold(0, |tags, entry| tags | entry.tag_bit())
    }

    /// Whether entry `index`, not started, may start: no earlier command it must wait for
    /// is still in the queue. The rules (CBEA, as `docs/spu-mfc.md` gives them): the barrier
    /// command waits for every earlier command and holds every later one; `f` waits for the
    /// earlier commands of its tag group; `b`, `mfceieio` and `mfcsync` do the same and also
    /// hold the later commands of their group; `putqlluc` is ordered like a fence (as RPCS3
    /// does; the CBEA text was not available).
    pub fn may_start(&self, index: usize) -> bool {
        let Some(entry) = self.get(index) else {
            return false;
        };
        if entry.started {
            return true;
        }
        let waits_for_group = entry.command.ordering != Ordering::None
            || matches!(
                entry.command.kind,
                CommandKind::Eieio | CommandKind::Sync | CommandKind::Putqlluc
            );
        self.iter().take(index).all(|older| {
            let queue_barrier = older.command.kind == CommandKind::Barrier
                || entry.command.kind == CommandKind::Barrier;
            let same_group = older.tag == entry.tag;
            let older_holds_group = older.command.ordering == Ordering::Barrier
                || matches!(older.command.kind, CommandKind::Eieio | CommandKind::Sync);
            !(queue_barrier || same_group && (waits_for_group || older_holds_group))
        })
    }
}
