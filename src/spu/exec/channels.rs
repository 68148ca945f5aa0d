//! The SPU channel interface: every channel of the Cell Broadband Engine Architecture, routed
//! to the mailboxes, SRR0 and the [`Mfc`] (DMA, tag groups, atomics, events, decrementer,
//! signals).
//!
//! | ch | name | dir | waits while | `rchcnt` |
//! |----|------|-----|-------------|----------|
//! | 0 | `SPU_RdEventStat` | R | no enabled event is pending | 1 when one is |
//! | 1 | `SPU_WrEventMask` | W | | 1 |
//! | 2 | `SPU_WrEventAck` | W | | 1 |
//! | 3, 4 | `SPU_RdSigNotify1`, `2` | R | not written since the last read | 1 when written |
//! | 7 | `SPU_WrDec` | W | | 1 |
//! | 8 | `SPU_RdDec` | R | | 1 |
//! | 9 | `MFC_WrMSSyncReq` | W | an earlier request is outstanding | 1 when none is |
//! | 11 | `SPU_RdEventMask` | R | | 1 |
//! | 12 | `MFC_RdTagMask` | R | | 1 |
//! | 13 | `SPU_RdMachStat` | R | | 1 |
//! | 14, 15 | `SPU_WrSRR0`, `SPU_RdSRR0` | W, R | | 1 |
//! | 16..=20 | `MFC_LSA`, `MFC_EAH`, `MFC_EAL`, `MFC_Size`, `MFC_TagID` | W | | 1 |
//! | 21 | `MFC_Cmd` | W | the 16-entry queue is full | free entries |
//! | 22 | `MFC_WrTagMask` | W | | 1 |
//! | 23 | `MFC_WrTagUpdate` | W | | 1 |
//! | 24 | `MFC_RdTagStat` | R | no status is available | 1 when one is |
//! | 25 | `MFC_RdListStallStat` | R | no list stalled since the last read | 1 when one did |
//! | 26 | `MFC_WrListStallAck` | W | | 1 |
//! | 27 | `MFC_RdAtomicStat` | R | no atomic command completed since the last read | 1 when one did |
//! | 28 | `SPU_WrOutMbox` | W | the entry is full | free entries |
//! | 29 | `SPU_RdInMbox` | R | the 4 entries are empty | queued entries |
//! | 30 | `SPU_WrOutIntrMbox` | W | the entry is full | free entries |
//!
//! An access that waits reports [`ChannelAccess::WouldBlock`] and the SPU does not advance: the
//! instruction is tried again, after the host serviced a mailbox or a signal, or after the MFC
//! got further. Reserved channels (5, 6, 10, 31 and above) and the wrong direction stop the SPU
//! with a fault naming the channel. (The CBE is documented to ignore reserved channels; the
//! model stops so that the program's mistake shows.)

use super::mailbox::{INBOUND_MAILBOX_CAPACITY, Mailbox, MailboxFull, OUTBOUND_MAILBOX_CAPACITY};
use crate::spu::main_memory::SignalRegister;
use crate::spu::mfc::{
    CommandWrite, DmaErrorKind, EVENT_IN_MBOX, EVENT_OUT_INTR_MBOX_AVAILABLE,
    EVENT_OUT_MBOX_AVAILABLE, Mfc,
};

/// `SPU_RdEventStat`.
pub const SPU_RD_EVENT_STAT: u8 = 0;
/// `SPU_WrEventMask`.
pub const SPU_WR_EVENT_MASK: u8 = 1;
/// `SPU_WrEventAck`.
pub const SPU_WR_EVENT_ACK: u8 = 2;
/// `SPU_RdSigNotify1`.
pub const SPU_RD_SIG_NOTIFY_1: u8 = 3;
/// `SPU_RdSigNotify2`.
pub const SPU_RD_SIG_NOTIFY_2: u8 = 4;
/// `SPU_WrDec`.
pub const SPU_WR_DEC: u8 = 7;
/// `SPU_RdDec`.
pub const SPU_RD_DEC: u8 = 8;
/// `MFC_WrMSSyncReq`.
pub const MFC_WR_MS_SYNC_REQ: u8 = 9;
/// `SPU_RdEventMask`.
pub const SPU_RD_EVENT_MASK: u8 = 11;
/// `MFC_RdTagMask`.
pub const MFC_RD_TAG_MASK: u8 = 12;
/// `SPU_RdMachStat`.
pub const SPU_RD_MACH_STAT: u8 = 13;
/// `SPU_WrSRR0`: writes the interrupt return address used by `iret`.
pub const SPU_WR_SRR0: u8 = 14;
/// `SPU_RdSRR0`: reads the interrupt return address.
pub const SPU_RD_SRR0: u8 = 15;
/// `MFC_LSA`.
pub const MFC_LSA: u8 = 16;
/// `MFC_EAH`.
pub const MFC_EAH: u8 = 17;
/// `MFC_EAL`.
pub const MFC_EAL: u8 = 18;
/// `MFC_Size`.
pub const MFC_SIZE: u8 = 19;
/// `MFC_TagID`.
pub const MFC_TAG_ID: u8 = 20;
/// `MFC_Cmd`.
pub const MFC_CMD: u8 = 21;
/// `MFC_WrTagMask`.
pub const MFC_WR_TAG_MASK: u8 = 22;
/// `MFC_WrTagUpdate`.
pub const MFC_WR_TAG_UPDATE: u8 = 23;
/// `MFC_RdTagStat`.
pub const MFC_RD_TAG_STAT: u8 = 24;
/// `MFC_RdListStallStat`.
pub const MFC_RD_LIST_STALL_STAT: u8 = 25;
/// `MFC_WrListStallAck`.
pub const MFC_WR_LIST_STALL_ACK: u8 = 26;
/// `MFC_RdAtomicStat`.
pub const MFC_RD_ATOMIC_STAT: u8 = 27;
/// `SPU_WrOutMbox`: SPU → host mailbox.
pub const SPU_WR_OUT_MBOX: u8 = 28;
/// `SPU_RdInMbox`: host → SPU mailbox.
pub const SPU_RD_IN_MBOX: u8 = 29;
/// `SPU_WrOutIntrMbox`: SPU → host interrupting mailbox.
pub const SPU_WR_OUT_INTR_MBOX: u8 = 30;

/// `SPU_RdMachStat`: interrupts are enabled.
pub const MACH_STAT_INTERRUPTS_ENABLED: u32 = 0x1;
/// SRR0 keeps a word address in the local store (a Cell reads back 0x3FFFC after writing all
/// ones).
pub const SRR0_MASK: u32 = 0x3_FFFC;

/// Whether `rdch` (`write` false) or `wrch` (`write` true) of `channel` can wait: the
/// blocking channels of the table above.
pub fn channel_can_wait(channel: u8, write: bool) -> bool {
    if write {
        matches!(
            channel,
            MFC_WR_MS_SYNC_REQ | MFC_CMD | SPU_WR_OUT_MBOX | SPU_WR_OUT_INTR_MBOX
        )
    } else {
        matches!(
            channel,
            SPU_RD_EVENT_STAT
                | SPU_RD_SIG_NOTIFY_1
                | SPU_RD_SIG_NOTIFY_2
                | MFC_RD_TAG_STAT
                | MFC_RD_LIST_STALL_STAT
                | MFC_RD_ATOMIC_STAT
                | SPU_RD_IN_MBOX
        )
    }
}

/// The name of channel `channel` as GNU `as` and `spu_intrinsics.h` spell it.
pub fn channel_name(channel: u8) -> Option<&'static str> {
    Some(match channel {
        SPU_RD_EVENT_STAT => "SPU_RdEventStat",
        SPU_WR_EVENT_MASK => "SPU_WrEventMask",
        SPU_WR_EVENT_ACK => "SPU_WrEventAck",
        SPU_RD_SIG_NOTIFY_1 => "SPU_RdSigNotify1",
        SPU_RD_SIG_NOTIFY_2 => "SPU_RdSigNotify2",
        SPU_WR_DEC => "SPU_WrDec",
        SPU_RD_DEC => "SPU_RdDec",
        MFC_WR_MS_SYNC_REQ => "MFC_WrMSSyncReq",
        SPU_RD_EVENT_MASK => "SPU_RdEventMask",
        MFC_RD_TAG_MASK => "MFC_RdTagMask",
        SPU_RD_MACH_STAT => "SPU_RdMachStat",
        SPU_WR_SRR0 => "SPU_WrSRR0",
        SPU_RD_SRR0 => "SPU_RdSRR0",
        MFC_LSA => "MFC_LSA",
        MFC_EAH => "MFC_EAH",
        MFC_EAL => "MFC_EAL",
        MFC_SIZE => "MFC_Size",
        MFC_TAG_ID => "MFC_TagID",
        MFC_CMD => "MFC_Cmd",
        MFC_WR_TAG_MASK => "MFC_WrTagMask",
        MFC_WR_TAG_UPDATE => "MFC_WrTagUpdate",
        MFC_RD_TAG_STAT => "MFC_RdTagStat",
        MFC_RD_LIST_STALL_STAT => "MFC_RdListStallStat",
        MFC_WR_LIST_STALL_ACK => "MFC_WrListStallAck",
        MFC_RD_ATOMIC_STAT => "MFC_RdAtomicStat",
        SPU_WR_OUT_MBOX => "SPU_WrOutMbox",
        SPU_RD_IN_MBOX => "SPU_RdInMbox",
        SPU_WR_OUT_INTR_MBOX => "SPU_WrOutIntrMbox",
        _ => return None,
    })
}

/// Result of a channel read or write by the SPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelAccess {
    /// The access completed (for reads, with this value; writes report 0).
    Done(u32),
    /// The channel has no data (read) or no room (write); the instruction must be retried.
    WouldBlock,
    /// The channel does not exist or does not support this direction.
    Unsupported,
    /// The MFC refused the command written to `MFC_Cmd` ([`Mfc::fault`] has its details).
    Refused(DmaErrorKind),
}

/// What a channel access needs to know about the SPU making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelContext {
    /// The current cycle (the decrementer's clock; the MFC's in pipeline mode).
    pub now: u64,
    /// The SPU's number (its signal registers and reservation in main memory).
    pub spu: u8,
    /// Whether interrupts are enabled (`SPU_RdMachStat`).
    pub interrupts_enabled: bool,
}

/// The channel states whose transitions raise the mailbox events, as last looked at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MailboxSeen {
    inbound_has_data: bool,
    outbound_full: bool,
    outbound_interrupt_full: bool,
}

/// The SPU side of the channel interface: the mailboxes, SRR0 and the [`Mfc`]. The table at
/// the top of `src/spu/exec/channels.rs` lists every channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Channels {
    /// `SPU_RdInMbox` (host → SPU).
    pub inbound: Mailbox<INBOUND_MAILBOX_CAPACITY>,
    /// `SPU_WrOutMbox` (SPU → host).
    pub outbound: Mailbox<OUTBOUND_MAILBOX_CAPACITY>,
    /// `SPU_WrOutIntrMbox` (SPU → host, interrupting).
    pub outbound_interrupt: Mailbox<OUTBOUND_MAILBOX_CAPACITY>,
    /// SRR0, the interrupt return address (`iret` branches to it).
    pub srr0: u32,
    /// The MFC and the channels it serves.
    pub mfc: Mfc,
    seen: MailboxSeen,
}

impl Default for Channels {
    fn default() -> Self {
        Self::new()
    }
}

impl Channels {
    /// Empty mailboxes, SRR0 = 0, a reset MFC.
    pub const fn new() -> Self {
        Channels {
            inbound: Mailbox::new(),
            outbound: Mailbox::new(),
            outbound_interrupt: Mailbox::new(),
            srr0: 0,
            mfc: Mfc::new(),
            seen: MailboxSeen {
                inbound_has_data: false,
                outbound_full: false,
                outbound_interrupt_full: false,
            },
        }
    }

    /// Empty mailboxes, SRR0 = 0 and a reset MFC that keeps its configuration (memory,
    /// timing, timebase).
    pub fn reset(&mut self) {
        let mut mfc = self.mfc;
        mfc.reset();
        *self = Channels::new();
        self.mfc = mfc;
    }

    /// Raises the mailbox events whose channel counts went from 0 to non-zero since last
    /// looked (`Mb`: data arrived; `Le`, `Me`: the host emptied an outbound mailbox).
    pub fn refresh_mailbox_events(&mut self) {
        let now = MailboxSeen {
            inbound_has_data: !self.inbound.is_empty(),
            outbound_full: self.outbound.free() == 0,
            outbound_interrupt_full: self.outbound_interrupt.free() == 0,
        };
        let events = self.mfc.events_mut();
        if now.inbound_has_data && !self.seen.inbound_has_data {
            events.raise(EVENT_IN_MBOX);
        }
        if !now.outbound_full && self.seen.outbound_full {
            events.raise(EVENT_OUT_MBOX_AVAILABLE);
        }
        if !now.outbound_interrupt_full && self.seen.outbound_interrupt_full {
            events.raise(EVENT_OUT_INTR_MBOX_AVAILABLE);
        }
        self.seen = now;
    }

    /// Every event source, as of `context.now`.
    fn refresh_events(&mut self, context: ChannelContext) {
        self.refresh_mailbox_events();
        self.mfc.refresh_events(context.spu, context.now);
    }

    /// `rdch`.
    pub fn read(&mut self, channel: u8, context: ChannelContext) -> ChannelAccess {
        let value = match channel {
            SPU_RD_EVENT_STAT => {
                self.refresh_events(context);
                self.mfc.events_mut().read_status()
            }
            SPU_RD_SIG_NOTIFY_1 => self.mfc.read_signal(context.spu, SignalRegister::One),
            SPU_RD_SIG_NOTIFY_2 => self.mfc.read_signal(context.spu, SignalRegister::Two),
            SPU_RD_DEC => Some(self.mfc.decrementer().read(context.now)),
            SPU_RD_EVENT_MASK => Some(self.mfc.events().mask()),
            MFC_RD_TAG_MASK => Some(self.mfc.tag_mask()),
            SPU_RD_MACH_STAT => Some(if context.interrupts_enabled {
                MACH_STAT_INTERRUPTS_ENABLED
            } else {
                0
            }),
            SPU_RD_SRR0 => Some(self.srr0),
            MFC_RD_TAG_STAT => self.mfc.read_tag_status(),
            MFC_RD_LIST_STALL_STAT => self.mfc.read_list_stall(),
            MFC_RD_ATOMIC_STAT => self.mfc.read_atomic_status(),
            SPU_RD_IN_MBOX => self.inbound.pop(),
            _ => return ChannelAccess::Unsupported,
        };
        match value {
            Some(value) => ChannelAccess::Done(value),
            None => ChannelAccess::WouldBlock,
        }
    }

    /// `wrch`.
    pub fn write(&mut self, channel: u8, value: u32, context: ChannelContext) -> ChannelAccess {
        let now = context.now;
        let mailbox = |result: Result<(), MailboxFull>| match result {
            Ok(()) => ChannelAccess::Done(0),
            Err(MailboxFull) => ChannelAccess::WouldBlock,
        };
        match channel {
            SPU_WR_EVENT_MASK => {
                self.refresh_events(context);
                self.mfc.write_event_mask(value, now);
            }
            SPU_WR_EVENT_ACK => {
                self.refresh_events(context);
                self.mfc.acknowledge_events(value, now);
            }
            SPU_WR_DEC => self.mfc.write_decrementer(value, now),
            MFC_WR_MS_SYNC_REQ => {
                if !self.mfc.request_multisource_sync() {
                    return ChannelAccess::WouldBlock;
                }
            }
            SPU_WR_SRR0 => self.srr0 = value & SRR0_MASK,
            MFC_LSA => self.mfc.write_lsa(value),
            MFC_EAH => self.mfc.write_eah(value),
            MFC_EAL => self.mfc.write_eal(value),
            MFC_SIZE => self.mfc.write_size(value),
            MFC_TAG_ID => self.mfc.write_tag(value),
            MFC_CMD => match self.mfc.write_command(value, now) {
                CommandWrite::Accepted => {}
                CommandWrite::Blocked => return ChannelAccess::WouldBlock,
                CommandWrite::Refused(fault) => return ChannelAccess::Refused(fault.kind),
            },
            MFC_WR_TAG_MASK => self.mfc.write_tag_mask(value),
            MFC_WR_TAG_UPDATE => self.mfc.write_tag_update(value),
            MFC_WR_LIST_STALL_ACK => self.mfc.acknowledge_list_stall(value),
            SPU_WR_OUT_MBOX => return mailbox(self.outbound.push(value)),
            SPU_WR_OUT_INTR_MBOX => return mailbox(self.outbound_interrupt.push(value)),
            _ => return ChannelAccess::Unsupported,
        }
        ChannelAccess::Done(0)
    }

    /// `rchcnt`: `None` for a channel that does not exist.
    pub fn count(&mut self, channel: u8, context: ChannelContext) -> Option<u32> {
        let flag = |set: bool| u32::from(set);
        Some(match channel {
            SPU_RD_EVENT_STAT => {
                self.refresh_events(context);
                flag(self.mfc.events().count())
            }
            SPU_RD_SIG_NOTIFY_1 => flag(self.mfc.signal_pending(context.spu, SignalRegister::One)),
            SPU_RD_SIG_NOTIFY_2 => flag(self.mfc.signal_pending(context.spu, SignalRegister::Two)),
            MFC_WR_MS_SYNC_REQ => flag(self.mfc.multisource_sync_free()),
            MFC_CMD => self.mfc.queue_free(),
            MFC_RD_TAG_STAT => flag(self.mfc.tag_status_available()),
            MFC_RD_LIST_STALL_STAT => flag(self.mfc.list_stall_available()),
            MFC_RD_ATOMIC_STAT => flag(self.mfc.atomic_status_available()),
            SPU_WR_OUT_MBOX => self.outbound.free() as u32,
            SPU_RD_IN_MBOX => self.inbound.len() as u32,
            SPU_WR_OUT_INTR_MBOX => self.outbound_interrupt.free() as u32,
            c if channel_name(c).is_some() => 1,
            _ => return None,
        })
    }

    /// Pushes `value` into the inbound mailbox (the host's `spe_in_mbox_write`).
    pub fn write_inbound_mailbox(&mut self, value: u32) -> Result<(), MailboxFull> {
        self.inbound.push(value)
    }

    /// Pops the outbound mailbox (the host's `spe_out_mbox_read`).
    pub fn read_outbound_mailbox(&mut self) -> Option<u32> {
        self.outbound.pop()
    }

    /// Pops the outbound interrupt mailbox (`spe_out_intr_mbox_read`).
    pub fn read_outbound_interrupt_mailbox(&mut self) -> Option<u32> {
        self.outbound_interrupt.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTEXT: ChannelContext = ChannelContext {
        now: 0,
        spu: 0,
        interrupts_enabled: false,
    };

    #[test]
    fn channel_counts_and_blocking() {
        let mut channels = Channels::new();
        assert_eq!(channels.count(SPU_RD_IN_MBOX, CONTEXT), Some(0));
        assert_eq!(
            channels.read(SPU_RD_IN_MBOX, CONTEXT),
            ChannelAccess::WouldBlock
        );
        assert_eq!(channels.count(SPU_WR_OUT_MBOX, CONTEXT), Some(1));
        assert_eq!(
            channels.write(SPU_WR_OUT_MBOX, 7, CONTEXT),
            ChannelAccess::Done(0)
        );
        assert_eq!(channels.count(SPU_WR_OUT_MBOX, CONTEXT), Some(0));
        assert_eq!(
            channels.write(SPU_WR_OUT_MBOX, 8, CONTEXT),
            ChannelAccess::WouldBlock
        );
        assert_eq!(
            channels.read(SPU_WR_OUT_MBOX, CONTEXT),
            ChannelAccess::Unsupported
        );
        assert_eq!(channels.count(5, CONTEXT), None);
        assert_eq!(channels.count(MFC_CMD, CONTEXT), Some(16));
    }
}
