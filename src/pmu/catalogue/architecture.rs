//! Lookups in the architecture's table (the common and recommended events every core shares
//! the numbering of), without a core: what [`Event`](crate::pmu::Event) names itself by.
#![forbid(unsafe_code)]

use super::common::EVENTS;
use super::info::EventInfo;

/// The architecture's entry for `number`, if the Arm ARM defines one.
pub fn common_event(number: u16) -> Option<&'static EventInfo> {
    by_number(&EVENTS, number)
}

/// The architecture's entry named `name` (ASCII case-insensitive).
pub fn common_event_named(name: &str) -> Option<&'static EventInfo> {
    by_name(&EVENTS, name)
}

/// The architecture's table in number order.
pub fn common_events() -> &'static [EventInfo] {
    &EVENTS
}

/// `table` is in number order (the generator sorts it), so a binary search finds the entry.
pub(super) fn by_number(table: &'static [EventInfo], number: u16) -> Option<&'static EventInfo> {
    table
        .binary_search_by_key(&number, EventInfo::number)
        .ok()
        .and_then(|i| table.get(i))
}

pub(super) fn by_name(table: &'static [EventInfo], name: &str) -> Option<&'static EventInfo> {
    table.iter().find(|e| e.name().eq_ignore_ascii_case(name))
}
