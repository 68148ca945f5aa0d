//! The stages of the pipes and the sizes of the rings that hold the instructions in flight,
//! with the relations between them checked at compile time.
//!
//! Three rings are indexed by a counter modulo their size:
//! - the execution pipes keep one row per cycle for [`RING`] cycles (stage `jj` to `o`, then
//!   the rows a trace shows below `o` for the dependency columns);
//! - the instruction window keeps one record per fetched instruction for [`WINDOW`] fetches;
//! - the fast-forward compares the records of the last [`TRACKED`] fetches and runs up to
//!   [`MAX_REPETITION`] instructions ahead into the window.
//!
//! A window entry is reused [`WINDOW`] fetches after it was written. At most two instructions
//! are fetched per cycle. While an instruction waits in the issue stages, at most the 7 others
//! those stages hold are fetched after it (fetch stops when stage g is full); once issued it is
//! read at stage o [`O_STAGE`] cycles later and shown in the kept rows for [`RING`] cycles: at
//! most 8 + 2 × [`RING`] later fetches in all. The fast-forward may add [`MAX_REPETITION`]
//! fetches that no stage holds yet. All of it is fewer than [`WINDOW`], so no entry in use is
//! overwritten.

use super::config::MAX_DEPTH;

/// Names of the issue stages from the top (g receives a fetch group, j issues).
pub(in crate::spu::pipeline) const ISSUE_STAGE_NAMES: [&str; 4] = ["g", "h", "i", "j"];
/// Index of stage j in the issue stages.
pub(in crate::spu::pipeline) const J_STAGE: usize = 3;
/// Names of the execution stages from the top: `jj k l m n o`.
pub(in crate::spu::pipeline) const EXEC_STAGE_NAMES: [&str; 6] = ["jj", "k", "l", "m", "n", "o"];
/// Stages from `jj` (0) to `o`, where instructions take effect.
pub(in crate::spu::pipeline) const O_STAGE: u64 = 5;
/// Execution rows kept (a power of two above the longest depth). Public: it bounds the
/// execution stages a caller may read
/// ([`Pipeline::exec_stage_slots`](crate::spu::pipeline::Pipeline::exec_stage_slots)).
pub const RING: usize = 64;
/// Entries in the instruction window (a power of two, so the modulo is a mask).
pub(in crate::spu::pipeline) const WINDOW: usize = 256;
/// The longest loop repetition the fast-forward follows, in instructions.
pub(in crate::spu::pipeline) const MAX_REPETITION: usize = 96;
/// Fetches back from the newest whose address and word the fast-forward's timing state
/// compares.
pub(in crate::spu::pipeline) const TRACKED: usize = 2 * RING + 16;

// A row must outlive the deepest instruction and stage o.
const _: () = assert!(RING > MAX_DEPTH as usize && RING > O_STAGE as usize);
// The reuse argument of the module documentation.
const _: () = assert!(WINDOW > 8 + 2 * RING + MAX_REPETITION);
// The fast-forward reads the records it compares and the ones it ran ahead from the window.
const _: () = assert!(MAX_REPETITION + TRACKED < WINDOW);
const _: () = assert!(WINDOW.is_power_of_two() && RING.is_power_of_two());
const _: () = assert!(ISSUE_STAGE_NAMES.len() == J_STAGE + 1);
const _: () = assert!(EXEC_STAGE_NAMES.len() == O_STAGE as usize + 1);
