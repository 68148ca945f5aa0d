//! A minimal SPU channel interface: the mailboxes and SRR0.
//!
//! Modelled channels (numbers from the Cell BE architecture):
//!
//! | ch | name | direction | capacity | `rchcnt` |
//! |----|------|-----------|----------|----------|
//! | 14 | `SPU_WrSRR0` | write | 1 | 1 |
//! | 15 | `SPU_RdSRR0` | read | 1 | 1 |
//! | 28 | `SPU_WrOutMbox` | write | 1 entry | free entries |
//! | 29 | `SPU_RdInMbox` | read | 4 entries | queued entries |
//! | 30 | `SPU_WrOutIntrMbox` | write | 1 entry | free entries |
//!
//! Reading an empty inbound mailbox or writing a full outbound one *blocks* on hardware: here
//! the access reports [`ChannelAccess::WouldBlock`] and the SPU does not advance, so the host
//! can service the mailbox and resume. Any other channel, or the wrong direction, is a fault.

/// `SPU_WrSRR0`: writes the interrupt return address used by `iret`.
pub const SPU_WR_SRR0: u8 = 14;
/// `SPU_RdSRR0`: reads the interrupt return address.
pub const SPU_RD_SRR0: u8 = 15;
/// `SPU_WrOutMbox`: SPU → host mailbox.
pub const SPU_WR_OUT_MBOX: u8 = 28;
/// `SPU_RdInMbox`: host → SPU mailbox.
pub const SPU_RD_IN_MBOX: u8 = 29;
/// `SPU_WrOutIntrMbox`: SPU → host interrupting mailbox.
pub const SPU_WR_OUT_INTR_MBOX: u8 = 30;

/// Inbound mailbox depth on Cell BE.
pub const INBOUND_MAILBOX_CAPACITY: usize = 4;
/// Outbound mailbox depth on Cell BE.
pub const OUTBOUND_MAILBOX_CAPACITY: usize = 1;

/// The mailbox is full (host push or SPU write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MailboxFull;

impl core::fmt::Display for MailboxFull {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("mailbox is full")
    }
}

impl core::error::Error for MailboxFull {}

/// A fixed-capacity FIFO of 32-bit mailbox entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mailbox<const N: usize> {
    entries: [u32; N],
    head: usize,
    len: usize,
}

impl<const N: usize> Default for Mailbox<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Mailbox<N> {
    /// An empty mailbox.
    pub const fn new() -> Self {
        Mailbox {
            entries: [0; N],
            head: 0,
            len: 0,
        }
    }

    /// Number of queued entries.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is queued.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Free entries.
    pub const fn free(&self) -> usize {
        N - self.len
    }

    /// Appends an entry.
    pub fn push(&mut self, value: u32) -> Result<(), MailboxFull> {
        if self.len >= N {
            return Err(MailboxFull);
        }
        let tail = (self.head + self.len) % N;
        if let Some(slot) = self.entries.get_mut(tail) {
            *slot = value;
            self.len += 1;
            Ok(())
        } else {
            Err(MailboxFull)
        }
    }

    /// Removes the oldest entry.
    pub fn pop(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let value = self.entries.get(self.head).copied()?;
        self.head = (self.head + 1) % N;
        self.len -= 1;
        Some(value)
    }

    /// Empties the mailbox.
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }
}

/// Result of a channel read or write by the SPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelAccess {
    /// The access completed (for reads, with this value; writes report 0).
    Done(u32),
    /// The channel has no data (read) or no room (write); the instruction must be retried.
    WouldBlock,
    /// The channel is not modelled or does not support this direction.
    Unsupported,
}

/// The SPU side of the channel interface.
///
/// Modelled channels (numbers from the Cell BE architecture):
///
/// | ch | name | direction | capacity | `rchcnt` |
/// |----|------|-----------|----------|----------|
/// | 14 | `SPU_WrSRR0` | write | 1 | 1 |
/// | 15 | `SPU_RdSRR0` | read | 1 | 1 |
/// | 28 | `SPU_WrOutMbox` | write | 1 entry | free entries |
/// | 29 | `SPU_RdInMbox` | read | 4 entries | queued entries |
/// | 30 | `SPU_WrOutIntrMbox` | write | 1 entry | free entries |
///
/// Reading an empty inbound mailbox or writing a full outbound one *blocks* on hardware: here
/// the access reports [`ChannelAccess::WouldBlock`] and the SPU does not advance, so the host
/// can service the mailbox and resume. Any other channel, or the wrong direction, is a fault.
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
}

impl Default for Channels {
    fn default() -> Self {
        Self::new()
    }
}

impl Channels {
    /// Empty mailboxes, SRR0 = 0.
    pub const fn new() -> Self {
        Channels {
            inbound: Mailbox::new(),
            outbound: Mailbox::new(),
            outbound_interrupt: Mailbox::new(),
            srr0: 0,
        }
    }

    /// `rdch`.
    pub fn read(&mut self, channel: u8) -> ChannelAccess {
        match channel {
            SPU_RD_IN_MBOX => match self.inbound.pop() {
                Some(value) => ChannelAccess::Done(value),
                None => ChannelAccess::WouldBlock,
            },
            SPU_RD_SRR0 => ChannelAccess::Done(self.srr0),
            _ => ChannelAccess::Unsupported,
        }
    }

    /// `wrch`.
    pub fn write(&mut self, channel: u8, value: u32) -> ChannelAccess {
        let mailbox_result = match channel {
            SPU_WR_OUT_MBOX => self.outbound.push(value),
            SPU_WR_OUT_INTR_MBOX => self.outbound_interrupt.push(value),
            SPU_WR_SRR0 => {
                self.srr0 = value;
                Ok(())
            }
            _ => return ChannelAccess::Unsupported,
        };
        match mailbox_result {
            Ok(()) => ChannelAccess::Done(0),
            Err(MailboxFull) => ChannelAccess::WouldBlock,
        }
    }

    /// `rchcnt`: `None` for a channel the model lacks.
    pub fn count(&self, channel: u8) -> Option<u32> {
        match channel {
            SPU_RD_IN_MBOX => Some(self.inbound.len() as u32),
            SPU_WR_OUT_MBOX => Some(self.outbound.free() as u32),
            SPU_WR_OUT_INTR_MBOX => Some(self.outbound_interrupt.free() as u32),
            SPU_WR_SRR0 | SPU_RD_SRR0 => Some(1),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mailbox_is_a_bounded_fifo() {
        let mut mailbox = Mailbox::<2>::new();
        assert_eq!(mailbox.push(1), Ok(()));
        assert_eq!(mailbox.push(2), Ok(()));
        assert_eq!(mailbox.push(3), Err(MailboxFull));
        assert_eq!(mailbox.pop(), Some(1));
        assert_eq!(mailbox.push(3), Ok(()));
        assert_eq!(mailbox.pop(), Some(2));
        assert_eq!(mailbox.pop(), Some(3));
        assert_eq!(mailbox.pop(), None);
    }

    #[test]
    fn channel_counts_and_blocking() {
        let mut channels = Channels::new();
        assert_eq!(channels.count(SPU_RD_IN_MBOX), Some(0));
        assert_eq!(channels.read(SPU_RD_IN_MBOX), ChannelAccess::WouldBlock);
        assert_eq!(channels.count(SPU_WR_OUT_MBOX), Some(1));
        assert_eq!(channels.write(SPU_WR_OUT_MBOX, 7), ChannelAccess::Done(0));
        assert_eq!(channels.count(SPU_WR_OUT_MBOX), Some(0));
        assert_eq!(
            channels.write(SPU_WR_OUT_MBOX, 8),
            ChannelAccess::WouldBlock
        );
        assert_eq!(channels.read(SPU_WR_OUT_MBOX), ChannelAccess::Unsupported);
        assert_eq!(channels.count(3), None);
    }
}
