//! The mailboxes: fixed-capacity FIFOs of 32-bit entries between an SPU and the host.

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
}
