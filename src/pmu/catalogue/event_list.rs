//! perf's `-e` event list: `a,b,{c,d}:u,r1b:k`, parsed without allocation into the events,
//! their groups and their modifiers.
//!
//! The syntax is perf's (`tools/perf/util/parse-events.y`, as far as a PMU of one core needs
//! it): items separated by commas; an item is an event or a group `{e1,e2,...}` (no nesting),
//! either followed by `:modifiers`; an event is one of perf's generic hardware names
//! (`cycles`, `instructions`, `branch-misses`, ..., mapped as Linux's arm_pmuv3 driver maps
//! them, `armv8_pmuv3_perf_map`), a name of the core's or the architecture's event table, or a
//! raw number (`r1b`, `0x1b`); names in any case. The modifiers are read by
//! [`Exclude::with_modifiers`]; a group's apply to each member on top of its own.
#![forbid(unsafe_code)]

use core::fmt;

use super::core_catalogue::CoreCatalogue;
use super::parse::{ParseEventError, parse_event};
use crate::pmu::event::Event;
use crate::pmu::filter::{Exclude, ModifierError};

/// perf's generic hardware event names and the PMUv3 events Linux's arm_pmuv3 driver counts
/// for them (`armv8_pmuv3_perf_map`: `branches` is PC_WRITE_RETIRED there).
pub const GENERIC_EVENTS: [(&str, Event); 13] = [
    ("cycles", Event::CPU_CYCLES),
    ("cpu-cycles", Event::CPU_CYCLES),
    ("instructions", Event::INST_RETIRED),
    ("cache-references", Event::L1D_CACHE),
    ("cache-misses", Event::L1D_CACHE_REFILL),
    ("branches", Event::PC_WRITE_RETIRED),
    ("branch-instructions", Event::PC_WRITE_RETIRED),
    ("branch-misses", Event::BR_MIS_PRED),
    ("bus-cycles", Event::BUS_CYCLES),
    ("stalled-cycles-frontend", Event::STALL_FRONTEND),
    ("idle-cycles-frontend", Event::STALL_FRONTEND),
    ("stalled-cycles-backend", Event::STALL_BACKEND),
    ("idle-cycles-backend", Event::STALL_BACKEND),
];

/// One event of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventSpec<'a> {
    /// The event as written, its own modifiers included (`instructions:u`): the name perf
    /// stat prints for it.
    pub name: &'a str,
    /// The PMU event.
    pub event: Event,
    /// What its modifiers (and its group's) exclude.
    pub exclude: Exclude,
    /// Its group: the index of the item it came from (events outside braces are groups of
    /// one, as perf's `-e a,b`).
    pub group: u8,
}

/// What is wrong with the event list, and the text where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventListError<'a> {
    /// The offending text (an event, a modifier list, a brace).
    pub token: &'a str,
    /// Its byte offset in the list.
    pub at: usize,
    /// What is wrong.
    pub kind: EventListErrorKind,
}

/// The kinds of [`EventListError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventListErrorKind {
    /// No event between two commas, in empty braces or in an empty list.
    Empty,
    /// Not an event name or a raw number.
    Event(ParseEventError),
    /// A modifier letter this PMU cannot honour.
    Modifier(ModifierError),
    /// A `{` without its `}`, a `}` without its `{`, or a `{` inside braces.
    Braces,
    /// More events than the list holds.
    TooManyEvents {
        /// The list's capacity.
        capacity: usize,
    },
}

impl fmt::Display for EventListError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event syntax error at `{}` (offset {}): ",
            self.token, self.at
        )?;
        match self.kind {
            EventListErrorKind::Empty => f.write_str("no event"),
            EventListErrorKind::Event(e) => write!(f, "{e}"),
            EventListErrorKind::Modifier(e) => write!(f, "{e}"),
            EventListErrorKind::Braces => f.write_str("unbalanced or nested braces"),
            EventListErrorKind::TooManyEvents { capacity } => {
                write!(f, "more than {capacity} events")
            }
        }
    }
}

impl core::error::Error for EventListError<'_> {}

/// A parsed `-e` list of at most `N` events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventList<'a, const N: usize> {
    events: heapless::Vec<EventSpec<'a>, N>,
    groups: u8,
}

/// The event `name` (no modifiers): a generic name, then the core's and the architecture's
/// tables and raw numbers.
fn lookup(name: &str, core: &CoreCatalogue) -> Result<Event, ParseEventError> {
    GENERIC_EVENTS
        .iter()
        .find(|(generic, _)| generic.eq_ignore_ascii_case(name))
        .map(|&(_, event)| Ok(event))
        .unwrap_or_else(|| parse_event(name, core))
}

/// `text` split at its first `:`: the name and the modifiers (empty without a colon).
fn split_modifiers(text: &str) -> (&str, &str) {
    text.split_once(':').unwrap_or((text, ""))
}

impl<'a, const N: usize> EventList<'a, N> {
    /// Parses `text` for `core`.
    ///
    /// ```
    /// use pmprobe::pmu::Event;
    /// use pmprobe::pmu::catalogue::{EventList, for_midr};
    /// let a57 = for_midr(0x411f_d070);
    /// let list = EventList::<8>::parse("{cycles,instructions}:u,r1b", a57)?;
    /// let events: Vec<_> = list.iter().map(|e| (e.name, e.event, e.group)).collect();
    /// assert_eq!(events, [
    ///     ("cycles", Event::CPU_CYCLES, 0),
    ///     ("instructions", Event::INST_RETIRED, 0),
    ///     ("r1b", Event::INST_SPEC, 1),
    /// ]);
    /// assert!(list.iter().take(2).all(|e| e.exclude.kernel && !e.exclude.user));
    /// # Ok::<(), pmprobe::pmu::catalogue::EventListError<'static>>(())
    /// ```
    pub fn parse(text: &'a str, core: &CoreCatalogue) -> Result<Self, EventListError<'a>> {
        let mut list = Self {
            events: heapless::Vec::new(),
            groups: 0,
        };
        let error = |token: &'a str, kind| EventListError {
            token,
            at: token.as_ptr() as usize - text.as_ptr() as usize,
            kind,
        };
        if text.trim().is_empty() {
            return Err(error(text, EventListErrorKind::Empty));
        }
        let mut rest = text;
        loop {
            rest = rest.trim_start();
            let after = match rest.strip_prefix('{') {
                Some(inside) => {
                    let close = inside
                        .find('}')
                        .ok_or_else(|| error(rest, EventListErrorKind::Braces))?;
                    let members = &inside[..close];
                    if members.contains('{') {
                        return Err(error(rest, EventListErrorKind::Braces));
                    }
                    let tail = &inside[close + 1..];
                    let end = tail.find(',').unwrap_or(tail.len());
                    let modifiers = tail[..end].strip_prefix(':');
                    if !tail[..end].is_empty() && modifiers.is_none() {
                        return Err(error(&tail[..end], EventListErrorKind::Braces));
                    }
                    list.push_group(members, modifiers.unwrap_or(""), core, &error)?;
                    tail.get(end + 1..)
                }
                None => {
                    let end = rest.find(',').unwrap_or(rest.len());
                    let item = &rest[..end];
                    if item.contains(['{', '}']) {
                        return Err(error(item, EventListErrorKind::Braces));
                    }
                    list.push_group(item, "", core, &error)?;
                    rest.get(end + 1..)
                }
            };
            match after {
                Some(next) => rest = next,
                None => break,
            }
        }
        Ok(list)
    }

    /// Adds the comma-separated `members` as one group, each with `group_modifiers` on top of
    /// its own.
    fn push_group(
        &mut self,
        members: &'a str,
        group_modifiers: &'a str,
        core: &CoreCatalogue,
        error: &impl Fn(&'a str, EventListErrorKind) -> EventListError<'a>,
    ) -> Result<(), EventListError<'a>> {
        let group = self.groups;
        for member in members.split(',') {
            let name = member.trim();
            if name.is_empty() {
                return Err(error(member, EventListErrorKind::Empty));
            }
            let (event_name, modifiers) = split_modifiers(name);
            let event = lookup(event_name, core)
                .map_err(|e| error(event_name, EventListErrorKind::Event(e)))?;
            let own = if modifiers.is_empty() {
                Ok(Exclude::PERF_DEFAULT)
            } else {
                Exclude::PERF_DEFAULT.with_modifiers(modifiers, false)
            };
            let exclude = own
                .and_then(|own| {
                    if group_modifiers.is_empty() {
                        Ok(own)
                    } else {
                        own.with_modifiers(group_modifiers, true)
                    }
                })
                .map_err(|e| error(name, EventListErrorKind::Modifier(e)))?;
            self.events
                .push(EventSpec {
                    name,
                    event,
                    exclude,
                    group,
                })
                .map_err(|_| error(name, EventListErrorKind::TooManyEvents { capacity: N }))?;
        }
        self.groups = self.groups.saturating_add(1);
        Ok(())
    }

    /// The events in the order written.
    pub fn iter(&self) -> impl Iterator<Item = &EventSpec<'a>> {
        self.events.iter()
    }

    /// The events in the order written.
    pub fn as_slice(&self) -> &[EventSpec<'a>] {
        &self.events
    }

    /// Number of groups (items of the list).
    pub fn groups(&self) -> usize {
        usize::from(self.groups)
    }

    /// The events of group `group`, in order.
    pub fn group(&self, group: usize) -> impl Iterator<Item = &EventSpec<'a>> {
        self.events
            .iter()
            .filter(move |e| usize::from(e.group) == group)
    }
}
