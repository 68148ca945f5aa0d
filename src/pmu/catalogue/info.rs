//! One catalogue entry: an event number with its name and description from Arm's data.
#![forbid(unsafe_code)]

/// An event as Arm's machine-readable PMU description names and describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventInfo {
    number: u16,
    name: &'static str,
    description: &'static str,
}

impl EventInfo {
    /// The generated tables build their entries with this.
    pub(super) const fn new(number: u16, name: &'static str, description: &'static str) -> Self {
        Self {
            number,
            name,
            description,
        }
    }
    /// The event number (PMEVTYPER.evtCount).
    pub const fn number(&self) -> u16 {
        self.number
    }
    /// The name, upper case as Arm writes it (`L1D_CACHE_RD`).
    pub const fn name(&self) -> &'static str {
        self.name
    }
    /// Arm's one-line description.
    pub const fn description(&self) -> &'static str {
        self.description
    }
}
