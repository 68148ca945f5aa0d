//! Functional execution of SPU programs ("instruction mode").
//!
//! An [`SpuState`] holds the architectural state of one SPU (128 × 128-bit registers, 256 KiB
//! local store, mailbox channels) in caller-owned or static storage; nothing allocates.
//!
//! Entry points:
//! - [`SpuState::execute`] applies one decoded instruction at the current PC and reports what it
//!   did ([`Executed`]: next PC, branch taken, LS access, profiling checkpoint, stop/fault).
//!   The cycle-level pipeline model calls it when an instruction completes.
//! - [`SpuState::step`] fetches, decodes and executes the instruction at the PC.
//! - [`SpuState::run`] / [`SpuState::run_with_output`] step until the SPU stops, blocks on a channel or
//!   a budget of instructions is used up; the latter writes `prof_cp` lines to a
//!   `core::fmt::Write` sink.
//!
//! Semantics follow the SPU ISA: single precision truncates, has no denormals and no
//! Inf/NaN ([`float_single`]); double precision is IEEE ([`float_double`]); `sync`, `dsync`
//! and the hints have no architectural effect. No special-purpose register is modelled:
//! `mfspr` writes zeros and `mtspr` is ignored. (That is how the SPU ISA treats SPRs an
//! implementation does not provide, as far as the sources at hand say; the RPCS3 emulator
//! does the same. It was not re-checked against the ISA text.)
//!
//! Counting rules (profiling checkpoints, NOP classes) are in [`profile`]; the modelled
//! channels are listed on [`Channels`].

mod channels;
mod decode_cache;
mod execute;
pub mod float_double;
mod float_exact;
pub mod float_single;
mod float_single_exact;
mod instructions;
mod local_store;
pub mod ops_integer;
pub mod ops_shift;
mod outcome;
pub mod permute;
pub mod profile;
mod quadword;
mod retire;
mod run_ahead;
mod state;
mod stepping;

/// The direction of an [`LsAccess`]: the probe framework's access kind, whose `Read` and
/// `Write` an SPU load and store report (they are never `InstructionFetch`).
pub use crate::probe::listeners::AccessKind;
pub use channels::{
    ChannelAccess, Channels, INBOUND_MAILBOX_CAPACITY, Mailbox, MailboxFull,
    OUTBOUND_MAILBOX_CAPACITY, SPU_RD_IN_MBOX, SPU_RD_SRR0, SPU_WR_OUT_INTR_MBOX, SPU_WR_OUT_MBOX,
    SPU_WR_SRR0,
};
pub use local_store::{ImageTooLarge, LS_ADDRESS_MASK, LS_SIZE, LocalStore};
pub use outcome::{
    ChannelOperation, Executed, Fault, FaultKind, LsAccess, RunEnd, RunOutcome, Status, StopReason,
};
pub use profile::{ProfileCheckpoint, ProfileCounters};
pub use quadword::Quadword;
pub(crate) use retire::StateWrite;
pub(crate) use run_ahead::RunAhead;
pub use state::{INITIAL_STACK_POINTER, LINK_REGISTER, REGISTER_COUNT, STACK_POINTER, SpuState};
