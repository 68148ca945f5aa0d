//! What the run loop does after a cycle besides simulating the next one.
//!
//! Three things can come out of a cycle's stage o: a channel instruction that completed
//! and left the channels needing a service (a command queued, an event or interrupt now
//! due), one that waits for the MFC or an event, and a `prof_cp` line written to the
//! caller's output. They are bits of one byte, so that the run loop tests once per cycle on
//! the common path, where none comes.

/// The run loop's next steps after the current cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::spu::pipeline) struct FollowUp(u8);

impl FollowUp {
    /// End the budget so that the channels are serviced before the next cycle.
    const SERVICE: u8 = 1;
    /// A channel instruction is held at stage o until the next channel event: run the wait
    /// in bulk.
    const WAIT_ON_CHANNEL: u8 = 2;
    /// A `prof_cp` line was written: a run that nothing listens to returns after it (see
    /// `Pipeline::run_cycles`).
    const OUTPUT: u8 = 4;

    /// Simulate the next cycle.
    pub(in crate::spu::pipeline) const NOTHING: FollowUp = FollowUp(0);

    /// Asks for a service of the channels.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn request_service(&mut self) {
        self.0 |= Self::SERVICE;
    }

    /// Asks for a bulk wait on the channel instruction held at stage o.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn request_wait_on_channel(&mut self) {
        self.0 |= Self::WAIT_ON_CHANNEL;
    }

    /// Notes a `prof_cp` line written to the caller's output.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn note_output(&mut self) {
        self.0 |= Self::OUTPUT;
    }

    /// Nothing but the next cycle.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn is_nothing(self) -> bool {
        self.0 == 0
    }

    /// A service was asked for. It wins over a wait: the service ends the budget, and a
    /// wait that outlives it is found again when stage o retries the instruction.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn service(self) -> bool {
        self.0 & Self::SERVICE != 0
    }

    /// A bulk wait was asked for.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn wait_on_channel(self) -> bool {
        self.0 & Self::WAIT_ON_CHANNEL != 0
    }

    /// A `prof_cp` line was written.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn output(self) -> bool {
        self.0 & Self::OUTPUT != 0
    }

    /// The output note alone (the channel requests dropped).
    #[inline(always)]
    pub(in crate::spu::pipeline) fn output_only(self) -> FollowUp {
        FollowUp(self.0 & Self::OUTPUT)
    }
}

#[cfg(test)]
mod tests {
    use super::FollowUp;

    #[test]
    fn each_request_is_kept_until_taken_and_the_output_note_survives_dropping_the_others() {
        let mut follow_up = FollowUp::NOTHING;
        assert!(follow_up.is_nothing());
        follow_up.request_wait_on_channel();
        follow_up.note_output();
        assert!(!follow_up.is_nothing());
        assert!(follow_up.wait_on_channel() && follow_up.output() && !follow_up.service());
        follow_up.request_service();
        assert!(follow_up.service() && follow_up.wait_on_channel());
        let kept = follow_up.output_only();
        assert!(kept.output() && !kept.service() && !kept.wait_on_channel());
        assert!(core::mem::take(&mut follow_up).service());
        assert!(follow_up.is_nothing());
    }
}
