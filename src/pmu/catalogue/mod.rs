//! The PMU event catalogue: names and descriptions of the architecture's common and
//! recommended events (0x0000..=0x00FF, 0x4000..=0x403F and the Armv9 extensions) and of the
//! IMPLEMENTATION DEFINED events of Cortex-A53, A57, A72, A76 and Neoverse N1, N2, V1.
//!
//! The tables are generated from Arm's machine-readable PMU descriptions (ARM-software/data,
//! Apache-2.0) by `tools/gen-pmu-events/gen_pmu_events.py`; docs/pmu-events.md says which
//! files, their licence, and what the data lacks. A core's table is chosen by MIDR_EL1
//! ([`for_midr`]); PMCEID tells which common events it has ([`CoreCatalogue::announced`]).
//!
//! ```
//! use pmprobe::pmu::catalogue::for_midr;
//! let a57 = for_midr(0x411f_d070); // QEMU's cortex-a57
//! assert_eq!(a57.name(), "Cortex-A57");
//! assert_eq!(a57.lookup(0x40).map(|e| e.name()), Some("L1D_CACHE_RD"));
//! assert_eq!(a57.find("l1d_cache_rd").map(|e| e.number()), Some(0x40));
//! ```

mod architecture;
mod common;
mod core_catalogue;
mod cores;
mod cortex_a53;
mod cortex_a57;
mod cortex_a72;
mod cortex_a76;
mod event_list;
mod info;
mod neoverse_n1;
mod neoverse_n2;
mod neoverse_v1;
mod parse;
mod select;

pub use self::architecture::{common_event, common_event_named, common_events};
pub use self::core_catalogue::CoreCatalogue;
pub use self::event_list::{
    EventList, EventListError, EventListErrorKind, EventSpec, GENERIC_EVENTS,
};
pub use self::info::EventInfo;
pub use self::parse::{ParseEventError, SUGGESTION_MAX_LEN, parse_event, suggest};
pub use self::select::{common_only, for_midr};
