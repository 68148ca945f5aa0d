//! Events keyed by program counter (gem5's `PCEventQueue`).
#![forbid(unsafe_code)]

use core::fmt;

/// What the queue does with an event after [`PcEvent::process`] ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PcEventAction {
    /// Keep the event scheduled.
    Keep,
    /// Remove this entry from the queue. This is how an event deletes itself while the queue
    /// is servicing it: the queue is borrowed mutably by `service`, so an event cannot reach it,
    /// and asks for its removal through the return value instead.
    Remove,
}

/// An event that runs when execution reaches a program counter.
///
/// `Ctx` is whatever the executing component hands to its events (a CPU model, a thread
/// context, `()`...). `process` takes `&self`; per-event state lives behind interior
/// mutability.
pub trait PcEvent<Ctx: ?Sized> {
    /// The program counter this event is scheduled at (read once, at scheduling time).
    fn pc(&self) -> u64;
    /// A human-readable description, used by [`PcEventQueue::dump`].
    fn description(&self) -> &str;
    /// Runs the event.
    fn process(&self, ctx: &mut Ctx) -> PcEventAction;
}

/// Why [`PcEventQueue::schedule`] or [`PcEventQueue::remove`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PcEventError {
    /// The queue already holds its maximum number of entries.
    CapacityExceeded {
        /// The queue's fixed capacity.
        capacity: usize,
    },
    /// The event to remove is not scheduled.
    NotScheduled,
}

impl fmt::Display for PcEventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CapacityExceeded { capacity } => {
                write!(f, "PC event queue is full ({capacity} events)")
            }
            Self::NotScheduled => f.write_str("PC event is not scheduled"),
        }
    }
}

impl core::error::Error for PcEventError {}

/// One queue entry: the program counter and the event, a caller-owned object.
pub struct ScheduledPcEvent<'a, Ctx: ?Sized> {
    pc: u64,
    event: &'a dyn PcEvent<Ctx>,
}

impl<Ctx: ?Sized> Clone for ScheduledPcEvent<'_, Ctx> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Ctx: ?Sized> Copy for ScheduledPcEvent<'_, Ctx> {}

impl<'a, Ctx: ?Sized> ScheduledPcEvent<'a, Ctx> {
    /// The program counter this entry is keyed by.
    pub fn pc(&self) -> u64 {
        self.pc
    }

    /// The event.
    pub fn event(&self) -> &'a dyn PcEvent<Ctx> {
        self.event
    }

    fn is(&self, event: &dyn PcEvent<Ctx>) -> bool {
        core::ptr::addr_eq(self.event, event)
    }
}

/// Up to `N` scheduled PC events, sorted by program counter.
///
/// Lookup is a binary search (O(log N)); insertion shifts the entries above the insertion point
/// (O(N) moves, no re-sort). Entries with the same program counter run in scheduling order.
/// The same event may be scheduled more than once; [`remove`](Self::remove) removes every entry
/// of it.
///
/// While [`service`](Self::service) runs, the queue is mutably borrowed: an event cannot
/// schedule or remove entries itself (the borrow checker rejects it), it returns
/// [`PcEventAction::Remove`] to have its own entry removed, safely, before the next entry runs.
pub struct PcEventQueue<'a, Ctx: ?Sized, const N: usize> {
    entries: heapless::Vec<ScheduledPcEvent<'a, Ctx>, N>,
}

impl<Ctx: ?Sized, const N: usize> Default for PcEventQueue<'_, Ctx, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, Ctx: ?Sized, const N: usize> PcEventQueue<'a, Ctx, N> {
    /// An empty queue.
    pub const fn new() -> Self {
        Self {
            entries: heapless::Vec::new(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no event is scheduled.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries, sorted by program counter.
    pub fn entries(&self) -> &[ScheduledPcEvent<'a, Ctx>] {
        &self.entries
    }

    /// Schedules `event` at `event.pc()`.
    pub fn schedule(&mut self, event: &'a dyn PcEvent<Ctx>) -> Result<(), PcEventError> {
        let pc = event.pc();
        let at = self.entries.partition_point(|entry| entry.pc <= pc);
        self.entries
            .insert(at, ScheduledPcEvent { pc, event })
            .map_err(|_| PcEventError::CapacityExceeded { capacity: N })
    }

    /// Removes every entry of `event` (compared by address).
    pub fn remove(&mut self, event: &dyn PcEvent<Ctx>) -> Result<(), PcEventError> {
        let before = self.entries.len();
        self.entries.retain(|entry| !entry.is(event));
        if self.entries.len() == before {
            Err(PcEventError::NotScheduled)
        } else {
            Ok(())
        }
    }

    /// The entries scheduled at `pc`, in scheduling order.
    pub fn equal_range(&self, pc: u64) -> &[ScheduledPcEvent<'a, Ctx>] {
        let range = self.range_of(pc);
        self.entries.get(range).unwrap_or(&[])
    }

    fn range_of(&self, pc: u64) -> core::ops::Range<usize> {
        let start = self.entries.partition_point(|entry| entry.pc < pc);
        let end = self.entries.partition_point(|entry| entry.pc <= pc);
        start..end
    }

    /// Runs every event scheduled at `pc`; returns whether any ran. An empty queue returns at
    /// once. Entries whose event returns [`PcEventAction::Remove`] are removed.
    #[inline]
    pub fn service(&mut self, pc: u64, ctx: &mut Ctx) -> bool {
        if self.entries.is_empty() {
            return false;
        }
        self.service_slow(pc, ctx)
    }

    fn service_slow(&mut self, pc: u64, ctx: &mut Ctx) -> bool {
        let range = self.range_of(pc);
        let (mut index, mut end) = (range.start, range.end);
        let ran = index < end;
        while index < end {
            let Some(entry) = self.entries.get(index).copied() else {
                break;
            };
            match entry.event.process(ctx) {
                PcEventAction::Keep => index += 1,
                PcEventAction::Remove => {
                    self.entries.remove(index);
                    end -= 1;
                }
            }
        }
        ran
    }

    /// Writes one line per entry: `<tick>: event at <pc hex>: <description>`.
    pub fn dump(&self, tick: u64, out: &mut impl fmt::Write) -> fmt::Result {
        for entry in &self.entries {
            writeln!(
                out,
                "{tick}: event at {:#x}: {}",
                entry.pc,
                entry.event.description()
            )?;
        }
        Ok(())
    }
}

/// A breakpoint: calls a hook when reached and, if asked to, removes itself afterwards.
pub struct BreakPcEvent<'d, Ctx: ?Sized> {
    pc: u64,
    description: &'d str,
    hook: fn(&mut Ctx, &BreakPcEvent<'d, Ctx>),
    remove_after_firing: bool,
    hits: core::cell::Cell<u64>,
}

impl<'d, Ctx: ?Sized> BreakPcEvent<'d, Ctx> {
    /// A breakpoint at `pc` that calls `hook` each time it is reached. With
    /// `remove_after_firing` it fires once and its entry leaves the queue.
    pub const fn new(
        pc: u64,
        description: &'d str,
        hook: fn(&mut Ctx, &BreakPcEvent<'d, Ctx>),
        remove_after_firing: bool,
    ) -> Self {
        Self {
            pc,
            description,
            hook,
            remove_after_firing,
            hits: core::cell::Cell::new(0),
        }
    }

    /// How many times the breakpoint fired.
    pub fn hits(&self) -> u64 {
        self.hits.get()
    }
}

impl<Ctx: ?Sized> PcEvent<Ctx> for BreakPcEvent<'_, Ctx> {
    fn pc(&self) -> u64 {
        self.pc
    }

    fn description(&self) -> &str {
        self.description
    }

    fn process(&self, ctx: &mut Ctx) -> PcEventAction {
        self.hits.set(self.hits.get().saturating_add(1));
        (self.hook)(ctx, self);
        if self.remove_after_firing {
            PcEventAction::Remove
        } else {
            PcEventAction::Keep
        }
    }
}

/// Panics with its description when reached: a guard on code that must never run.
///
/// This is the crate's one deliberate panic; it exists to stop a model at once, like gem5's
/// `PanicPCEvent`.
pub struct PanicPcEvent<'d> {
    pc: u64,
    description: &'d str,
}

impl<'d> PanicPcEvent<'d> {
    /// A panic guard at `pc`.
    pub const fn new(pc: u64, description: &'d str) -> Self {
        Self { pc, description }
    }
}

impl<Ctx: ?Sized> PcEvent<Ctx> for PanicPcEvent<'_> {
    fn pc(&self) -> u64 {
        self.pc
    }

    fn description(&self) -> &str {
        self.description
    }

    fn process(&self, _ctx: &mut Ctx) -> PcEventAction {
        panic!("{}", self.description)
    }
}
