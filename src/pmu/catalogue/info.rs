//! One catalogue entry: an event number with its name and description from Arm's data.
#![forbid(unsafe_code)]

/// An event as Arm's machine-readable PMU description names and describes it.
///
/// Bare-metal builds (`target_os = "none"`) keep no descriptions: they would take about a
/// fifth of the demo firmware's 512 KiB image, so there [`description`](Self::description)
/// is empty and only the names and numbers are in the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventInfo {
    number: u16,
    name: &'static str,
    #[cfg(not(target_os = "none"))]
    description: &'static str,
}

impl EventInfo {
    /// The generated tables build their entries with this.
    #[cfg_attr(target_os = "none", allow(unused_variables))]
    pub(super) const fn new(number: u16, name: &'static str, description: &'static str) -> Self {
        Self {
            number,
            name,
            #[cfg(not(target_os = "none"))]
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
    /// Arm's one-line description (empty on bare metal, see the type's documentation).
    pub const fn description(&self) -> &'static str {
        #[cfg(not(target_os = "none"))]
        return self.description;
        #[cfg(target_os = "none")]
        ""
    }
}
