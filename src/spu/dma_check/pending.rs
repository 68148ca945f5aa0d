//! The commands one SPU issued and has not yet seen complete, with their transfers: a
//! fixed-capacity table (oldest first) and a pool of transfers shared by its commands.

use super::span::Span;
use crate::spu::mfc::{Command, CommandKind, Ordering};

/// Pending commands one SPU may have before the oldest is forgotten (counted).
pub const PENDING_COMMANDS: usize = 48;
/// Transfers (a command's data, or a list's elements) they may hold in all; more list
/// elements are not checked (counted).
pub const PENDING_TRANSFERS: usize = 256;

/// No list element.
const NOT_AN_ELEMENT: u16 = u16::MAX;

/// One transfer of a pending command: its LS and EA bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Transfer {
    pub lsa: u32,
    pub size: u32,
    pub ea: u64,
    element: u16,
}

impl Transfer {
    const NONE: Transfer = Transfer {
        lsa: 0,
        size: 0,
        ea: 0,
        element: NOT_AN_ELEMENT,
    };

    pub fn new(lsa: u32, ea: u64, size: u32, element: Option<u16>) -> Self {
        Transfer {
            lsa,
            size,
            ea,
            element: element.unwrap_or(NOT_AN_ELEMENT),
        }
    }

    pub fn ls(&self) -> Span {
        Span::at(u64::from(self.lsa), u64::from(self.size))
    }

    pub fn ea(&self) -> Span {
        Span::at(self.ea, u64::from(self.size))
    }

    pub fn element(&self) -> Option<u16> {
        (self.element != NOT_AN_ELEMENT).then_some(self.element)
    }
}

/// Where a list command is: the elements the MFC reads, stretch by stretch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ListProgress {
    /// The LS address of the element array (`MFC_EAL` of the command).
    pub list: u32,
    /// `MFC_EAH`, the high word of every element's EA.
    pub eah: u32,
    /// Elements in the list.
    pub total: u16,
    /// The first element of the stretch being transferred.
    pub stretch_first: u16,
    /// One past its last element.
    pub next: u16,
    /// Where the next element's data goes in the local store.
    pub running: u32,
    /// The stretch ends at an element with stall-and-notify.
    pub stalls: bool,
    /// The program read the list-stall status for it: its stretch is complete, and the next
    /// is read at the acknowledgement.
    pub stall_seen: bool,
}

impl ListProgress {
    /// The element array bytes the MFC may still read: from the current stretch to the end
    /// of the list. None once the program saw the stretch's stall: the elements after it may
    /// be rewritten until the acknowledgement, which starts the next stretch.
    pub fn elements_read(&self) -> Span {
        if self.stall_seen {
            return Span::EMPTY;
        }
        let at = |index: u16| u64::from(self.list) + 8 * u64::from(index);
        Span {
            start: at(self.stretch_first),
            end: at(self.total),
        }
    }
}

/// A command issued and not yet seen complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pending {
    /// The SPU's command counter at its issue (from 1).
    pub seq: u64,
    pub command: Command,
    /// `None` for the immediate atomic commands.
    pub tag: Option<u8>,
    pub pc: u32,
    pub cycle: u64,
    /// The last `barrier` command issued before it (0: none).
    pub queue_barrier: u64,
    /// The last barrier of its tag group issued before it: a `b` command, `mfceieio` or
    /// `mfcsync` (0: none).
    pub group_barrier: u64,
    pub list: Option<ListProgress>,
    /// Its transfers in the pool.
    first: u16,
    count: u16,
    /// PCs of accesses already reported racing with it (each is reported once).
    reported: [u32; 4],
    reported_len: u8,
}

impl Pending {
    pub const fn new(seq: u64, command: Command, tag: Option<u8>, pc: u32, cycle: u64) -> Self {
        Pending {
            seq,
            command,
            tag,
            pc,
            cycle,
            queue_barrier: 0,
            group_barrier: 0,
            list: None,
            first: 0,
            count: 0,
            reported: [0; 4],
            reported_len: 0,
        }
    }

    /// Whether it waits for the earlier commands of its tag group (CBEA: the `f` and `b`
    /// forms; the model also orders `putqlluc` that way).
    pub fn fenced(&self) -> bool {
        self.command.ordering != Ordering::None || self.command.kind == CommandKind::Putqlluc
    }

    /// Whether `self`, issued before `later`, is ordered before it: a `barrier` command
    /// between them, or one tag group and either `later` fenced or a barrier of the group
    /// between them (`self` itself, if it has the `b` form). The immediate atomic commands
    /// are ordered by nothing but their completion.
    pub fn ordered_before(&self, later: &Pending) -> bool {
        if self.tag.is_none() || later.tag.is_none() {
            return false;
        }
        self.seq < later.queue_barrier
            || (self.tag == later.tag && (later.fenced() || self.seq <= later.group_barrier))
    }

    /// Records that an access at `pc` was reported racing with it; `false` if one at `pc`
    /// already was, or if it has no room to remember more (the caller counts those).
    pub fn first_report_at(&mut self, pc: u32) -> Option<bool> {
        let len = usize::from(self.reported_len);
        if self.reported.iter().take(len).any(|&p| p == pc) {
            return Some(false);
        }
        let slot = self.reported.get_mut(len)?;
        *slot = pc;
        self.reported_len += 1;
        Some(true)
    }
}

const NO_COMMAND: Pending = Pending::new(
    0,
    Command {
        opcode: 0,
        kind: CommandKind::Get,
        ordering: Ordering::None,
    },
    None,
    0,
    0,
);

/// The pending commands of one SPU, oldest first, and their transfers.
#[derive(Clone, Debug)]
pub(super) struct PendingTable {
    commands: [Pending; PENDING_COMMANDS],
    len: usize,
    transfers: [Transfer; PENDING_TRANSFERS],
    transfers_len: usize,
}

impl PendingTable {
    pub const fn new() -> Self {
        PendingTable {
            commands: [NO_COMMAND; PENDING_COMMANDS],
            len: 0,
            transfers: [Transfer::NONE; PENDING_TRANSFERS],
            transfers_len: 0,
        }
    }

    pub fn is_full(&self) -> bool {
        self.len == PENDING_COMMANDS
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The commands, oldest first.
    pub fn commands(&self) -> &[Pending] {
        self.commands.get(..self.len).unwrap_or_default()
    }

    /// Command `index`.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut Pending> {
        self.commands.get_mut(..self.len)?.get_mut(index)
    }

    /// The transfers of `command` (one of this table's).
    pub fn transfers(&self, command: &Pending) -> &[Transfer] {
        let start = usize::from(command.first);
        self.transfers
            .get(start..start + usize::from(command.count))
            .unwrap_or_default()
    }

    /// Appends `command` (the table has room: the caller made it).
    pub fn push(&mut self, mut command: Pending) {
        command.first = self.transfers_len as u16;
        command.count = 0;
        if let Some(slot) = self.commands.get_mut(self.len) {
            *slot = command;
            self.len += 1;
        }
    }

    /// Adds `transfer` to the newest-but-`index` command: `false` when the pool is full.
    /// A command's transfers must be added before the next command's (a list's next
    /// stretch moves its transfers to the end first, see [`clear_transfers`](Self::clear_transfers)).
    pub fn add_transfer(&mut self, index: usize, transfer: Transfer) -> bool {
        let Some(slot) = self.transfers.get_mut(self.transfers_len) else {
            return false;
        };
        *slot = transfer;
        self.transfers_len += 1;
        if let Some(command) = self.get_mut(index) {
            command.count += 1;
        }
        true
    }

    /// Removes the transfers of command `index`; its next ones go to the end of the pool.
    pub fn clear_transfers(&mut self, index: usize) {
        let Some(command) = self.get_mut(index) else {
            return;
        };
        let (start, count) = (usize::from(command.first), usize::from(command.count));
        self.transfers
            .copy_within(start + count..self.transfers_len, start);
        self.transfers_len -= count;
        for other in self.commands.iter_mut().take(self.len) {
            if usize::from(other.first) > start {
                other.first -= count as u16;
            }
        }
        let end = self.transfers_len as u16;
        if let Some(command) = self.get_mut(index) {
            command.first = end;
            command.count = 0;
        }
    }

    /// Removes command `index` and its transfers.
    pub fn remove(&mut self, index: usize) {
        if index >= self.len {
            return;
        }
        self.clear_transfers(index);
        self.commands.copy_within(index + 1..self.len, index);
        self.len -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(opcode: u32) -> Command {
        Command::decode(opcode).unwrap_or_else(|| unreachable!("a valid opcode"))
    }

    #[test]
    fn transfers_follow_their_commands_through_removals() {
        let mut table = PendingTable::new();
        for (seq, size) in [(1, 2), (2, 1), (3, 3)] {
            table.push(Pending::new(seq, command(0x40), Some(0), 0, 0));
            for i in 0..size {
                assert!(table.add_transfer(
                    table.len() - 1,
                    Transfer::new(seq as u32 * 0x100 + i, 0, 16, None)
                ));
            }
        }
        table.remove(0);
        let sizes: heapless::Vec<usize, 4> = table
            .commands()
            .iter()
            .map(|c| table.transfers(c).len())
            .collect();
        assert_eq!(sizes.as_slice(), &[1, 3]);
        assert_eq!(table.transfers(&table.commands()[1])[2].lsa, 0x302);
        // A list's next stretch: its transfers move to the end.
        table.clear_transfers(0);
        assert!(table.add_transfer(0, Transfer::new(0x222, 0, 16, Some(5))));
        assert_eq!(table.transfers(&table.commands()[0])[0].element(), Some(5));
        assert_eq!(table.transfers(&table.commands()[1])[0].lsa, 0x300);
    }

    #[test]
    fn ordering_follows_fences_barriers_and_tags() {
        let issue = |seq, opcode, tag| Pending::new(seq, command(opcode), Some(tag), 0, 0);
        let get = issue(1, 0x40, 1);
        assert!(!get.ordered_before(&issue(2, 0x40, 1)), "plain, same group");
        assert!(get.ordered_before(&issue(2, 0x42, 1)), "getf, same group");
        assert!(!get.ordered_before(&issue(2, 0x42, 2)), "getf, other group");
        let mut after_barrier = issue(3, 0x40, 2);
        after_barrier.queue_barrier = 2;
        assert!(
            get.ordered_before(&after_barrier),
            "barrier command between"
        );
        let mut after_sync = issue(3, 0x40, 1);
        after_sync.group_barrier = 2;
        assert!(
            get.ordered_before(&after_sync),
            "mfcsync of the group between"
        );
        let getb = issue(1, 0x41, 1);
        let mut after_getb = issue(2, 0x40, 1);
        after_getb.group_barrier = 1;
        assert!(
            getb.ordered_before(&after_getb),
            "getb holds its group's later commands"
        );
        let getllar = Pending::new(1, command(0xD0), None, 0, 0);
        assert!(!getllar.ordered_before(&after_barrier));
    }
}
