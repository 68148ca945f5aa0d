//! One test binary for the probe framework's and its built-in listeners' integration tests: each
//! file below is a module of it (why one binary per area: the README's "Tests"). Each file declares
//! the support modules it uses itself, so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "probe_din_decode.rs"]
mod probe_din_decode;
#[path = "probe_manager.rs"]
mod probe_manager;
#[path = "probe_mem_trace.rs"]
mod probe_mem_trace;
#[path = "probe_pc_event.rs"]
mod probe_pc_event;
#[path = "probe_pmu_counter.rs"]
mod probe_pmu_counter;
#[path = "probe_pmu_sink.rs"]
mod probe_pmu_sink;
#[path = "probe_pmu_spu_feed.rs"]
mod probe_pmu_spu_feed;
#[path = "probe_point.rs"]
mod probe_point;
#[path = "probe_point_model.rs"]
mod probe_point_model;
#[path = "probe_stack_distance.rs"]
mod probe_stack_distance;
#[path = "probe_static_point.rs"]
mod probe_static_point;
