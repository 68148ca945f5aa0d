//! The DMA race checker: names every race between an SPU program and its DMA transfers
//! exactly, independent of timing.
//!
//! A Cell kernel that reads a buffer a get is still filling, or overwrites one a put is still
//! reading, gets results that depend on timing it never sees. The model knows every command
//! from its issue on and which PC touches which local-store byte, so the checker follows the
//! program instead of the clock: a command is *pending* from the `wrch MFC_Cmd` that issued
//! it until the program reads a tag-group status that includes it (`MFC_RdTagStat`; for the
//! immediate atomic commands, `MFC_RdAtomicStat`; for a list's stretch up to a
//! stall-and-notify element, `MFC_RdListStallStat`). It reports:
//!
//! - a load, store or instruction fetch of local-store bytes a pending get writes;
//! - a store to local-store bytes a pending put (or list, through its elements) reads;
//! - two pending commands of one SPU on overlapping local store or main memory, at least one
//!   writing it, neither ordered before the other by a fence, a barrier or a tag wait;
//! - a put and another SPU's get or put of overlapping main memory with nothing ordering them
//!   (a tag wait seen by the other SPU through a signal, a mailbox or a lock line).
//!
//! `docs/dma-races.md` gives each rule with its CBEA source. Memory is bounded: fixed tables
//! whose overflows are counted ([`DmaCheckStats`]).
//!
//! | file | part |
//! |---|---|
//! | `checker.rs` | [`DmaRaceChecker`], its probe point, the observer [`SpuDmaCheck`] |
//! | `state.rs` | what it knows; the channel traffic: tag waits, signals, mailboxes |
//! | `issue.rs` | a command's issue (and a list's next stretch) and its checks |
//! | `access.rs` | an instruction's local-store access and its checks |
//! | `pending.rs` | one SPU's pending commands, their transfers, the ordering rule |
//! | `history.rs` | main-memory transfers other SPUs may still race with |
//! | `clocks.rs` | vector clocks: what each SPU knows of the others |
//! | `race.rs`, `span.rs`, `stats.rs` | the report, its ranges, the counts |

mod access;
mod checker;
mod clocks;
mod history;
mod issue;
mod pending;
mod race;
mod span;
mod state;
mod stats;

pub use checker::{DmaRaceChecker, RACE_LISTENERS, SpuDmaCheck};
pub use history::HISTORY_TRANSFERS;
pub use pending::{PENDING_COMMANDS, PENDING_TRANSFERS};
pub use race::{DmaRace, LaterAccess, RaceKind, TransferInfo};
pub use span::Span;
pub use stats::DmaCheckStats;
