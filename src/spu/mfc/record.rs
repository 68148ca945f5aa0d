//! What the MFC reports: one [`DmaEvent`] per completed transfer (the DMA probe point's
//! payload) and the per-SPU [`DmaStats`].

use core::fmt;

use super::command::{Command, command_name};

/// A DMA transfer that completed: what the DMA probe point carries. A list command reports
/// each element as a transfer of its own (with its index); a barrier command moves nothing
/// and reports nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaEvent {
    /// The SPU whose MFC ran it.
    pub spu: u8,
    /// The command.
    pub command: Command,
    /// Its tag group (0 for the immediate atomic commands, which have none).
    pub tag: u8,
    /// Local-store address of the data.
    pub lsa: u32,
    /// Effective address of the data (for `sndsig`, the signal register's).
    pub ea: u64,
    /// Bytes moved.
    pub size: u32,
    /// For a list element, its index in the list.
    pub element: Option<u16>,
    /// The cycle the command entered the MFC.
    pub issued: u64,
    /// The cycle the transfer completed (in instruction mode, the cycle it was issued).
    pub completed: u64,
}

impl DmaEvent {
    /// Whether the data went from main memory into the local store.
    pub fn is_get(&self) -> bool {
        self.command.is_get()
    }
}

impl fmt::Display for DmaEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SPU{} {} tag {} LSA {:#07x} EA {:#x} size {}",
            self.spu,
            command_name(self.command.opcode),
            self.tag,
            self.lsa,
            self.ea,
            self.size
        )?;
        if let Some(element) = self.element {
            write!(f, " element {element}")?;
        }
        write!(f, " cycles {}..{}", self.issued, self.completed)
    }
}

/// DMA figures of one SPU, in both modes. All-zero bits is the reset state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaStats {
    /// MFC commands accepted (a list counts once).
    pub commands: u64,
    /// Transfers completed (each list element counts).
    pub transfers: u64,
    /// Bytes moved from main memory into the local store.
    pub bytes_in: u64,
    /// Bytes moved from the local store to main memory (signals included).
    pub bytes_out: u64,
    /// Immediate atomic commands completed (`getllar`, `putllc`, `putlluc`).
    pub atomics: u64,
    /// `putllc` commands that failed (the reservation was lost).
    pub putllc_failures: u64,
    /// Cycles the SPU spent waiting on an MFC channel (tag status, atomic status, list stall,
    /// a full queue) or on an event; in instruction mode, the cycles skipped to the event
    /// waited for.
    pub wait_cycles: u64,
    /// Cycles with at least one command in the MFC, in pipeline mode (instruction mode
    /// completes DMA at once: no busy cycles, and no bandwidth).
    pub busy_cycles: u64,
    /// When the MFC last went from idle to busy (while busy).
    busy_since: Option<u64>,
}

impl DmaStats {
    /// All zero.
    pub const fn new() -> Self {
        DmaStats {
            commands: 0,
            transfers: 0,
            bytes_in: 0,
            bytes_out: 0,
            atomics: 0,
            putllc_failures: 0,
            wait_cycles: 0,
            busy_cycles: 0,
            busy_since: None,
        }
    }

    /// Bytes moved in either direction.
    pub fn bytes(&self) -> u64 {
        self.bytes_in + self.bytes_out
    }

    /// Bytes per cycle while the MFC had work (`None` before it had any, and in instruction
    /// mode).
    pub fn bandwidth(&self) -> Option<f64> {
        (self.busy_cycles > 0).then(|| self.bytes() as f64 / self.busy_cycles as f64)
    }

    /// Busy cycles up to `now`, counting a busy stretch still open.
    pub fn busy_cycles_at(&self, now: u64) -> u64 {
        self.busy_cycles + self.busy_since.map_or(0, |since| now.saturating_sub(since))
    }

    /// The MFC went busy (`true`) or idle at `now`.
    pub(super) fn set_busy(&mut self, busy: bool, now: u64) {
        match (busy, self.busy_since) {
            (true, None) => self.busy_since = Some(now),
            (false, Some(since)) => {
                self.busy_cycles += now.saturating_sub(since);
                self.busy_since = None;
            }
            _ => {}
        }
    }
}
