//! Groups whose events carry their own exception-level filters (perf's `-e {a,b}:u`).
#![forbid(unsafe_code)]

use super::error::MuxError;
use super::group_id::GroupId;
use super::multiplexer::{GroupKind, Multiplexer};
use crate::pmu::backend::PmuBackend;
use crate::pmu::event::Event;
use crate::pmu::filter::EventFilter;

impl<B: PmuBackend, const EVENTS: usize, const GROUPS: usize> Multiplexer<'_, B, EVENTS, GROUPS> {
    /// [`add_group`](Self::add_group) with each event's PMEVTYPER filter bits (from
    /// [`Exclude::filter`](crate::pmu::Exclude::filter)) instead of the driver's default: the
    /// event counts only at the exception levels its filter leaves.
    ///
    /// ```
    /// use pmprobe::pmu::{EmulatedPmu, Event, EventFilter, GroupKind, Multiplexer, Pmu};
    /// let cpu = EmulatedPmu::qemu_cortex_a57();
    /// let mut pmu = Pmu::new(&cpu)?;
    /// let mut mux = Multiplexer::<_, 4, 2>::new(&mut pmu);
    /// // instructions:u, at EL1: P (not EL1) set.
    /// mux.add_group_filtered(&[(Event::INST_RETIRED, EventFilter::P)], GroupKind::Flexible)?;
    /// # Ok::<(), pmprobe::pmu::MuxError>(())
    /// ```
    pub fn add_group_filtered(
        &mut self,
        events: &[(Event, EventFilter)],
        kind: GroupKind,
    ) -> Result<GroupId, MuxError> {
        let mut plain: heapless::Vec<Event, EVENTS> = heapless::Vec::new();
        for &(event, _) in events {
            plain
                .push(event)
                .map_err(|_| MuxError::TooManyEvents { capacity: EVENTS })?;
        }
        self.add_group_filtered_by(&plain, |i| events.get(i).map(|&(_, f)| f), kind)
    }
}
