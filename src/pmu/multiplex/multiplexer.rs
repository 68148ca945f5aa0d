//! The multiplexer: groups of events taking turns on the counters.
#![forbid(unsafe_code)]

use super::error::MuxError;
use super::free::Free;
use super::group_id::GroupId;
use crate::pmu::backend::PmuBackend;
use crate::pmu::counter::Counter;
use crate::pmu::driver::Pmu;
use crate::pmu::event::Event;
use crate::pmu::filter::EventFilter;
use crate::pmu::reading::{EventReading, Readings};
use crate::pmu::snapshot::Snapshot;

/// How a group shares the counters (perf's `perf_event_attr.pinned`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum GroupKind {
    /// On its counters from [`start`](Multiplexer::start) to [`stop`](Multiplexer::stop):
    /// never rotated, so its counts are exact (`running == enabled`).
    Pinned,
    /// Takes its turn on the counters left beside the pinned groups.
    Flexible,
}

/// One event of a group and where it counts.
#[derive(Debug, Clone, Copy)]
struct Slot {
    group: u8,
    /// Its exception-level filter; `None`: the driver's default.
    filter: Option<EventFilter>,
    /// The counter it is programmed on while its group is scheduled.
    counter: Option<Counter>,
    /// Counted in the turns that have ended.
    count: u64,
}

/// One group: a run of consecutive slots.
#[derive(Debug, Clone, Copy)]
struct Group {
    first: u8,
    len: u8,
    pinned: bool,
    scheduled: bool,
    running: u64,
}

/// perf's multiplexing over one [`Pmu`]: event groups, pinned or flexible, scheduled onto the
/// counters together and rotated, with no heap (`EVENTS` events in `GROUPS` groups at most).
///
/// # Scheduling, as perf schedules
///
/// - A group is all on the counters or all off: ratios between its events (IPC, miss rates,
///   stall shares) always come from the same intervals.
/// - Pinned groups are programmed at [`start`](Self::start) and stay. Flexible groups follow
///   in rotation order, each while it fits, stopping at the first that does not (perf's
///   `merge_sched_in`: a group may go on only if every group before it could).
/// - [`rotate`](Self::rotate) moves the first flexible group to the end of the order and
///   schedules again, when some group had to wait (perf's `rotate_necessary`); with every
///   group on, it changes nothing. The caller rotates, on a timer tick (perf: every 4 ms) or at
///   points of its own choosing: the multiplexer has no clock.
/// - CPU_CYCLES goes on PMCCNTR_EL0 while that is free, as Linux's arm_pmuv3 does; a second
///   CPU_CYCLES event takes an event counter. A pinned CPU_CYCLES thus keeps the cycle counter
///   outside the rotation.
/// - Counters that something else programmed on the [`Pmu`] before [`start`](Self::start) are
///   left alone.
///
/// # Time
///
/// Every call takes `now` in a unit of the caller's choice (generic-timer ticks, SPU cycles,
/// any monotonic `u64`): the time between two calls is added to every event's time enabled and
/// to the time running of the events on counters. A reading's
/// [`estimate`](EventReading::estimate) is `raw × enabled / running`.
///
/// # Counting
///
/// Counters are 64 bits wide through the driver's software extension (or PMUv3p5's long
/// counters): rotate or read at least once per 2^32 events of an event, or take the overflow
/// interrupt and call [`service_overflow`](Self::service_overflow). The multiplexer sets
/// PMCR_EL0.E at [`start`](Self::start) and leaves it set at [`stop`](Self::stop) (other
/// counters may be in use); dropping it running leaves its counters programmed
/// ([`Pmu::reset`] frees them).
///
/// ```
/// use pmprobe::pmu::{EmulatedPmu, Event, GroupKind, Multiplexer, Pmu};
/// let cpu = EmulatedPmu::neoverse_v1_like(); // 6 event counters + PMCCNTR
/// let mut pmu = Pmu::new(&cpu)?;
/// let mut mux = Multiplexer::<_, 8, 3>::new(&mut pmu);
/// mux.add_group(&[Event::CPU_CYCLES, Event::INST_RETIRED], GroupKind::Pinned)?;
/// mux.add_group(&[Event::BR_RETIRED, Event::BR_MIS_PRED, Event::LD_RETIRED], GroupKind::Flexible)?;
/// mux.add_group(&[Event::ST_RETIRED, Event::L1D_CACHE, Event::L1D_CACHE_REFILL], GroupKind::Flexible)?;
/// mux.start(0)?;                      // the first flexible group is on, the second waits
/// cpu.count(Event::BR_RETIRED.number(), 10);
/// mux.rotate(100)?;                   // the second group's turn
/// cpu.count(Event::BR_RETIRED.number(), 10); // not counted: its group is off
/// mux.rotate(200)?;
/// cpu.count(Event::BR_RETIRED.number(), 10);
/// mux.stop(300)?;
/// let readings = mux.read(300)?;
/// let branches = readings.find(Event::BR_RETIRED).unwrap();
/// assert_eq!((branches.raw, branches.enabled, branches.running), (20, 300, 200));
/// assert_eq!(branches.estimate(), Some(30));
/// # Ok::<(), pmprobe::pmu::MuxError>(())
/// ```
#[derive(Debug)]
pub struct Multiplexer<'p, B: PmuBackend, const EVENTS: usize, const GROUPS: usize> {
    pmu: &'p mut Pmu<B>,
    /// Every event added, grouped: a group's events are consecutive.
    events: heapless::Vec<Event, EVENTS>,
    slots: heapless::Vec<Slot, EVENTS>,
    groups: heapless::Vec<Group, GROUPS>,
    /// The flexible groups in rotation order.
    order: heapless::Vec<u8, GROUPS>,
    /// The counters left for flexible groups once the pinned ones are on.
    flexible_free: Free,
    /// The time of the last call while running; `None` when stopped.
    since: Option<u64>,
    enabled: u64,
    /// The counters as the last read found them (kept here, not on the stack, for the hot
    /// path).
    live: Snapshot,
}

impl<'p, B: PmuBackend, const EVENTS: usize, const GROUPS: usize>
    Multiplexer<'p, B, EVENTS, GROUPS>
{
    /// A multiplexer with no group, over `pmu` (borrowed: nothing else reprograms it
    /// meanwhile).
    pub fn new(pmu: &'p mut Pmu<B>) -> Self {
        let flexible_free = Free::idle(pmu.info().counters);
        Self {
            pmu,
            events: heapless::Vec::new(),
            slots: heapless::Vec::new(),
            groups: heapless::Vec::new(),
            order: heapless::Vec::new(),
            flexible_free,
            since: None,
            enabled: 0,
            live: Snapshot::new(),
        }
    }

    /// Adds a group of events that are counted together (perf's `{a,b,c}`), before
    /// [`start`](Self::start). An event may be in several groups.
    ///
    /// Errors: [`MuxError::Running`] after start; [`MuxError::EmptyGroup`];
    /// [`MuxError::TooManyEvents`] / [`MuxError::TooManyGroups`] past the capacity;
    /// [`MuxError::Pmu`] with [`EventNotImplemented`](crate::pmu::Error::EventNotImplemented) or
    /// [`EventTooWide`](crate::pmu::Error::EventTooWide) for an event the PMU cannot count;
    /// [`MuxError::PinnedDoNotFit`] when the pinned groups would need more counters than the PMU
    /// has; [`MuxError::GroupTooLarge`] when a flexible group would not fit beside them.
    pub fn add_group(&mut self, events: &[Event], kind: GroupKind) -> Result<GroupId, MuxError> {
        self.add_group_filtered_by(events, |_| None, kind)
    }

    /// [`add_group`](Self::add_group) with the exception-level filter of the `i`-th event
    /// from `filter(i)` (`None`: the driver's default).
    pub(super) fn add_group_filtered_by(
        &mut self,
        events: &[Event],
        filter: impl Fn(usize) -> Option<EventFilter>,
        kind: GroupKind,
    ) -> Result<GroupId, MuxError> {
        if self.since.is_some() {
            return Err(MuxError::Running);
        }
        if events.is_empty() {
            return Err(MuxError::EmptyGroup);
        }
        if self.events.len() + events.len() > EVENTS || self.events.len() + events.len() > 255 {
            return Err(MuxError::TooManyEvents { capacity: EVENTS });
        }
        if self.groups.len() >= GROUPS || self.groups.len() >= 255 {
            return Err(MuxError::TooManyGroups { capacity: GROUPS });
        }
        for &event in events {
            self.pmu.check_implemented(event)?;
        }
        self.check_fit(events, kind)?;
        let index = self.groups.len() as u8;
        let group = Group {
            first: self.events.len() as u8,
            len: events.len() as u8,
            pinned: kind == GroupKind::Pinned,
            scheduled: false,
            running: 0,
        };
        for (i, &event) in events.iter().enumerate() {
            // Capacity was checked above.
            let _ = self.events.push(event);
            let _ = self.slots.push(Slot {
                group: index,
                filter: filter(i),
                counter: None,
                count: 0,
            });
        }
        let _ = self.groups.push(group);
        if kind == GroupKind::Flexible {
            let _ = self.order.push(index);
        }
        Ok(GroupId::new(index))
    }

    /// Adds one event as a flexible group of its own (what perf does with `-e a,b,c`).
    pub fn add_event(&mut self, event: Event) -> Result<GroupId, MuxError> {
        self.add_group(&[event], GroupKind::Flexible)
    }

    /// Whether the groups, with `events` added as a `kind` group, fit a PMU with nothing else
    /// programmed: every pinned group at once, and each flexible group beside them.
    fn check_fit(&self, events: &[Event], kind: GroupKind) -> Result<(), MuxError> {
        let idle = Free::idle(self.pmu.info().counters);
        let mut free = idle;
        let mut pinned_needs = 0u8;
        let new_pinned = (kind == GroupKind::Pinned).then_some(events);
        let pinned = self.group_events(true).chain(new_pinned);
        let mut fits = true;
        for group in pinned {
            pinned_needs = pinned_needs.saturating_add(free.needs(group));
            fits &= free.take_group(group);
        }
        if !fits {
            return Err(MuxError::PinnedDoNotFit {
                needs: pinned_needs,
                available: idle.event_counters(),
            });
        }
        let new_flexible = (kind == GroupKind::Flexible).then_some(events);
        for group in self.group_events(false).chain(new_flexible) {
            if !free.fits(group) {
                return Err(MuxError::GroupTooLarge {
                    needs: free.needs(group),
                    available: free.event_counters(),
                });
            }
        }
        Ok(())
    }

    /// The events of every pinned (or every flexible) group, in the order they were added.
    fn group_events(&self, pinned: bool) -> impl Iterator<Item = &[Event]> {
        self.groups
            .iter()
            .filter(move |group| group.pinned == pinned)
            .map(|group| {
                let start = usize::from(group.first);
                self.events
                    .get(start..start + usize::from(group.len))
                    .unwrap_or(&[])
            })
    }

    /// Starts counting at time `now`: PMCR_EL0.E set, the pinned groups programmed, the
    /// flexible groups scheduled in their order.
    ///
    /// Errors: [`MuxError::Running`] when started already; [`MuxError::PinnedDoNotFit`] when
    /// counters that something else programmed leave too few for the pinned groups; a driver
    /// error from programming.
    pub fn start(&mut self, now: u64) -> Result<(), MuxError> {
        if self.since.is_some() {
            return Err(MuxError::Running);
        }
        let info_counters = self.pmu.info().counters;
        let mut free = Free::idle(info_counters);
        free.cycle = self.pmu.event_of(Counter::Cycle).is_none();
        for index in 0..info_counters {
            if self.pmu.event_of(Counter::Event(index)).is_some() {
                free.events &= !(1 << index);
            }
        }
        let available = free.event_counters();
        let mut plan = Plan::new();
        for index in 0..self.groups.len() {
            if self.groups.get(index).is_some_and(|group| group.pinned)
                && !self.plan(index, &mut free, &mut plan)
            {
                let idle = Free::idle(info_counters);
                let needs = self
                    .group_events(true)
                    .fold(0u8, |needs, group| needs.saturating_add(idle.needs(group)));
                self.forget(&plan);
                return Err(MuxError::PinnedDoNotFit { needs, available });
            }
        }
        self.commit(&plan)?;
        self.flexible_free = free;
        self.pmu.start()?;
        self.since = Some(now);
        self.schedule_flexible()
    }

    /// Rotates at time `now`: the time since the last call is accounted to the events on
    /// counters, and if some flexible group had to wait, the first flexible group goes to the
    /// end of the order and the flexible groups are scheduled again.
    ///
    /// Errors: [`MuxError::NotRunning`], [`MuxError::ClockWentBack`], a driver error.
    pub fn rotate(&mut self, now: u64) -> Result<(), MuxError> {
        self.account(now)?;
        let waiting = self
            .groups
            .iter()
            .any(|group| !group.pinned && !group.scheduled);
        if !waiting {
            return Ok(());
        }
        self.unschedule_all(false)?;
        if !self.order.is_empty() {
            self.order.rotate_left(1);
        }
        self.schedule_flexible()
    }

    /// Stops counting at time `now`: the time is accounted and every counter read one last
    /// time and freed. The readings stay until the multiplexer is dropped.
    ///
    /// Errors: [`MuxError::NotRunning`], [`MuxError::ClockWentBack`], a driver error.
    pub fn stop(&mut self, now: u64) -> Result<(), MuxError> {
        self.account(now)?;
        self.unschedule_all(false)?;
        self.unschedule_all(true)?;
        self.since = None;
        Ok(())
    }

    /// Every event's reading at time `now` (the counters on now are read where they are),
    /// in the order the events were added.
    ///
    /// Errors: [`MuxError::ClockWentBack`] while running, a driver error. Stopped, `now` is
    /// not used: the readings are those of [`stop`](Self::stop).
    pub fn read(&mut self, now: u64) -> Result<Readings<EVENTS>, MuxError> {
        let mut out = Readings::new();
        self.read_into(now, &mut out)?;
        Ok(out)
    }

    /// [`read`](Self::read) into `out` (replacing its contents), for readings on a hot path.
    /// The counters are read in one pass ([`Pmu::snapshot_into`]: one `isb`, the counters, one
    /// look at the overflow flags), so all the live counts are of the same moment.
    pub fn read_into(&mut self, now: u64, out: &mut Readings<EVENTS>) -> Result<(), MuxError> {
        if self.since.is_some() {
            self.account(now)?;
            self.pmu.snapshot_into(&mut self.live)?;
        } else {
            self.live = Snapshot::new();
        }
        out.clear();
        for (slot, &event) in self.slots.iter().zip(self.events.iter()) {
            let live = slot
                .counter
                .and_then(|counter| self.live.get(counter))
                .unwrap_or(0);
            let running = self
                .groups
                .get(usize::from(slot.group))
                .map_or(0, |group| group.running);
            out.push(EventReading {
                event,
                group: GroupId::new(slot.group),
                raw: slot.count.wrapping_add(live),
                enabled: self.enabled,
                running,
            });
        }
        Ok(())
    }

    /// Whether `group` is on counters now.
    pub fn is_scheduled(&self, group: GroupId) -> bool {
        self.groups
            .get(group.index())
            .is_some_and(|group| group.scheduled)
    }

    /// Whether the multiplexer is between [`start`](Self::start) and [`stop`](Self::stop).
    pub fn is_running(&self) -> bool {
        self.since.is_some()
    }

    /// Groups added.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// The events of `group`, in the order they were given.
    pub fn events_of(&self, group: GroupId) -> &[Event] {
        self.groups.get(group.index()).map_or(&[], |group| {
            let start = usize::from(group.first);
            self.events
                .get(start..start + usize::from(group.len))
                .unwrap_or(&[])
        })
    }

    /// The time every event has been enabled so far (up to the last call).
    pub fn time_enabled(&self) -> u64 {
        self.enabled
    }

    /// The counter `group`'s `index`-th event is on now, if its group is scheduled.
    pub fn counter_of(&self, group: GroupId, index: usize) -> Option<Counter> {
        let group = self.groups.get(group.index())?;
        if index >= usize::from(group.len) {
            return None;
        }
        self.slots
            .get(usize::from(group.first) + index)
            .and_then(|slot| slot.counter)
    }

    /// Takes pending overflow flags into the driver's 64-bit counts (call it from the PMU
    /// overflow interrupt; see [`Pmu::service_overflow`]).
    pub fn service_overflow(&mut self) -> Result<u64, MuxError> {
        Ok(self.pmu.service_overflow()?)
    }

    /// The driver, for anything that does not reprogram it.
    pub fn pmu(&self) -> &Pmu<B> {
        self.pmu
    }

    /// Adds the time since the last call to every event's time enabled and to the time running
    /// of the scheduled groups.
    fn account(&mut self, now: u64) -> Result<(), MuxError> {
        let since = self.since.ok_or(MuxError::NotRunning)?;
        let elapsed = now
            .checked_sub(since)
            .ok_or(MuxError::ClockWentBack { last: since, now })?;
        self.enabled = self.enabled.wrapping_add(elapsed);
        for group in self.groups.iter_mut().filter(|group| group.scheduled) {
            group.running = group.running.wrapping_add(elapsed);
        }
        self.since = Some(now);
        Ok(())
    }

    /// perf's flexible scheduling: in rotation order, each group that fits the counters left,
    /// stopping at the first that does not; then every counter programmed in one go.
    fn schedule_flexible(&mut self) -> Result<(), MuxError> {
        let mut free = self.flexible_free;
        let mut plan = Plan::new();
        for position in 0..self.order.len() {
            let Some(&index) = self.order.get(position) else {
                break;
            };
            if !self.plan(usize::from(index), &mut free, &mut plan) {
                break;
            }
        }
        self.commit(&plan)
    }

    /// Takes counters for group `index` from `free` and adds them to `plan` (the group counts
    /// as scheduled from here); `false`, and nothing taken, when it does not fit.
    fn plan(&mut self, index: usize, free: &mut Free, plan: &mut Plan<EVENTS>) -> bool {
        let Some(group) = self.groups.get(index).copied() else {
            return false;
        };
        let first = usize::from(group.first);
        let range = first..first + usize::from(group.len);
        let Some(events) = self.events.get(range.clone()) else {
            return false;
        };
        if !free.fits(events) {
            return false;
        }
        for position in range {
            let (Some(&event), Some(slot)) =
                (self.events.get(position), self.slots.get_mut(position))
            else {
                continue;
            };
            let Some(counter) = free.take(event) else {
                continue;
            };
            slot.counter = Some(counter);
            // A plan holds at most every event once.
            let _ = plan.counters.push((counter, event, slot.filter));
            let _ = plan.slots.push(position);
        }
        if let Some(group) = self.groups.get_mut(index) {
            group.scheduled = true;
        }
        true
    }

    /// Programs the counters of `plan`; on an error, forgets the plan as if it never was.
    fn commit(&mut self, plan: &Plan<EVENTS>) -> Result<(), MuxError> {
        if let Err(e) = self.pmu.program_assignments(plan.counters.iter().copied()) {
            self.forget(plan);
            return Err(e.into());
        }
        Ok(())
    }

    /// Undoes a plan that was not programmed: its slots lose their counters, its groups are
    /// not scheduled.
    fn forget(&mut self, plan: &Plan<EVENTS>) {
        for &position in &plan.slots {
            if let Some(slot) = self.slots.get_mut(position) {
                slot.counter = None;
                if let Some(group) = self.groups.get_mut(usize::from(slot.group)) {
                    group.scheduled = false;
                }
            }
        }
    }

    /// Takes every scheduled pinned (or flexible) group off its counters, keeping the counts
    /// (all their counters stopped, read and freed in one go).
    fn unschedule_all(&mut self, pinned: bool) -> Result<(), MuxError> {
        let mut counters: heapless::Vec<Counter, EVENTS> = heapless::Vec::new();
        for slot in &self.slots {
            let on = self
                .groups
                .get(usize::from(slot.group))
                .is_some_and(|group| group.pinned == pinned);
            if let (true, Some(counter)) = (on, slot.counter) {
                // At most one counter per slot.
                let _ = counters.push(counter);
            }
        }
        let mut counts = [0u64; EVENTS];
        self.pmu.take_many(&counters, &mut counts)?;
        let mut taken = counts.iter();
        for slot in self.slots.iter_mut() {
            let on = self
                .groups
                .get(usize::from(slot.group))
                .is_some_and(|group| group.pinned == pinned);
            if on && slot.counter.take().is_some() {
                slot.count = slot.count.wrapping_add(taken.next().copied().unwrap_or(0));
            }
        }
        for group in self
            .groups
            .iter_mut()
            .filter(|group| group.pinned == pinned)
        {
            group.scheduled = false;
        }
        Ok(())
    }
}

/// Counters chosen for groups, to be programmed together: `(counter, event, filter)` and the
/// slot of each.
struct Plan<const EVENTS: usize> {
    counters: heapless::Vec<(Counter, Event, Option<EventFilter>), EVENTS>,
    slots: heapless::Vec<usize, EVENTS>,
}

impl<const EVENTS: usize> Plan<EVENTS> {
    const fn new() -> Self {
        Self {
            counters: heapless::Vec::new(),
            slots: heapless::Vec::new(),
        }
    }
}
