//! The demo firmware's pieces (firmware only, not part of the library): what `cargo run` shows.
//!
//! [`run`] is the whole story in order: banner, the SPU kernels on the static arena under
//! probes and emulated PMUs, the host core measured with its real PMU, the stack distance
//! chart, the trace files, and the verdict of every cross-check.

pub mod banner;
pub mod chart;
pub mod checks;
pub mod files;
pub mod host;
pub mod kernels;
pub mod options;
pub mod output;
pub mod reports;
pub mod scenario;
pub mod spu_pmu;
pub mod spu_run;
pub mod watch;
