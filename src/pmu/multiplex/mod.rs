//! Counting more events than the PMU has counters, as perf does: event groups that are
//! scheduled together, rotated on the counters, each event reporting its raw count, time
//! enabled and time running so that a scaled estimate can be made.
#![forbid(unsafe_code)]

mod error;
mod filtered;
mod free;
mod group_id;
mod multiplexer;

pub use error::MuxError;
pub use group_id::GroupId;
pub use multiplexer::{GroupKind, Multiplexer};
