//! [`Mfc`]: one SPU's memory flow controller with its channels: the command parameters and
//! queue, tag groups, list stalls, atomic status, multisource sync, the event facility, the
//! decrementer and the signal-notification channels.
//!
//! Channel operations only record what the SPU asked; [`Mfc::service`] does the work that
//! needs main memory: it completes what is due, starts what may start and raises the events
//! that follow. In instruction mode (*immediate* timing) a command completes in the service
//! right after the instruction that issued it; in pipeline mode (*timed*) the service starts it
//! at the cycle the pipeline gives and completes it at the cycle the [timing](super::timing)
//! says, which [`next_event`](Mfc::next_event) tells the pipeline to stop at. The decrementer,
//! event and signal channels are in `event_channels.rs`.

use super::command::{Command, CommandKind};
use super::decrementer::Decrementer;
use super::error::{DmaErrorKind, DmaFault};
use super::events::{EVENT_DECREMENTER, Events};
use super::held::Held;
use super::port::MemoryPort;
use super::queue::{COMMAND_QUEUE_DEPTH, CommandQueue, Progress, Queued};
use super::quiet_port::QuietPort;
use super::record::DmaStats;
use super::tags::{TagGroups, TagUpdate};
use super::timing::{DmaTiming, Schedule};
use super::transfer::{check_list, check_signal, check_transfer};
use crate::spu::main_memory::{LINE_BYTES, SharedMemory};

/// `MFC_RdAtomicStat` bits.
pub const ATOMIC_PUTLLC_FAILED: u32 = 0x1;
/// `putlluc` completed.
pub const ATOMIC_PUTLLUC_DONE: u32 = 0x2;
/// `getllar` completed.
pub const ATOMIC_GETLLAR_DONE: u32 = 0x4;

/// The MFC's command parameter channels as last written (`MFC_LSA`, `MFC_EAH`:`MFC_EAL`,
/// `MFC_Size`, `MFC_TagID`): what the next `MFC_Cmd` issues with, and what the last one
/// issued with, since a command leaves them as they were.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CommandParameters {
    /// `MFC_LSA`.
    pub lsa: u32,
    /// `MFC_EAH`:`MFC_EAL` (for a list: `MFC_EAH` and the list's LS address).
    pub ea: u64,
    /// `MFC_Size` (for a list: the list's bytes).
    pub size: u32,
    /// `MFC_TagID`'s five tag bits.
    pub tag: u8,
}

/// What a write to `MFC_Cmd` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandWrite {
    /// The command is in the MFC.
    Accepted,
    /// The queue is full: the write waits.
    Blocked,
    /// The command is refused: the SPU stops.
    Refused(DmaFault),
}

/// An immediate atomic command (`getllar`, `putllc`, `putlluc`): outside the queue, one at a
/// time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PendingAtomic {
    pub(super) command: Command,
    pub(super) lsa: u32,
    pub(super) ea: u64,
    pub(super) issued: u64,
    /// When its line moves (timed; set when the service starts it).
    pub(super) schedule: Held<Schedule>,
}

const NO_SCHEDULE: Held<Schedule> = Held::none(Schedule {
    first_request: 0,
    lines: 0,
    spacing: 0,
    latency: 0,
    into_local_store: false,
});

const NO_ATOMIC: Held<PendingAtomic> = Held::none(PendingAtomic {
    command: Command {
        opcode: 0,
        kind: CommandKind::Get,
        ordering: super::command::Ordering::None,
    },
    lsa: 0,
    ea: 0,
    issued: 0,
    schedule: NO_SCHEDULE,
});

const NO_FAULT: Held<DmaFault> = Held::none(DmaFault {
    kind: DmaErrorKind::UnknownCommand,
    opcode: 0,
    tag: 0,
    lsa: 0,
    ea: 0,
    size: 0,
    element: None,
});

/// One SPU's MFC and the channels around it. All-zero bits is the reset state (no memory
/// attached, immediate timing, everything empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mfc {
    pub(super) lsa: u32,
    pub(super) eah: u32,
    pub(super) eal: u32,
    pub(super) size: u32,
    pub(super) tag: u32,
    pub(super) queue: CommandQueue,
    pub(super) tags: TagGroups,
    pub(super) list_stall: u32,
    pub(super) list_stall_available: bool,
    pub(super) atomic: Held<PendingAtomic>,
    pub(super) atomic_status: u32,
    pub(super) atomic_available: bool,
    pub(super) ms_sync: bool,
    pub(super) queue_was_full: bool,
    /// The first cycle the engine may send a request again (timed).
    pub(super) engine_free: u64,
    /// `None`: [`DmaTiming::cell`].
    pub(super) timing: Option<DmaTiming>,
    pub(super) timed: bool,
    pub(super) attention: bool,
    pub(super) memory: MemoryPort,
    pub(super) events: Events,
    pub(super) decrementer: Decrementer,
    /// Decrementer underflows up to this cycle have raised `Tm`.
    pub(super) underflows_seen_to: u64,
    /// The signal registers were seen written (their `S1`/`S2` was raised).
    pub(super) signals_seen: [bool; 2],
    pub(super) stats: DmaStats,
    pub(super) fault: Held<DmaFault>,
    /// Cycles known to have no DMA data on the local-store port (a cache of the queue).
    pub(super) quiet_port: QuietPort,
}

impl Default for Mfc {
    fn default() -> Self {
        Self::new()
    }
}

impl Mfc {
    /// A reset MFC.
    pub const fn new() -> Self {
        Mfc {
            lsa: 0,
            eah: 0,
            eal: 0,
            size: 0,
            tag: 0,
            queue: CommandQueue::new(),
            tags: TagGroups::new(),
            list_stall: 0,
            list_stall_available: false,
            atomic: NO_ATOMIC,
            atomic_status: 0,
            atomic_available: false,
            ms_sync: false,
            queue_was_full: false,
            engine_free: 0,
            timing: None,
            timed: false,
            attention: false,
            memory: MemoryPort::none(),
            events: Events::new(),
            decrementer: Decrementer::new(),
            underflows_seen_to: 0,
            signals_seen: [false; 2],
            stats: DmaStats::new(),
            fault: NO_FAULT,
            quiet_port: QuietPort::empty(),
        }
    }

    /// Back to the reset state, keeping what configures it: the attached memory, the DMA
    /// timing and the decrementer's timebase ratio.
    pub fn reset(&mut self) {
        let (memory, timing, timed) = (self.memory, self.timing, self.timed);
        let ratio = self.decrementer.cycles_per_tick();
        *self = Mfc::new();
        (self.memory, self.timing, self.timed) = (memory, timing, timed);
        self.decrementer.set_cycles_per_tick(ratio, 0);
    }

    /// Attaches the main memory DMA reaches.
    pub fn attach(&mut self, memory: MemoryPort) {
        self.memory = memory;
    }

    /// The main memory DMA reaches (an empty one when none is attached).
    pub fn memory(&self) -> &dyn SharedMemory {
        self.memory.memory()
    }

    /// The memory port (to attach another SPU to the same memory).
    pub fn memory_port(&self) -> MemoryPort {
        self.memory
    }

    /// The DMA timing (pipeline mode).
    pub fn timing(&self) -> DmaTiming {
        self.timing.unwrap_or_default()
    }

    /// Sets the DMA timing.
    pub fn set_timing(&mut self, timing: DmaTiming) {
        self.quiet_port.forget();
        self.timing = Some(timing);
    }

    /// Timed (pipeline mode) or immediate (instruction mode: a command completes right
    /// after the instruction that issued it).
    pub fn set_timed(&mut self, timed: bool) {
        self.quiet_port.forget();
        self.timed = timed;
    }

    /// The DMA statistics.
    pub fn stats(&self) -> &DmaStats {
        &self.stats
    }

    /// Counts cycles the SPU waited on an MFC channel or an event.
    pub fn count_wait(&mut self, cycles: u64) {
        self.stats.wait_cycles += cycles;
    }

    /// The command that stopped the SPU, if one did.
    pub fn fault(&self) -> Option<DmaFault> {
        self.fault.get()
    }

    /// The event registers.
    pub fn events(&self) -> &Events {
        &self.events
    }

    /// The event registers, mutable (the mailbox events are raised from outside).
    pub fn events_mut(&mut self) -> &mut Events {
        &mut self.events
    }

    /// The decrementer.
    pub fn decrementer(&self) -> &Decrementer {
        &self.decrementer
    }

    /// The decrementer, mutable (its timebase ratio).
    pub fn decrementer_mut(&mut self) -> &mut Decrementer {
        &mut self.decrementer
    }

    /// Commands in the queue (not completed; a stalled list included).
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Whether [`service`](Self::service) has work at `now`.
    #[inline]
    pub fn needs_service(&self, now: u64) -> bool {
        // The pipeline asks after every instruction it completes: an MFC with nothing queued
        // and no decrementer event armed (every program that does no DMA) answers here.
        if !self.attention
            && self.queue.is_empty()
            && !self.atomic.is_some()
            && self.events.mask() & EVENT_DECREMENTER == 0
        {
            return false;
        }
        !self.fault.is_some() && (self.attention || self.next_event().is_some_and(|at| at <= now))
    }

    /// The next cycle something happens without the SPU doing anything: a timed transfer
    /// completes, or (with `Tm` enabled) the decrementer underflows.
    pub fn next_event(&self) -> Option<u64> {
        if self.fault.is_some() {
            // Suspended by a DMA error: nothing happens until a reset.
            return None;
        }
        let mut next: Option<u64> = None;
        let mut consider = |at: u64| next = Some(next.map_or(at, |n| n.min(at)));
        if self.timed {
            for entry in self.queue.iter() {
                if let Progress::Scheduled { schedule, .. } = entry.progress {
                    consider(schedule.done());
                }
            }
            if let Some(schedule) = self.atomic.get().and_then(|a| a.schedule.get()) {
                consider(schedule.done());
            }
        }
        if self.events.mask() & EVENT_DECREMENTER != 0
            && let Some(at) = self.decrementer.next_underflow(self.underflows_seen_to)
        {
            consider(at);
        }
        next
    }

    /// Whether a transfer is scheduled (its data will use the local-store port).
    pub fn transfers_in_flight(&self) -> bool {
        self.atomic.get().is_some_and(|a| a.schedule.is_some())
            || self
                .queue
                .iter()
                .any(|e| matches!(e.progress, Progress::Scheduled { .. }))
    }

    /// Whether DMA data uses the local-store port in `cycle` (it has the port's first claim).
    /// `&mut`: the answer is memoised until the next cycle the port is used or the queue
    /// changes (see `quiet_port.rs`).
    pub fn uses_local_store(&mut self, cycle: u64) -> bool {
        if self.quiet_port.covers(cycle) {
            return false;
        }
        let next = self.next_local_store_use(cycle);
        if next == Some(cycle) {
            return true;
        }
        self.quiet_port.remember(cycle, next.unwrap_or(u64::MAX));
        false
    }

    /// The first cycle at or after `cycle` in which DMA data uses the local-store port.
    pub fn next_local_store_use(&self, cycle: u64) -> Option<u64> {
        let atomic = self.atomic.get().and_then(|a| a.schedule.get());
        let queued = self.queue.iter().filter_map(|e| match e.progress {
            Progress::Scheduled { schedule, .. } => Some(schedule),
            _ => None,
        });
        atomic
            .into_iter()
            .chain(queued)
            .filter_map(|schedule| schedule.next_local_store_use(cycle))
            .min()
    }

    // The parameter channels (16..=20).

    /// `MFC_LSA`.
    pub fn write_lsa(&mut self, value: u32) {
        self.lsa = value;
    }

    /// `MFC_EAH`.
    pub fn write_eah(&mut self, value: u32) {
        self.eah = value;
    }

    /// `MFC_EAL`.
    pub fn write_eal(&mut self, value: u32) {
        self.eal = value;
    }

    /// `MFC_Size`.
    pub fn write_size(&mut self, value: u32) {
        self.size = value;
    }

    /// `MFC_TagID`: the CBEA's tag field is the channel's five low bits, the rest reserved and
    /// ignored (a tag of 0x3f is group 31; the RPCS3 emulator masks the same way).
    pub fn write_tag(&mut self, value: u32) {
        self.tag = value & 0x1f;
    }

    /// The command parameter channels as last written.
    pub fn parameters(&self) -> CommandParameters {
        CommandParameters {
            lsa: self.lsa,
            ea: (u64::from(self.eah) << 32) | u64::from(self.eal),
            size: self.size,
            tag: self.tag as u8,
        }
    }

    /// The `MFC_Cmd` count: free queue entries.
    pub fn queue_free(&self) -> u32 {
        (COMMAND_QUEUE_DEPTH - self.queue.len()) as u32
    }

    /// `MFC_Cmd` at cycle `now`: checks the command against the CBEA's rules and puts it in
    /// the MFC (the parameter channels keep their values).
    pub fn write_command(&mut self, value: u32, now: u64) -> CommandWrite {
        self.quiet_port.forget();
        let ea = (u64::from(self.eah) << 32) | u64::from(self.eal);
        let refuse = |mfc: &mut Mfc, kind: DmaErrorKind| {
            let fault = DmaFault {
                kind,
                opcode: (value & 0xFFFF) as u16,
                tag: mfc.tag,
                lsa: mfc.lsa,
                ea,
                size: mfc.size,
                element: None,
            };
            mfc.fault.set(fault);
            CommandWrite::Refused(fault)
        };
        let Some(command) = Command::decode(value) else {
            return refuse(self, DmaErrorKind::UnknownCommand);
        };
        if let Err(kind) = self.check(command, ea) {
            return refuse(self, kind);
        }
        if command.is_immediate_atomic() {
            if self.atomic.is_some() {
                return refuse(self, DmaErrorKind::AtomicBusy);
            }
            self.atomic.set(PendingAtomic {
                command,
                lsa: self.lsa,
                ea,
                issued: now,
                schedule: NO_SCHEDULE,
            });
        } else {
            if self.queue.is_full() {
                self.queue_was_full = true;
                return CommandWrite::Blocked;
            }
            self.queue.push(Queued {
                command,
                tag: self.tag as u8,
                lsa: self.lsa,
                ea: if command.is_list() {
                    (u64::from(self.eah) << 32) | u64::from(self.eal)
                } else {
                    ea
                },
                size: self.size,
                issued: now,
                progress: Progress::Waiting,
                started: false,
                next_element: 0,
                list_lsa: self.lsa,
            });
        }
        self.stats.commands += 1;
        if self.timed {
            self.stats.set_busy(true, now);
        }
        self.attention = true;
        CommandWrite::Accepted
    }

    fn check(&self, command: Command, ea: u64) -> Result<(), DmaErrorKind> {
        let memory_size = || self.memory.memory().size();
        match command.kind {
            CommandKind::Get | CommandKind::Put => {
                check_transfer(self.lsa, ea, self.size, memory_size())
            }
            CommandKind::GetList | CommandKind::PutList => {
                check_list(self.lsa, self.eal, self.size)
            }
            CommandKind::Sndsig => check_signal(self.lsa, ea, self.size).map(|_| ()),
            CommandKind::Getllar
            | CommandKind::Putllc
            | CommandKind::Putlluc
            | CommandKind::Putqlluc => {
                let line = ea & !(LINE_BYTES - 1);
                if line + LINE_BYTES > memory_size() {
                    Err(DmaErrorKind::EaOutOfRange)
                } else if self.lsa >= super::transfer::LOCAL_STORE_BYTES {
                    Err(DmaErrorKind::LocalStoreRange)
                } else {
                    Ok(())
                }
            }
            CommandKind::Barrier | CommandKind::Eieio | CommandKind::Sync => Ok(()),
        }
    }

    // Tag groups (22..=24), list stalls (25, 26), atomic status (27), multisource sync (9).

    /// `MFC_WrTagMask`.
    pub fn write_tag_mask(&mut self, mask: u32) {
        self.tags.write_mask(mask);
        self.attention = true;
    }

    /// `MFC_RdTagMask`.
    pub fn tag_mask(&self) -> u32 {
        self.tags.mask()
    }

    /// `MFC_WrTagUpdate`: only the low two bits are defined; 3 (reserved) asks for nothing.
    pub fn write_tag_update(&mut self, value: u32) {
        if let Some(condition) = TagUpdate::from_value(value & 3) {
            self.tags.request(condition);
            self.attention = true;
        }
    }

    /// `MFC_RdTagStat`, or `None` while no status is available.
    pub fn read_tag_status(&mut self) -> Option<u32> {
        self.tags.read_status()
    }

    /// The `MFC_RdTagStat` count.
    pub fn tag_status_available(&self) -> bool {
        self.tags.status_available()
    }

    /// `MFC_RdListStallStat`: the groups with a list stalled since the last read.
    pub fn read_list_stall(&mut self) -> Option<u32> {
        if !self.list_stall_available {
            return None;
        }
        self.list_stall_available = false;
        Some(core::mem::take(&mut self.list_stall))
    }

    /// The `MFC_RdListStallStat` count.
    pub fn list_stall_available(&self) -> bool {
        self.list_stall_available
    }

    /// `MFC_WrListStallAck`: resumes every stalled list of the tag group in bits 27..31.
    pub fn acknowledge_list_stall(&mut self, value: u32) {
        self.quiet_port.forget();
        let tag = (value & 31) as u8;
        for index in 0..self.queue.len() {
            if let Some(entry) = self.queue.get_mut(index)
                && entry.tag == tag
                && entry.progress == Progress::Stalled
            {
                entry.progress = Progress::Waiting;
                self.attention = true;
            }
        }
    }

    /// `MFC_RdAtomicStat`.
    pub fn read_atomic_status(&mut self) -> Option<u32> {
        if !self.atomic_available {
            return None;
        }
        self.atomic_available = false;
        Some(core::mem::take(&mut self.atomic_status))
    }

    /// The `MFC_RdAtomicStat` count.
    pub fn atomic_status_available(&self) -> bool {
        self.atomic_available
    }

    /// `MFC_WrMSSyncReq`: `false` while an earlier request is outstanding (the write waits).
    pub fn request_multisource_sync(&mut self) -> bool {
        if self.ms_sync {
            return false;
        }
        self.ms_sync = true;
        self.attention = true;
        true
    }

    /// The `MFC_WrMSSyncReq` count.
    pub fn multisource_sync_free(&self) -> bool {
        !self.ms_sync
    }
}
