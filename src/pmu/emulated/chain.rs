//! The CHAIN event (0x1E): an odd event counter counting the overflows of the even one below it.
//!
//! The architecture generates CHAIN for counter 2n+1 only, and only from an unsigned overflow of
//! counter 2n at 32 bits (the Arm ARM pseudocode `AArch64.IncrementEventCounter`): never with
//! PMCR.LP = 1, never from the cycle or instruction counter, never for an even counter, never
//! for a highest counter without a partner. The odd counter counts that event like any other
//! (`CountPMUEvents`): it must be enabled, allowed by its own EL filter at the moment of the
//! overflow, and not frozen. No other producer exists, so [`EmulatedPmu::count`] of CHAIN
//! counts nothing. docs/pmu.md lists the rules with their identifiers.
#![forbid(unsafe_code)]

use super::overflow::advance;
use super::state::EmulatedPmu;
use crate::pmu::event::Event;
use crate::pmu::regs::COUNTER_32_MAX;

impl EmulatedPmu {
    /// Event counter `counter` just wrapped past 2^32 `wraps` times (PMCR.LP = 0): each wrap is
    /// one CHAIN event for counter `counter + 1` when `counter` is even.
    ///
    /// With PMCR.FZO = 1 the overflow that sets the flag also freezes the odd counter, so the
    /// CHAIN event it generates is not counted: the order the pseudocode's `AArch64.PMUCycle`
    /// gives, one of the two outcomes rule ITLHSZ leaves CONSTRAINED UNPREDICTABLE.
    pub(super) fn chain_wraps(&self, counter: u8, wraps: u64) {
        let chain = Event::CHAIN.number();
        if !counter.is_multiple_of(2) || wraps == 0 || !self.implements(chain) || self.frozen() {
            return;
        }
        let odd = counter + 1;
        if !self.implemented_counter(odd) || !self.counts_event(odd, chain) {
            return;
        }
        // The odd counter's own overflow is at 32 bits too: CHAIN exists only with LP = 0.
        let (value, overflowed) = advance(self.evcntr_of(odd), wraps, false);
        let value = if self.config.long_event_counters {
            value
        } else {
            value & COUNTER_32_MAX
        };
        self.set_evcntr(odd, value);
        if overflowed {
            self.ovs.set(self.ovs.get() | 1 << odd);
        }
    }
}

/// How many times adding `n` to a counter holding `value` wraps its bits \[31:0\].
pub(super) fn wraps_32(value: u64, n: u64) -> u64 {
    ((u128::from(value & COUNTER_32_MAX) + u128::from(n)) >> 32) as u64
}
