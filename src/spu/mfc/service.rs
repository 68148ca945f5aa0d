//! [`Mfc::service`]: completing what is due, starting what may start, and the events that
//! follow.
//!
//! Data moves when the hardware moves it, as far as a program can tell: a put (and `sndsig`,
//! `putqlluc`, a list of puts) reads the local store when the command starts, as its requests
//! go out; a get writes the local store when its data has arrived, at completion. A program
//! may reuse a put's buffer once the tag group completed and read a get's once it did, as on
//! a Cell; in instruction mode both happen in the service right after the issuing instruction.

use super::command::CommandKind;
use super::controller::{ATOMIC_GETLLAR_DONE, ATOMIC_PUTLLC_FAILED, ATOMIC_PUTLLUC_DONE, Mfc};
use super::data::{AtomicResult, Element, advance_cursor, list_element, move_data};
use super::error::{DmaErrorKind, DmaFault};
use super::events::{
    EVENT_LIST_STALL, EVENT_MULTISOURCE_SYNC, EVENT_QUEUE_VACANCY, EVENT_TAG_GROUP,
};
use super::port::LocalStoreBytes;
use super::queue::{Progress, Queued};
use super::record::{DmaEvent, DmaStats};
use super::timing::{Schedule, lines};
use crate::spu::main_memory::{LINE_BYTES, MemoryView};

/// One data transfer of a command: the whole command, or one list element.
#[derive(Clone, Copy, Debug)]
struct Transfer {
    lsa: u32,
    ea: u64,
    size: u32,
    element: Option<u16>,
}

impl Mfc {
    /// Completes what is due at `now`, starts what may start, and raises the events that
    /// follow, for SPU `spu` with local store `local_store`; every completed transfer goes to
    /// `sink`. A command found invalid only now (a list element) suspends the MFC and comes
    /// back as the fault that stops the SPU.
    pub fn service(
        &mut self,
        now: u64,
        spu: u8,
        local_store: &mut dyn LocalStoreBytes,
        sink: &mut dyn FnMut(&DmaEvent),
    ) -> Result<(), DmaFault> {
        self.quiet_port.forget();
        self.attention = false;
        if let Some(fault) = self.fault.get() {
            return Err(fault);
        }
        self.raise_underflows(now);
        let memory = self.memory;
        let mut result = Ok(());
        memory.memory().with_view(&mut |view| {
            self.poll_memory(spu, view);
            result = self.run_due(now, spu, local_store, view, sink);
        });
        if let Err(fault) = result {
            self.fault.set(fault);
        }
        if self.tags.evaluate(self.queue.busy_tags()) {
            self.events.raise(EVENT_TAG_GROUP);
        }
        if self.ms_sync && self.queue.is_empty() && !self.atomic.is_some() {
            self.ms_sync = false;
            self.events.raise(EVENT_MULTISOURCE_SYNC);
        }
        if self.queue_was_full && !self.queue.is_full() {
            self.queue_was_full = false;
            self.events.raise(EVENT_QUEUE_VACANCY);
        }
        if self.timed {
            self.stats
                .set_busy(!self.queue.is_empty() || self.atomic.is_some(), now);
        }
        result
    }

    fn run_due(
        &mut self,
        now: u64,
        spu: u8,
        local_store: &mut dyn LocalStoreBytes,
        view: &mut MemoryView<'_>,
        sink: &mut dyn FnMut(&DmaEvent),
    ) -> Result<(), DmaFault> {
        loop {
            let mut progressed = self.run_atomic(now, spu, local_store, view, sink)?;
            let mut index = 0;
            while index < self.queue.len() {
                let Some(entry) = self.queue.get(index).copied() else {
                    break;
                };
                let due = match entry.progress {
                    Progress::Scheduled { schedule, .. } => schedule.done() <= now,
                    Progress::Waiting if self.queue.may_start(index) => {
                        self.start(index, now, spu, local_store, view)?;
                        progressed = true;
                        // Immediate timing: what starts completes at once.
                        !self.timed
                    }
                    _ => false,
                };
                if due && self.complete(index, now, spu, local_store, view, sink)? {
                    // Removed: the next entry moved into this index.
                    progressed = true;
                    continue;
                }
                progressed |= due;
                index += 1;
            }
            if !progressed {
                return Ok(());
            }
        }
    }

    /// Starts or completes the immediate atomic command; `true` if it did either.
    fn run_atomic(
        &mut self,
        now: u64,
        spu: u8,
        local_store: &mut dyn LocalStoreBytes,
        view: &mut MemoryView<'_>,
        sink: &mut dyn FnMut(&DmaEvent),
    ) -> Result<bool, DmaFault> {
        let Some(mut atomic) = self.atomic.get() else {
            return Ok(false);
        };
        let timing = self.timing();
        match atomic.schedule.get() {
            None if self.timed => {
                atomic.schedule.set(Schedule {
                    first_request: now + u64::from(timing.issue_cycles),
                    lines: 1,
                    spacing: timing.cycles_per_line(),
                    latency: u64::from(timing.latency_cycles),
                    into_local_store: atomic.command.is_get(),
                });
                self.atomic.set(atomic);
                return Ok(true);
            }
            Some(schedule) if schedule.done() > now => return Ok(false),
            _ => {}
        }
        self.atomic.clear();
        let fault = |kind| DmaFault {
            kind,
            opcode: atomic.command.opcode,
            tag: 0,
            lsa: atomic.lsa,
            ea: atomic.ea,
            size: LINE_BYTES as u32,
            element: None,
        };
        let line = LINE_BYTES as u32;
        let result = move_data(
            atomic.command,
            spu,
            atomic.lsa,
            atomic.ea,
            line,
            local_store,
            view,
        )
        .map_err(fault)?;
        self.atomic_status = match (atomic.command.kind, result) {
            (CommandKind::Getllar, _) => ATOMIC_GETLLAR_DONE,
            (CommandKind::Putlluc, _) => ATOMIC_PUTLLUC_DONE,
            (_, AtomicResult::ReservationLost) => ATOMIC_PUTLLC_FAILED,
            _ => 0,
        };
        self.atomic_available = true;
        self.stats.atomics += 1;
        if result == AtomicResult::ReservationLost {
            self.stats.putllc_failures += 1;
        }
        count_transfer(&mut self.stats, atomic.command.is_get(), line);
        sink(&DmaEvent {
            spu,
            command: atomic.command,
            tag: 0,
            lsa: atomic.lsa & !(line - 1),
            ea: atomic.ea & !(LINE_BYTES - 1),
            size: line,
            element: None,
            issued: atomic.issued,
            completed: now,
        });
        Ok(true)
    }

    /// Starts entry `index` at `now`: fixes the list elements it runs this time and, timed,
    /// when its requests go out; a put's data leaves the local store now.
    fn start(
        &mut self,
        index: usize,
        now: u64,
        spu: u8,
        local_store: &mut dyn LocalStoreBytes,
        view: &mut MemoryView<'_>,
    ) -> Result<(), DmaFault> {
        let timing = self.timing();
        let Some(entry) = self.queue.get(index).copied() else {
            return Ok(());
        };
        let (list_end, stalls) = stretch(&entry, local_store, view.size())?;
        let mut requests = 0;
        let outward = entry.command.moves_data() && !entry.command.is_get();
        for_each_transfer(
            &entry,
            list_end,
            local_store,
            view.size(),
            &mut |transfer, ls| {
                requests += lines(transfer.ea, transfer.size).max(u64::from(transfer.size > 0));
                if outward {
                    move_data(
                        entry.command,
                        spu,
                        transfer.lsa,
                        transfer.ea,
                        transfer.size,
                        ls,
                        view,
                    )?;
                }
                Ok(())
            },
        )?;
        let first_request = if requests == 0 {
            now
        } else {
            (now + u64::from(timing.issue_cycles)).max(self.engine_free)
        };
        let schedule = Schedule {
            first_request,
            lines: requests,
            spacing: timing.cycles_per_line(),
            latency: u64::from(timing.latency_cycles),
            into_local_store: entry.command.is_get(),
        };
        if self.timed && requests > 0 {
            self.engine_free = schedule.requests_end();
        }
        if let Some(entry) = self.queue.get_mut(index) {
            entry.progress = Progress::Scheduled {
                schedule,
                list_end,
                stalls,
            };
            entry.started = true;
        }
        Ok(())
    }

    /// Completes entry `index` at `now`: a get's data arrives in the local store, every
    /// transfer is reported, and the entry leaves the queue or, for a list that stalls, waits
    /// for its acknowledgement. `true` if it left the queue.
    fn complete(
        &mut self,
        index: usize,
        now: u64,
        spu: u8,
        local_store: &mut dyn LocalStoreBytes,
        view: &mut MemoryView<'_>,
        sink: &mut dyn FnMut(&DmaEvent),
    ) -> Result<bool, DmaFault> {
        let Some(entry) = self.queue.get(index).copied() else {
            return Ok(false);
        };
        let Progress::Scheduled {
            list_end, stalls, ..
        } = entry.progress
        else {
            return Ok(false);
        };
        let inward = entry.command.is_get();
        let stats = &mut self.stats;
        let memory_size = view.size();
        let running = for_each_transfer(
            &entry,
            list_end,
            local_store,
            memory_size,
            &mut |transfer, ls| {
                if inward {
                    move_data(
                        entry.command,
                        spu,
                        transfer.lsa,
                        transfer.ea,
                        transfer.size,
                        ls,
                        view,
                    )?;
                }
                if transfer.size > 0 && entry.command.moves_data() {
                    count_transfer(stats, inward, transfer.size);
                    sink(&DmaEvent {
                        spu,
                        command: entry.command,
                        tag: entry.tag,
                        lsa: transfer.lsa,
                        ea: transfer.ea,
                        size: transfer.size,
                        element: transfer.element,
                        issued: entry.issued,
                        completed: now,
                    });
                }
                Ok(())
            },
        )?;
        if stalls {
            if let Some(queued) = self.queue.get_mut(index) {
                queued.next_element = list_end;
                queued.list_lsa = running;
                queued.progress = Progress::Stalled;
            }
            self.list_stall |= entry.tag_bit();
            self.list_stall_available = true;
            self.events.raise(EVENT_LIST_STALL);
            return Ok(false);
        }
        self.queue.remove(index);
        Ok(true)
    }
}

/// Counts a transfer of `size` bytes in the statistics.
fn count_transfer(stats: &mut DmaStats, into_local_store: bool, size: u32) {
    stats.transfers += 1;
    if into_local_store {
        stats.bytes_in += u64::from(size);
    } else {
        stats.bytes_out += u64::from(size);
    }
}

/// For a list: one past the last element this stretch runs (the first with stall-and-notify
/// that is not the last, or the end), and whether it stalls there. A single transfer: (0,
/// false).
fn stretch(
    entry: &Queued,
    local_store: &dyn LocalStoreBytes,
    memory_size: u64,
) -> Result<(u16, bool), DmaFault> {
    if !entry.command.is_list() {
        return Ok((0, false));
    }
    let last = entry.elements();
    let mut running = entry.list_lsa;
    for index in entry.next_element..last {
        let element = read_element(entry, local_store, index, running, memory_size)?;
        running = advance_cursor(running, &element);
        if element.stall && index + 1 < last {
            return Ok((index + 1, true));
        }
    }
    Ok((last, false))
}

/// Calls `each` for every data transfer of `entry`: the command itself, or its list elements
/// before `list_end`, read again from the local store; returns the list's LS cursor after.
fn for_each_transfer(
    entry: &Queued,
    list_end: u16,
    local_store: &mut dyn LocalStoreBytes,
    memory_size: u64,
    each: &mut dyn FnMut(Transfer, &mut dyn LocalStoreBytes) -> Result<(), DmaErrorKind>,
) -> Result<u32, DmaFault> {
    if !entry.command.is_list() {
        let size = match entry.command.kind {
            CommandKind::Sndsig => 4,
            CommandKind::Putqlluc => LINE_BYTES as u32,
            CommandKind::Barrier | CommandKind::Eieio | CommandKind::Sync => 0,
            _ => entry.size,
        };
        // `putqlluc` moves the 128-byte lines holding LSA and EA, as the other atomics do.
        let line = |address: u64| {
            if entry.command.kind == CommandKind::Putqlluc {
                address & !(LINE_BYTES - 1)
            } else {
                address
            }
        };
        let transfer = Transfer {
            lsa: line(u64::from(entry.lsa)) as u32,
            ea: line(entry.ea),
            size,
            element: None,
        };
        each(transfer, local_store)
            .map_err(|kind| element_fault(entry, entry.lsa, entry.ea, entry.size, None, kind))?;
        return Ok(entry.list_lsa);
    }
    let mut running = entry.list_lsa;
    for index in entry.next_element..list_end {
        let element = read_element(entry, &*local_store, index, running, memory_size)?;
        let transfer = Transfer {
            lsa: element.lsa,
            ea: element.ea,
            size: element.size,
            element: Some(index),
        };
        each(transfer, local_store).map_err(|kind| list_fault(entry, &element, index, kind))?;
        running = advance_cursor(running, &element);
    }
    Ok(running)
}

/// List element `index` of `entry`, its LSA following the list's cursor `running` (both the
/// stretch's look-ahead and the transfer read it this way); a bad element is a fault naming it.
fn read_element(
    entry: &Queued,
    local_store: &dyn LocalStoreBytes,
    index: u16,
    running: u32,
    memory_size: u64,
) -> Result<Element, DmaFault> {
    list_element(
        local_store,
        entry.list_address(),
        index,
        (entry.ea >> 32) as u32,
        running,
        memory_size,
    )
    .map_err(|(element, kind)| list_fault(entry, &element, index, kind))
}

/// The fault of list element `index` of `entry`.
fn list_fault(entry: &Queued, element: &Element, index: u16, kind: DmaErrorKind) -> DmaFault {
    element_fault(
        entry,
        element.lsa,
        element.ea,
        element.size,
        Some(index),
        kind,
    )
}

fn element_fault(
    entry: &Queued,
    lsa: u32,
    ea: u64,
    size: u32,
    element: Option<u16>,
    kind: DmaErrorKind,
) -> DmaFault {
    DmaFault {
        kind,
        opcode: entry.command.opcode,
        tag: u32::from(entry.tag),
        lsa,
        ea,
        size,
        element,
    }
}
