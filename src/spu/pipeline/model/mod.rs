//! The model: one SPU's pipeline simulated cycle by cycle, the configuration it is timed by
//! and the statistics that classify its cycles.
//!
//! What lives here: the configuration (`config`), the stage names and ring sizes (`sizes`),
//! the record of an instruction in flight (`inflight`), as fetch keeps it decoded (`decoded`), in
//! its decode cache (`decode_cache`) and in the lines of the decoded code's memory pipeline mode
//! borrows (`decoded_lines`), the instruction
//! window, the issue pipes with the dual-issue rules, the execution pipes with the register
//! scoreboard, the two fetch models behind one interface (`fetch`: ideal fetch, and the real
//! fetch unit with its buffers and hints, `fetch_unit/`), the statistics, one simulated cycle
//! (`cycle`), what it tells the run loop (`cycle_end`) and what the run loop does after it
//! (`follow_up`), and the notifications (`notification`: `emit`, which tells the observer and
//! notes each one for the fast-forward). Leaves the pipeline's definition and the shortcuts
//! share: what stage j did last (`last_issue`), the configuration in use (`config_choice`)
//! and the model's error (`error`).
//!
//! What it may use: its own files, the rest of the SPU (`spu::exec`, `spu::isa`,
//! `spu::probes`) and the [`Pipeline`](super::Pipeline) it is a part of (its definition, in
//! the pipeline's `state.rs`). It imports nothing
//! of `shortcuts` or `views`: the cycle reaches the fast-forward only as a
//! [`notification::NoteSink`] (which the shortcuts implement), the pipeline's `fast_forward`
//! field handed to `emit`.

pub(super) mod config;
pub(super) mod config_choice;
pub(super) mod cycle;
pub(super) mod cycle_end;
pub(super) mod decode_cache;
pub(super) mod decoded;
mod decoded_lines;
pub(super) mod error;
pub(super) mod execute;
pub(super) mod fetch;
pub(super) mod fetch_unit;
pub(super) mod follow_up;
pub(super) mod ideal_fetch;
pub(super) mod inflight;
pub(super) mod issue;
pub(super) mod last_issue;
#[cfg_attr(feature = "spu-lean", allow(dead_code))]
pub(super) mod notification;
pub(super) mod sizes;
pub(super) mod stats;
mod topdown;
pub(super) mod window;
