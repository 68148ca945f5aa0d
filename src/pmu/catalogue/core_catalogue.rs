//! A core's catalogue: its own table (chosen by MIDR_EL1) over the architecture's, and which of
//! its events a PMU announces.
#![forbid(unsafe_code)]

use super::architecture::{by_name, by_number, common_event, common_event_named};
use super::info::EventInfo;
use crate::pmu::event::{Event, EventSet};

/// The events of one core: its own table from Arm's data (with its IMPLEMENTATION DEFINED
/// events), and the architecture's table for every number the core's table leaves out.
#[derive(Debug, PartialEq, Eq)]
pub struct CoreCatalogue {
    name: &'static str,
    implementer: u8,
    part: u16,
    events: &'static [EventInfo],
    left_unnamed: u16,
}

impl CoreCatalogue {
    /// The generated list of cores builds its entries with this.
    pub(super) const fn new(
        name: &'static str,
        implementer: u8,
        part: u16,
        events: &'static [EventInfo],
        left_unnamed: u16,
    ) -> Self {
        Self {
            name,
            implementer,
            part,
            events,
            left_unnamed,
        }
    }
    /// The core's name as Arm's data gives it (`Cortex-A57`), or the common catalogue's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }
    /// Whether this core has a table of its own (`false` for the common-only fallback).
    pub const fn has_core_table(&self) -> bool {
        !self.events.is_empty()
    }
    /// MIDR_EL1.Implementer and PartNum this table is chosen by (0, 0 for the fallback).
    pub const fn midr_match(&self) -> (u8, u16) {
        (self.implementer, self.part)
    }
    /// The core's own table in number order (empty for the fallback).
    pub const fn core_events(&self) -> &'static [EventInfo] {
        self.events
    }
    /// Events of the core's data that carry no name and so cannot be looked up.
    pub const fn left_unnamed(&self) -> u16 {
        self.left_unnamed
    }
    /// The entry for `number`: the core's own first, then the architecture's.
    pub fn lookup(&self, number: u16) -> Option<&'static EventInfo> {
        by_number(self.events, number).or_else(|| common_event(number))
    }
    /// The entry named `name` (ASCII case-insensitive): the core's own first, then the
    /// architecture's.
    pub fn find(&self, name: &str) -> Option<&'static EventInfo> {
        by_name(self.events, name).or_else(|| common_event_named(name))
    }
    /// Every name this catalogue knows (the core's, then the architecture's; a name both
    /// tables carry comes twice).
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.events
            .iter()
            .chain(super::architecture::common_events())
            .map(EventInfo::name)
    }
    /// The common events (0x00..=0x3F, 0x4000..=0x403F) that `implemented` announces, with
    /// their entries, in number order; a number no table names is left out.
    pub fn announced(
        &self,
        implemented: EventSet,
    ) -> impl Iterator<Item = &'static EventInfo> + '_ {
        (0u16..0x40)
            .chain(0x4000..0x4040)
            .filter(move |&number| implemented.contains(Event::raw(number)))
            .filter_map(move |number| self.lookup(number))
    }
    /// The core's own events that PMCEID cannot describe (numbers outside the common ranges):
    /// the core's data says the core has them.
    pub fn beyond_pmceid(&self) -> impl Iterator<Item = &'static EventInfo> + '_ {
        self.events
            .iter()
            .filter(|e| !Event::raw(e.number()).is_common())
    }
}
