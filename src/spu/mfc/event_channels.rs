//! The event side of the [`Mfc`]'s channels: the decrementer (`SPU_WrDec`), the event
//! facility's writes (`SPU_WrEventMask`, `SPU_WrEventAck`), and the events that come from
//! outside the SPU: signal notification (`SPU_RdSigNotify1/2`, whose registers live in main
//! memory, where the host and other SPUs write them) and a lost reservation.

use super::controller::Mfc;
use super::events::{EVENT_DECREMENTER, EVENT_RESERVATION_LOST, EVENT_SIGNAL_1, EVENT_SIGNAL_2};
use crate::spu::main_memory::{MemoryView, SignalRegister};

impl Mfc {
    /// `SPU_WrDec` at `now`.
    pub fn write_decrementer(&mut self, value: u32, now: u64) {
        self.decrementer.write(value, now);
        self.underflows_seen_to = now;
        self.attention = true;
    }

    /// `SPU_WrEventAck`: clears pending events; acknowledging `Tm` while it is masked stops
    /// the decrementer (IBM's SPU timer library stops it so).
    pub fn acknowledge_events(&mut self, bits: u32, now: u64) {
        self.raise_underflows(now);
        if bits & EVENT_DECREMENTER != 0 && self.events.mask() & EVENT_DECREMENTER == 0 {
            self.decrementer.stop(now);
        }
        self.events.acknowledge(bits);
        self.attention = true;
    }

    /// `SPU_WrEventMask` at `now`.
    pub fn write_event_mask(&mut self, mask: u32, now: u64) {
        self.raise_underflows(now);
        self.events.write_mask(mask);
        self.attention = true;
    }

    /// Raises `Tm` if the decrementer underflowed since last looked.
    pub(super) fn raise_underflows(&mut self, now: u64) {
        if let Some(at) = self.decrementer.next_underflow(self.underflows_seen_to)
            && at <= now
        {
            self.events.raise(EVENT_DECREMENTER);
        }
        self.underflows_seen_to = self.underflows_seen_to.max(now);
    }

    /// Updates the events that come from outside the SPU (a lost reservation, written signal
    /// registers) and the decrementer, as of `now`.
    pub fn refresh_events(&mut self, spu: u8, now: u64) {
        self.raise_underflows(now);
        let memory = self.memory;
        memory
            .memory()
            .with_view(&mut |view| self.poll_memory(spu, view));
    }

    pub(super) fn poll_memory(&mut self, spu: u8, view: &mut MemoryView<'_>) {
        if view.take_reservation_lost(spu) {
            self.events.raise(EVENT_RESERVATION_LOST);
        }
        for (index, register, event) in [
            (0, SignalRegister::One, EVENT_SIGNAL_1),
            (1, SignalRegister::Two, EVENT_SIGNAL_2),
        ] {
            let pending = view.signal_pending(spu, register);
            if let Some(seen) = self.signals_seen.get_mut(index) {
                if pending && !*seen {
                    self.events.raise(event);
                }
                *seen = pending;
            }
        }
    }

    /// `SPU_RdSigNotify1/2` for SPU `spu`: the value (which resets), or `None` (the read
    /// waits) while the register was not written.
    pub fn read_signal(&mut self, spu: u8, register: SignalRegister) -> Option<u32> {
        let mut value = None;
        self.memory
            .memory()
            .with_view(&mut |view| value = view.take_signal(spu, register));
        if value.is_some()
            && let Some(seen) = self.signals_seen.get_mut(match register {
                SignalRegister::One => 0,
                SignalRegister::Two => 1,
            })
        {
            *seen = false;
        }
        value
    }

    /// The `SPU_RdSigNotify1/2` count.
    pub fn signal_pending(&self, spu: u8, register: SignalRegister) -> bool {
        let mut pending = false;
        self.memory
            .memory()
            .with_view(&mut |view| pending = view.signal_pending(spu, register));
        pending
    }
}
