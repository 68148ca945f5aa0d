//! What the machine is: section 1 of the story and `--list-events`.
//!
//! - [`banner`]: the CPU, memory set-up, interrupt controller, power firmware, the cores
//!   (started here) and what each core's PMU offers; `--fault`'s exception;
//! - [`list_events`]: `--list-events`, the running core's events in `perf list`'s style.

pub mod banner;
pub mod list_events;
