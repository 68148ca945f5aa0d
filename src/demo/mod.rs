//! The demo firmware's pieces (firmware only, not part of the library): what `cargo run` shows,
//! in rooms, one folder per thing it shows.
//!
//! The output in order, and the room each part comes from (`src/main.rs` calls the first and
//! the last, [`scenario`] the rest):
//!
//! | output | room |
//! |---|---|
//! | the command line (`--list-events`, perf stat's `-e`/`-r`/`-x` instead of the demo) | [`command_line`], [`machine`] |
//! | section 1: CPU, memory, GIC, cores, each core's PMU | [`machine`] |
//! | `--profile` starts | [`command_line`] |
//! | section 2: the SPU kernels' set-up | [`scenario`] |
//! | sections 3 and 4: one section per SPU (breakpoint, checks, perf stat's table) | [`spu_runs`] |
//! | the per-core table; the one-core reference | [`cores`] |
//! | section 5: the host table, the host core's top-down | [`host_core`] |
//! | section 6: stack distance chart, din trace, Konata log | [`recordings`] |
//! | the channel pair across cores | [`channels`] |
//! | the MFC sections: streaming, work queue, signal handshake | [`mfc`] |
//! | `--profile`'s table and files; the verdict of every cross-check | [`command_line`], [`shared`] |
//!
//! Dependencies run one way, from the top of this list down; `docs/architecture.md` has the
//! room table (which room may import which) that `tests/architecture.rs` checks:
//!
//! - [`scenario`]: the story, calls the rooms in order;
//! - [`cores`] over [`spu_runs`]; [`recordings`] and [`channels`] beside it, over
//!   [`spu_runs`] too;
//! - [`spu_runs`] over [`host_core`] (the rows of the host table) and [`command_line`]
//!   (the options, `--profile`'s sampled windows);
//! - [`host_core`], [`mfc`], [`machine`], [`command_line`]: each over [`shared`] alone;
//! - [`shared`]: leaves (output, checks, the cross-core lock, host files, the host core's
//!   meter, the SPU kernels, mode names).
//!
//! A new piece goes in the room of what it shows; a helper two rooms need goes in [`shared`]
//! when it needs no room, else in the lower of the two.

pub mod channels;
pub mod command_line;
pub mod cores;
pub mod host_core;
pub mod machine;
pub mod mfc;
pub mod recordings;
pub mod scenario;
pub mod shared;
pub mod spu_runs;
