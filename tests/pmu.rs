//! One test binary for the PMU driver's and its emulated back end's integration tests: each file
//! below is a module of it (why one binary per area: the README's "Tests"). Each file declares the
//! support modules it uses itself, so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "pmu_batch.rs"]
mod pmu_batch;
#[path = "pmu_catalogue.rs"]
mod pmu_catalogue;
#[path = "pmu_chain.rs"]
mod pmu_chain;
#[path = "pmu_chain_driver.rs"]
mod pmu_chain_driver;
#[path = "pmu_driver.rs"]
mod pmu_driver;
#[path = "pmu_emulated.rs"]
mod pmu_emulated;
#[path = "pmu_event_inputs.rs"]
mod pmu_event_inputs;
#[path = "pmu_event_list.rs"]
mod pmu_event_list;
#[path = "pmu_events_info_metrics.rs"]
mod pmu_events_info_metrics;
#[path = "pmu_group.rs"]
mod pmu_group;
#[path = "pmu_identification.rs"]
mod pmu_identification;
#[path = "pmu_interval.rs"]
mod pmu_interval;
#[path = "pmu_multiplex.rs"]
mod pmu_multiplex;
#[path = "pmu_multiplex_property.rs"]
mod pmu_multiplex_property;
#[path = "pmu_property.rs"]
mod pmu_property;
#[path = "pmu_regs.rs"]
mod pmu_regs;
#[path = "pmu_stat_display.rs"]
mod pmu_stat_display;
#[path = "pmu_stat_runs.rs"]
mod pmu_stat_runs;
#[path = "pmu_topdown.rs"]
mod pmu_topdown;
