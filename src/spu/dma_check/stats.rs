//! [`DmaCheckStats`]: what the checker saw, found and could not keep.

/// Counts of a [`DmaRaceChecker`](super::DmaRaceChecker): its work, its findings, and what its
/// fixed-capacity tables could not keep (each a place where a race may have gone unseen).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaCheckStats {
    /// DMA commands checked (every accepted `MFC_Cmd`, the barrier commands included).
    pub commands: u64,
    /// Races found, each one a new access PC or command meeting a pending transfer.
    pub races: u64,
    /// Races handed to the `DmaRace` probe point's listeners.
    pub reported: u64,
    /// Races not handed over: more in one notification than its buffer holds, or an access
    /// PC racing with a command that already reported four other PCs.
    pub unreported: u64,
    /// Accesses at a PC already reported racing with the same command (a loop repeats them).
    pub repeated: u64,
    /// Pending commands forgotten because an SPU had too many
    /// ([`PENDING_COMMANDS`](super::PENDING_COMMANDS)).
    pub commands_forgotten: u64,
    /// List elements not checked because the pending transfers filled their pool
    /// ([`PENDING_TRANSFERS`](super::PENDING_TRANSFERS)).
    pub transfers_unchecked: u64,
    /// Main-memory transfers forgotten while another SPU could still race with them
    /// ([`HISTORY_TRANSFERS`](super::HISTORY_TRANSFERS)).
    pub history_forgotten: u64,
    /// Lock lines whose clocks were merged into one (an acquire of any line then learns
    /// them all: it can hide a race, never invent one).
    pub lines_merged: u64,
    /// Notifications dropped because a race listener called back into the checker.
    pub reentrant: u64,
}

impl DmaCheckStats {
    /// All zero.
    pub const fn new() -> Self {
        DmaCheckStats {
            commands: 0,
            races: 0,
            reported: 0,
            unreported: 0,
            repeated: 0,
            commands_forgotten: 0,
            transfers_unchecked: 0,
            history_forgotten: 0,
            lines_merged: 0,
            reentrant: 0,
        }
    }

    /// Whether something was forgotten or dropped, so that some race may have gone unseen.
    pub fn incomplete(&self) -> bool {
        self.commands_forgotten
            + self.transfers_unchecked
            + self.history_forgotten
            + self.lines_merged
            + self.reentrant
            > 0
    }
}
