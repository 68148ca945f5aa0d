//! What the run loop does after a cycle besides simulating the next one.
//!
//! Both requests come from stage o, and only from channel instructions: one that completed
//! and left the channels needing a service (a command queued, an event or interrupt now
//! due), or one that waits for the MFC or an event. Keeping both in one value gives the run
//! loop a single test per cycle on the common path, where neither comes.

/// The run loop's next step after the current cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::spu::pipeline) enum FollowUp {
    /// Simulate the next cycle.
    Nothing,
    /// A channel instruction is held at stage o until the next channel event: run the wait
    /// in bulk.
    WaitOnChannel,
    /// End the budget so that the channels are serviced before the next cycle.
    Service,
}

impl FollowUp {
    /// Asks for `next`. A service wins over a wait: the service ends the budget, and a wait
    /// that outlives it is found again when stage o retries the instruction.
    pub(in crate::spu::pipeline) fn request(&mut self, next: FollowUp) {
        if *self != FollowUp::Service {
            *self = next;
        }
    }
}
