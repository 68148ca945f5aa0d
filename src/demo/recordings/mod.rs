//! Section 6: what the listeners and the log run recorded during the SPU runs.
//!
//! - [`stack_distance`]: SPU1's reuse histogram, printed by [`chart`], against the PMU's
//!   count of the same accesses;
//! - [`trace_files`]: SPU3's memory trace (Dinero IV din) and SPU2's Konata log, written to
//!   the host.

pub mod chart;
pub mod stack_distance;
pub mod trace_files;
