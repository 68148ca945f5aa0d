//! `--pmu`'s list of events.

use pmprobe::pmu::Event;

/// Event counters of the emulated PMU (its preset: PMUv3p7-like, N = 6).
pub const PMU_EVENT_COUNTERS: usize = 6;

/// Parses `--pmu`'s list: event names or numbers, comma separated; CPU_CYCLES goes on the
/// cycle counter, the others need one of the [`PMU_EVENT_COUNTERS`] event counters each.
pub fn parse_pmu_events(list: &str) -> Result<Vec<Event>, String> {
    let mut events = Vec::new();
    for word in list.split(',').filter(|w| !w.trim().is_empty()) {
        let event: Event = word
            .parse()
            .map_err(|error| format!("--pmu: `{}`: {error}", word.trim()))?;
        if events.contains(&event) {
            return Err(format!("--pmu: {event} is listed twice"));
        }
        events.push(event);
    }
    if events.is_empty() {
        return Err("--pmu needs at least one event".into());
    }
    let needing_event_counter = events.iter().filter(|e| **e != Event::CPU_CYCLES).count();
    if needing_event_counter > PMU_EVENT_COUNTERS {
        return Err(format!(
            "--pmu: {needing_event_counter} events need an event counter, the emulated PMU has {PMU_EVENT_COUNTERS} (plus the cycle counter for CPU_CYCLES)"
        ));
    }
    Ok(events)
}
