//! A command as the program issues it (`wrch MFC_Cmd`) and a list's next stretch (`wrch
//! MFC_WrListStallAck`): its transfers, the ordering points it sets, what it releases, and
//! its checks against the SPU's pending commands and other SPUs' transfers.

use super::clocks::Clock;
use super::history::Record;
use super::pending::{ListProgress, Pending, Transfer};
use super::race::{DmaRace, LaterAccess, RaceKind, TransferInfo, writes_local_store};
use super::state::{
    FOUND_PER_EVENT, Found, SpuCheck, State, is_atomic, line_of, moves_main_memory,
};
use crate::spu::exec::LocalStore;
use crate::spu::main_memory::{LINE_BYTES, SignalRegister};
use crate::spu::mfc::{Command, CommandKind, LIST_ELEMENT_BYTES, ListElement, Ordering};
use crate::spu::probes::ChannelEvent;

/// List elements read and checked at a time.
const CHUNK: usize = 32;

/// The commands (SPU, counter) a command already raced with: each pair is reported once.
type Seen = heapless::Vec<(u8, u64), 16>;

/// Where a check happens: the SPU and the instruction.
#[derive(Clone, Copy)]
struct At {
    spu: u8,
    pc: u32,
    cycle: u64,
}

impl State {
    /// `wrch MFC_Cmd` was accepted: the command is pending from now on.
    pub(super) fn issue(&mut self, spu: u8, event: &ChannelEvent<'_>, found: &mut Found) {
        let Some(command) = Command::decode(event.value) else {
            return;
        };
        let parameters = event.spu.mfc().parameters();
        let Some(check) = self.spus.get_mut(usize::from(spu)) else {
            return;
        };
        self.stats.commands += 1;
        let seq = check.next_seq;
        check.next_seq += 1;
        let tag = (!command.is_immediate_atomic()).then_some(parameters.tag & 31);
        let mut pending = Pending::new(seq, command, tag, event.pc, event.cycle);
        pending.queue_barrier = check.queue_barrier;
        pending.group_barrier = group_barrier(check, tag);
        let group = usize::from(parameters.tag & 31);
        match command.kind {
            CommandKind::Barrier => {
                check.queue_barrier = seq;
                return;
            }
            CommandKind::Eieio | CommandKind::Sync => {
                if let Some(barrier) = check.group_barriers.get_mut(group) {
                    *barrier = seq;
                }
                return;
            }
            _ => {}
        }
        if command.ordering == Ordering::Barrier
            && let Some(barrier) = check.group_barriers.get_mut(group)
        {
            *barrier = seq;
        }
        let line = u64::from(parameters.lsa) & !(LINE_BYTES - 1);
        let ea_line = parameters.ea & !(LINE_BYTES - 1);
        let mut transfers: heapless::Vec<Transfer, 1> = heapless::Vec::new();
        match command.kind {
            CommandKind::Get | CommandKind::Put if parameters.size > 0 => {
                let _ = transfers.push(Transfer::new(
                    parameters.lsa,
                    parameters.ea,
                    parameters.size,
                    None,
                ));
            }
            CommandKind::Sndsig => {
                let _ = transfers.push(Transfer::new(parameters.lsa, parameters.ea, 4, None));
            }
            kind if is_atomic(kind) => {
                let _ =
                    transfers.push(Transfer::new(line as u32, ea_line, LINE_BYTES as u32, None));
            }
            CommandKind::GetList | CommandKind::PutList => {
                pending.list = Some(ListProgress {
                    list: parameters.ea as u32,
                    eah: (parameters.ea >> 32) as u32,
                    total: (parameters.size / LIST_ELEMENT_BYTES) as u16,
                    stretch_first: 0,
                    next: 0,
                    running: parameters.lsa,
                    stalls: false,
                    stall_seen: false,
                });
            }
            _ => {}
        }
        // What the command publishes: a signal, a lock-line store. Every pending command
        // ordered before it is complete when it takes effect.
        match command.kind {
            CommandKind::Sndsig => {
                if let Some((target, register)) = SignalRegister::at(parameters.ea) {
                    let register = usize::from(register == SignalRegister::Two);
                    self.publish_ordered(spu, &pending);
                    if let Some(mut clock) = self.sync.signal(target, register).copied() {
                        self.release(spu, &mut clock);
                        if let Some(signal) = self.sync.signal(target, register) {
                            *signal = clock;
                        }
                    }
                }
            }
            CommandKind::Putllc | CommandKind::Putlluc | CommandKind::Putqlluc => {
                self.publish_ordered(spu, &pending);
                let mut clock = Clock::ZERO;
                self.release(spu, &mut clock);
                self.sync.release_line(line_of(ea_line), &clock);
                self.stats.lines_merged = self.sync.lines_merged;
            }
            _ => {}
        }
        let at = At {
            spu,
            pc: event.pc,
            cycle: event.cycle,
        };
        let Some(check) = self.spus.get_mut(usize::from(spu)) else {
            return;
        };
        if check.pending.is_full() {
            check.pending.remove(0);
            self.stats.commands_forgotten += 1;
        }
        check.pending.push(pending);
        let index = check.pending.len() - 1;
        if pending.list.is_some() {
            self.next_stretch(index, at, event.spu.local_store(), found);
        } else {
            self.add_transfers(index, at, &transfers, found, &mut Seen::new());
        }
    }

    /// `wrch MFC_WrListStallAck`: the lists of the group whose stall the program saw go on:
    /// their next stretch is read now (the program may have rewritten those elements).
    pub(super) fn list_acknowledged(
        &mut self,
        spu: u8,
        event: &ChannelEvent<'_>,
        found: &mut Found,
    ) {
        let tag = (event.value & 31) as u8;
        // Acknowledging a stall the program did not read (it knew of it otherwise): the
        // stretch before it is complete all the same.
        self.list_stalled(spu, 1 << tag);
        let at = At {
            spu,
            pc: event.pc,
            cycle: event.cycle,
        };
        let mut index = 0;
        while let Some(command) = self
            .spus
            .get(usize::from(spu))
            .and_then(|check| check.pending.commands().get(index))
        {
            if command.tag == Some(tag) && command.list.is_some_and(|list| list.stall_seen) {
                self.next_stretch(index, at, event.spu.local_store(), found);
            }
            index += 1;
        }
    }

    /// `MFC_RdListStallStat` read `status`: the stalled lists of those groups completed their
    /// stretch.
    pub(super) fn list_stalled(&mut self, spu: u8, status: u32) {
        let Some(check) = self.spus.get_mut(usize::from(spu)) else {
            return;
        };
        let epoch = check.clock.of(spu);
        for index in 0..check.pending.len() {
            let Some(command) = check.pending.get_mut(index) else {
                continue;
            };
            let in_group = command.tag.is_some_and(|tag| status & (1 << tag) != 0);
            let Some(list) = command.list.as_mut().filter(|l| in_group && l.stalls) else {
                continue;
            };
            if list.stall_seen {
                continue;
            }
            list.stall_seen = true;
            let seq = command.seq;
            check.pending.clear_transfers(index);
            self.history.mark_done(spu, seq, epoch);
        }
        check.update_bounds();
    }

    /// Reads the next stretch of list command `index` (up to its next stall-and-notify
    /// element, or its end) and adds its transfers, a chunk at a time.
    fn next_stretch(&mut self, index: usize, at: At, local_store: &LocalStore, found: &mut Found) {
        let mut seen = Seen::new();
        let mut first = true;
        loop {
            let mut chunk: heapless::Vec<Transfer, CHUNK> = heapless::Vec::new();
            let Some(list) = self
                .spus
                .get_mut(usize::from(at.spu))
                .and_then(|check| check.pending.get_mut(index))
                .and_then(|command| command.list.as_mut())
            else {
                return;
            };
            if first {
                list.stretch_first = list.next;
                list.stall_seen = false;
                list.stalls = false;
                first = false;
            } else if list.stalls || list.next >= list.total {
                return;
            }
            while list.next < list.total && !chunk.is_full() {
                let element = ListElement::read(local_store, list.list, list.next);
                let ea = (u64::from(list.eah) << 32) | u64::from(element.eal);
                let transfer =
                    Transfer::new(element.lsa(list.running), ea, element.size, Some(list.next));
                if element.size > 0 {
                    let _ = chunk.push(transfer);
                }
                list.running = element.next_running(list.running);
                list.next += 1;
                if element.stall && list.next < list.total {
                    list.stalls = true;
                    break;
                }
            }
            self.add_transfers(index, at, &chunk, found, &mut seen);
        }
    }

    /// Checks `transfers` of pending command `index` against the SPU's other pending
    /// commands and other SPUs' transfers (each pair of commands once: `seen`), then keeps
    /// them.
    fn add_transfers(
        &mut self,
        index: usize,
        at: At,
        transfers: &[Transfer],
        found: &mut Found,
        seen: &mut Seen,
    ) {
        let across = self.across_spus();
        let Some(check) = self.spus.get(usize::from(at.spu)) else {
            return;
        };
        let Some(&command) = check.pending.commands().get(index) else {
            return;
        };
        let mut races: heapless::Vec<DmaRace, FOUND_PER_EVENT> = heapless::Vec::new();
        let mut overflow = 0;
        let mut note = |race| {
            if races.push(race).is_err() {
                overflow += 1;
            }
        };
        for (other_index, other) in check.pending.commands().iter().enumerate() {
            let pair = (at.spu, other.seq);
            if other_index == index || ordered(other, &command) || seen.contains(&pair) {
                continue;
            }
            'pair: for transfer in transfers {
                for theirs in check.pending.transfers(other) {
                    let Some(kind) = conflict(&command, transfer, other, theirs) else {
                        continue;
                    };
                    if let (Some(later), Some(earlier)) = (
                        check.info(at.spu, index, transfer),
                        check.info(at.spu, other_index, theirs),
                    ) {
                        note(race(kind, at, later, earlier));
                    }
                    let _ = seen.push(pair);
                    break 'pair;
                }
            }
        }
        if across && moves_main_memory(command.command.kind) {
            let writes = !command.command.is_get();
            for transfer in transfers {
                for record in self.history.records() {
                    let other = (record.transfer.spu, record.seq);
                    if record.transfer.spu == at.spu
                        || !(writes || record.writes)
                        || !record.transfer.ea.overlaps(&transfer.ea())
                        || record.known_done_by(&check.clock)
                        || seen.contains(&other)
                    {
                        continue;
                    }
                    let _ = seen.push(other);
                    if let Some(later) = check.info(at.spu, index, transfer) {
                        note(race(RaceKind::AcrossSpus, at, later, record.transfer));
                    }
                }
            }
        }
        for race in races {
            self.found(found, race);
        }
        self.stats.races += overflow;
        self.stats.unreported += overflow;
        self.keep(index, at.spu, transfers);
    }

    /// Keeps `transfers` of pending command `index`: in the SPU's pool, and in the history
    /// when other SPUs are checked.
    fn keep(&mut self, index: usize, spu: u8, transfers: &[Transfer]) {
        let across = self.across_spus();
        let clocks = self.clocks();
        let Some(check) = self.spus.get_mut(usize::from(spu)) else {
            return;
        };
        for transfer in transfers {
            if !check.pending.add_transfer(index, *transfer) {
                self.stats.transfers_unchecked += 1;
                continue;
            }
            let Some(command) = check.pending.commands().get(index) else {
                continue;
            };
            if across
                && moves_main_memory(command.command.kind)
                && let Some(info) = check.info(spu, index, transfer)
            {
                let record = Record {
                    transfer: info,
                    seq: command.seq,
                    writes: !command.command.is_get(),
                    done: 0,
                };
                self.history.add(record, &clocks);
            }
        }
        self.stats.history_forgotten = self.history.forgotten;
        check.update_bounds();
    }

    /// Before SPU `spu` publishes with `command` (a signal, a lock-line store): the pending
    /// commands ordered before it will be complete when it takes effect, so whoever learns
    /// of it learns of them.
    fn publish_ordered(&mut self, spu: u8, command: &Pending) {
        let Some(check) = self.spus.get(usize::from(spu)) else {
            return;
        };
        let epoch = check.clock.of(spu);
        for earlier in check.pending.commands() {
            if earlier.ordered_before(command) {
                self.history.mark_done(spu, earlier.seq, epoch);
            }
        }
    }
}

/// The last barrier of `tag`'s group (0 for none, or for an immediate command).
fn group_barrier(check: &SpuCheck, tag: Option<u8>) -> u64 {
    tag.and_then(|tag| check.group_barriers.get(usize::from(tag)).copied())
        .unwrap_or(0)
}

/// Whether one of two pending commands of an SPU is ordered before the other.
fn ordered(a: &Pending, b: &Pending) -> bool {
    if a.seq < b.seq {
        a.ordered_before(b)
    } else {
        b.ordered_before(a)
    }
}

/// How `mine` of `command` and `theirs` of `other`, two unordered pending commands of one
/// SPU, race, if they do: on the local store when one of them writes bytes the other reads
/// or writes, on main memory when one of them writes bytes the other moves.
fn conflict(
    command: &Pending,
    mine: &Transfer,
    other: &Pending,
    theirs: &Transfer,
) -> Option<RaceKind> {
    let (a, b) = (&command.command, &other.command);
    let moves_data = |c: &Command| c.moves_data();
    if moves_data(a)
        && moves_data(b)
        && (writes_local_store(a) || writes_local_store(b))
        && mine.ls().overlaps(&theirs.ls())
    {
        return Some(RaceKind::LocalStore);
    }
    let main = |c: &Command| moves_main_memory(c.kind);
    if main(a) && main(b) && (!a.is_get() || !b.is_get()) && mine.ea().overlaps(&theirs.ea()) {
        return Some(RaceKind::MainMemory);
    }
    None
}

fn race(kind: RaceKind, at: At, later: TransferInfo, earlier: TransferInfo) -> DmaRace {
    DmaRace {
        kind,
        spu: at.spu,
        cycle: at.cycle,
        pc: at.pc,
        later: LaterAccess::Transfer(later),
        earlier,
    }
}
