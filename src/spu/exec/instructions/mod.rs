//! What each instruction does to the SPU state: one function per instruction, named after
//! its mnemonic, in one file per instruction family.
//!
//! | file | instructions |
//! |---|---|
//! | [`load_store`] | `lq*`, `stq*` and the insertion controls `cbd` .. `cdx` |
//! | [`branch_hint`] | branches (`br` .. `bihnz`, `iret`, `bisled`) and hints (`hbr`, `hbra`, `hbrr`) |
//! | [`integer`] | constant formation, logical and arithmetic operations, `selb`, counting, byte operations, masks and gathers |
//! | [`compare`] | integer compares `ceq*`, `cgt*`, `clgt*` |
//! | [`multiply`] | integer multiplies `mpy*` |
//! | [`shift_rotate`] | word and halfword shifts and rotates, quadword shifts and rotates, `shufb` |
//! | [`float_sp`] | single precision: arithmetic, compares, conversions, estimates |
//! | [`float_dp`] | double precision, and the FPSCR (`fscrrd`, `fscrwr`) |
//! | [`control`] | `stop`, halts, no-ops, `sync`, special-purpose registers, channels |
//!
//! The element arithmetic they use is in `ops_integer`, `ops_shift`, `permute`,
//! `float_single` and `float_double`, next to this folder.
//!
//! The instructions run on any [`Machine`](super::machine::Machine): the architectural state,
//! or a lighter copy of it for the pipeline's ideal fetch.
//!
//! `dispatch.rs` is the dispatch, in two tables: `apply` maps the everyday instructions to
//! their functions inline (one match on the mnemonic, compiled to one jump), the rest go to
//! `apply_rare`, out of line, so the body that the interpreter's entry points inline stays
//! small (with every instruction inline the interpreter executed about a fifth more host
//! instructions per SPU instruction, for every instruction). Each table calls the
//! instruction's function directly: a family function with its own match would be a second
//! jump, which the compiler does not merge into the first. `handlers.rs` builds instruction
//! mode's handlers from it, one per mnemonic.

mod branch_hint;
mod compare;
mod control;
mod dispatch;
mod float_dp;
mod float_sp;
mod handlers;
mod immediate;
mod integer;
mod load_store;
mod multiply;
mod shift_rotate;

pub(crate) use dispatch::apply;
pub(crate) use handlers::{CHAIN, OBSERVED, ONE_TABLE, QUIET, Retirement};
#[cfg(not(feature = "spu-lean"))]
pub(super) use load_store::store_address;
