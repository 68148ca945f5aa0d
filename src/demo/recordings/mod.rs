//! Section 6: what the listeners and the log run recorded during the SPU runs.
//!
//! - [`stack_distance`]: SPU1's reuse histogram, printed by [`chart`], against the PMU's
//!   count of the same accesses;
//! - [`trace_files`]: SPU3's memory trace (Dinero IV din) and SPU2's Konata log, written to
//!   the host;
//! - [`ctf_trace`]: with `--ctf DIR`, after the MFC part, a CTF trace of a run of the
//!   streaming kernel (its accesses, DMA, stalls, PC events and PMU readings), written to the
//!   host, with the run's own figures to compare.

pub mod chart;
pub mod ctf_trace;
pub mod stack_distance;
pub mod trace_files;
