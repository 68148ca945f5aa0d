//! The architectural state of one SPU and its functional execution ("instruction mode").
//!
//! A [`SpuState`] holds the architectural state of one SPU (128 × 128-bit registers, 256 KiB
//! local store, mailbox channels, status, retirement counters) in caller-owned or static
//! storage; nothing allocates.
//!
//! Entry points:
//! - [`SpuState::execute`] applies one decoded instruction at the current PC and reports what
//!   it did ([`Executed`]: next PC, branch taken, LS access, profiling checkpoint,
//!   stop/fault). The cycle-level pipeline model calls it when an instruction completes.
//! - [`SpuState::step`] fetches, decodes and executes the instruction at the PC.
//! - [`SpuState::run`] / [`SpuState::run_with_output`] step until the SPU stops, blocks on a
//!   channel or a budget of instructions is used up ([`RunOutcome`]); the latter writes
//!   `prof_cp` lines to a `core::fmt::Write` sink.
//!
//! Where things are:
//! - `state.rs` the state, `local_store.rs` the local store, `channels.rs` the mailboxes,
//!   `quadword.rs` the 128-bit register value, `outcome.rs` the reports and stop reasons;
//! - `execute.rs` the entry points and retirement, `stepping.rs` the fetch-decode-execute
//!   loops, `op.rs` an instruction as the interpreter runs it (8 bytes), `code.rs` the local
//!   store's code decoded once (a write to it, which `local_store.rs` notices, makes its
//!   words decode again), `code_run.rs` the inner loop that runs from it, `completed.rs` the
//!   loop that runs batches for observers;
//! - `trial.rs`: running instructions with a journal that can take them back (the pipeline's
//!   fast-forward under the real fetch unit);
//! - `instructions/`: what each instruction does, one function per instruction, one file per
//!   family (`fma` is in `instructions/float_sp.rs`), and the dispatch; they run on any
//!   `Machine` (`machine.rs`: what an instruction reads and writes) and report a `Flow`
//!   (`flow.rs`);
//! - the element arithmetic the instructions use: `ops_integer.rs`, `ops_shift.rs`,
//!   `permute.rs`, `float_single.rs` (with `float_single_host.rs`), `float_estimate.rs` (the
//!   `frest`/`frsqest` tables and `fi`), `float_double.rs` (with
//!   `float_exact.rs`);
//! - `profile.rs` the `prof_cp` checkpoints ([`ProfileCounters`]);
//! - for the pipeline's ideal fetch: `run_ahead.rs` (its shadow executes instructions early),
//!   `retire.rs` (stage o applies what the shadow recorded) and, in the lean configuration,
//!   `shadow.rs` (a shadow without a local store of its own).
//!
//! Semantics follow the SPU ISA: single precision truncates, has no denormals and no
//! Inf/NaN; the estimates are the console's tables; double precision is IEEE; `sync`, `dsync` and the hints have no architectural
//! effect. No special-purpose register is modelled: `mfspr` writes zeros and `mtspr` is
//! ignored. (That is how the SPU ISA treats SPRs an implementation does not provide, as far
//! as the sources at hand say; the RPCS3 emulator does the same. It was not re-checked against
//! the ISA text.) The counting rules of the profiling checkpoints are on
//! [`ProfileCounters`]; the modelled channels are listed on [`Channels`].

mod channel_service;
mod channels;
mod code;
mod code_run;
mod completed;
mod execute;
mod float_double;
mod float_estimate;
mod float_exact;
mod float_single;
mod float_single_host;
mod float_single_lanes;
mod flow;
mod instructions;
mod local_store;
mod machine;
mod mailbox;
mod op;
mod ops_integer;
mod ops_shift;
mod outcome;
mod permute;
mod profile;
mod quadword;
mod retire;
mod run_ahead;
#[cfg(feature = "spu-lean")]
mod shadow;
mod state;
mod stepping;
#[cfg(not(feature = "spu-lean"))]
mod trial;
mod vector_lanes;

/// The direction of an [`LsAccess`]: the probe framework's access kind, whose `Read` and
/// `Write` an SPU load and store report (they are never `InstructionFetch`).
pub use crate::probe::listeners::AccessKind;
pub use channel_service::ChannelService;
pub use channels::{
    ChannelAccess, ChannelContext, Channels, MACH_STAT_INTERRUPTS_ENABLED, MFC_CMD, MFC_EAH,
    MFC_EAL, MFC_LSA, MFC_RD_ATOMIC_STAT, MFC_RD_LIST_STALL_STAT, MFC_RD_TAG_MASK, MFC_RD_TAG_STAT,
    MFC_SIZE, MFC_TAG_ID, MFC_WR_LIST_STALL_ACK, MFC_WR_MS_SYNC_REQ, MFC_WR_TAG_MASK,
    MFC_WR_TAG_UPDATE, SPU_RD_DEC, SPU_RD_EVENT_MASK, SPU_RD_EVENT_STAT, SPU_RD_IN_MBOX,
    SPU_RD_MACH_STAT, SPU_RD_SIG_NOTIFY_1, SPU_RD_SIG_NOTIFY_2, SPU_RD_SRR0, SPU_WR_DEC,
    SPU_WR_EVENT_ACK, SPU_WR_EVENT_MASK, SPU_WR_OUT_INTR_MBOX, SPU_WR_OUT_MBOX, SPU_WR_SRR0,
    SRR0_MASK, channel_can_wait, channel_name,
};
pub(crate) use code::LentLine;
#[cfg(not(feature = "spu-lean"))]
pub(crate) use code::NoCode;
pub use code::{CodeStore, DecodedCode};
pub(crate) use completed::{BatchEnd, BatchRecords};
pub use completed::{COMPLETED_BATCH, Completed, CompletedBatch};
pub(crate) use execute::Ordinary;
pub use local_store::{ImageTooLarge, LS_ADDRESS_MASK, LS_SIZE, LocalStore};
pub use mailbox::{INBOUND_MAILBOX_CAPACITY, Mailbox, MailboxFull, OUTBOUND_MAILBOX_CAPACITY};
pub use outcome::{
    ChannelOperation, Executed, Fault, FaultKind, LsAccess, RunEnd, RunOutcome, Status, StopReason,
};
pub(crate) use profile::checkpoint_number;
pub use profile::{ProfileCheckpoint, ProfileCounters};
pub use quadword::Quadword;
pub(crate) use retire::StateWrite;
pub(crate) use run_ahead::RunAhead;
#[cfg(feature = "spu-lean")]
pub(crate) use shadow::{STORES_AHEAD, ShadowState};
pub use state::{INITIAL_STACK_POINTER, LINK_REGISTER, REGISTER_COUNT, STACK_POINTER, SpuState};
#[cfg(not(feature = "spu-lean"))]
pub(crate) use trial::{Journal, Trial};

/// Bytes of instruction mode's batch of completed instructions (for the footprint table).
pub(crate) const BATCH_RECORDS_BYTES: usize = size_of::<completed::BatchRecords>();
/// Bytes of the local store's decoded code (for the footprint table).
pub(crate) use code::DECODED_CODE_BYTES;
