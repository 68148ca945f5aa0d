//! The SPU event facility: `SPU_RdEventStat`, `SPU_WrEventMask`, `SPU_WrEventAck`,
//! `SPU_RdEventMask`.
//!
//! Every event sets its bit in a pending register whatever the mask; `SPU_RdEventStat` returns
//! the pending events the mask enables. Its channel count (0 or 1) becomes 1 when an enabled
//! event occurs, when a mask write enables one already pending, or when an acknowledgement
//! leaves enabled ones pending; a read sets it to 0, and a read with count 0 waits. An
//! acknowledgement clears pending bits but does not lower the count (a Cell measured so; IBM's
//! interrupt handler calls the result a phantom event). With interrupts enabled, a count of 1
//! interrupts the SPU. `docs/spu-mfc.md` gives the sources.

/// `Ms`: a multisource synchronization request completed.
pub const EVENT_MULTISOURCE_SYNC: u32 = 0x1000;
/// `A`: privileged attention (no privileged side is modelled: never raised).
pub const EVENT_PRIVILEGED_ATTENTION: u32 = 0x0800;
/// `Lr`: the lock-line reservation was lost.
pub const EVENT_RESERVATION_LOST: u32 = 0x0400;
/// `S1`: signal-notification register 1 was written.
pub const EVENT_SIGNAL_1: u32 = 0x0200;
/// `S2`: signal-notification register 2 was written.
pub const EVENT_SIGNAL_2: u32 = 0x0100;
/// `Le`: the outbound mailbox has room again.
pub const EVENT_OUT_MBOX_AVAILABLE: u32 = 0x0080;
/// `Me`: the outbound interrupt mailbox has room again.
pub const EVENT_OUT_INTR_MBOX_AVAILABLE: u32 = 0x0040;
/// `Tm`: the decrementer passed from 0 to -1.
pub const EVENT_DECREMENTER: u32 = 0x0020;
/// `Mb`: the inbound mailbox received data.
pub const EVENT_IN_MBOX: u32 = 0x0010;
/// `Qv`: the MFC command queue has room again.
pub const EVENT_QUEUE_VACANCY: u32 = 0x0008;
/// `Sn`: a DMA list stalled at an element with stall-and-notify.
pub const EVENT_LIST_STALL: u32 = 0x0002;
/// `Tg`: a tag-group status update is available.
pub const EVENT_TAG_GROUP: u32 = 0x0001;
/// Every defined event bit.
pub const EVENT_ALL: u32 = 0x1FFB;

/// The event registers of one SPU. All-zero bits is the reset state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events {
    pending: u32,
    mask: u32,
    count: bool,
}

impl Events {
    /// Nothing pending, everything masked.
    pub const fn new() -> Self {
        Events {
            pending: 0,
            mask: 0,
            count: false,
        }
    }

    /// Events `bits` occurred.
    pub fn raise(&mut self, bits: u32) {
        let bits = bits & EVENT_ALL;
        self.pending |= bits;
        if bits & self.mask != 0 {
            self.count = true;
        }
    }

    /// `SPU_RdEventStat`: the enabled pending events, or `None` (the read waits) while the
    /// count is 0.
    pub fn read_status(&mut self) -> Option<u32> {
        if !self.count {
            return None;
        }
        self.count = false;
        Some(self.pending & self.mask)
    }

    /// `SPU_WrEventMask`.
    pub fn write_mask(&mut self, mask: u32) {
        self.mask = mask & EVENT_ALL;
        if self.pending & self.mask != 0 {
            self.count = true;
        }
    }

    /// `SPU_WrEventAck`: clears the pending bits written as 1.
    pub fn acknowledge(&mut self, bits: u32) {
        self.pending &= !bits;
    }

    /// `SPU_RdEventMask`.
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// Every pending event, enabled or not.
    pub fn pending(&self) -> u32 {
        self.pending
    }

    /// The `SPU_RdEventStat` channel count: an interrupt is due when it is 1 and interrupts
    /// are enabled.
    pub fn count(&self) -> bool {
        self.count
    }
}
