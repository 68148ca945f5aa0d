//! The demo firmware's pieces (firmware only, not part of the library): what `cargo run` shows.
//!
//! The story in order: [`banner::print`], then [`scenario::run`] (the SPU kernels of
//! [`plan::PLANS`] on the static arena under probes and emulated PMUs, the host core measured
//! with its real PMU, the stack distance chart, the trace files), then the verdict of every
//! cross-check ([`checks::Checks::finish`]). With `--profile`, [`profile::start`] before the
//! scenario and [`profile::finish`] after it. With perf stat's `-e`, `-r` or `-x`,
//! [`perf_stat::run`] instead of all of it.
//!
//! Dependencies run one way: `scenario` drives `spu_run` (one SPU: its run loops in
//! `run_loops`, its checks in `spu_checks`) and `reports` (the tables and files after the
//! runs); all of them read the leaf `plan` (what runs where) and the helpers (`checks`,
//! `output`, `files`, `host`, `host_topdown`, `interval_mode`, `kernels`, `spu_pmu`, `watch`,
//! `chart`, `core_lock`, `profile`).

pub mod banner;
pub mod channel_pair;
pub mod chart;
pub mod checks;
pub mod core_lock;
pub mod cores;
pub mod files;
pub mod host;
pub mod host_topdown;
pub mod interval_mode;
pub mod kernels;
pub mod list_events;
pub mod mfc;
pub mod mfc_kernels;
pub mod mfc_queue;
pub mod mfc_section;
pub mod mfc_signals;
pub mod mfc_stream;
pub mod options;
pub mod output;
pub mod perf_stat;
pub mod plan;
pub mod plan_run;
pub mod profile;
pub mod reference;
pub mod reports;
pub mod run_loops;
pub mod scenario;
pub mod source_strip;
pub mod spu_checks;
pub mod spu_pmu;
pub mod spu_run;
pub mod watch;
