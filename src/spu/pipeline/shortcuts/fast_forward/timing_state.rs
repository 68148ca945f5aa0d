//! The fast-forward's timing state: what, besides the instructions fetched, decides the
//! timing from a cycle on, captured relative to the clock and the fetch sequence number so
//! that two passes over a loop head can be compared (see the [fast-forward](super)'s
//! argument). `capture.rs` takes it from a pipeline.

use crate::spu::isa::IClass;
use crate::spu::pipeline::model::fetch_unit::FetchUnit;
use crate::spu::pipeline::model::last_issue::LastIssue;
use crate::spu::pipeline::model::sizes::{RING, TRACKED};
use crate::spu::probes::StallReason;

/// The timing state at the end of a cycle, relative to the clock and the fetch sequence
/// number: an instruction is given by its *age* (1 = the newest fetched, 0 = none), a cycle
/// by its distance from the clock.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct TimingState {
    pub(super) stages: [[u64; 2]; 4],
    pub(super) bubbles: [StallReason; 4],
    /// Row `i`: the row that entered `jj` `i` cycles ago, as (age, target, class) per pipe.
    pub(super) rows: [[(u64, u8, IClass); 2]; RING],
    /// Per register: cycles until released and the producer's class; (0, Nop) if released.
    pub(super) scoreboard: [(u64, IClass); 129],
    pub(super) stall_for: u64,
    pub(super) fp_busy_next: bool,
    pub(super) last_issue: LastIssue,
    /// Cycles since the architectural state's last completion.
    pub(super) arch_lag: u64,
    /// The shadow's PC and fetch's starve reason (ideal fetch).
    pub(super) fetch: (u32, StallReason),
    /// The fetch unit (real fetch).
    pub(super) unit: UnitState,
    /// Address and word of the instructions of age 1 ..= `TRACKED` (zeros past the oldest
    /// one referenced).
    pub(super) records: [(u32, u32); TRACKED],
}

impl TimingState {
    pub(super) const fn new() -> Self {
        TimingState {
            stages: [[0; 2]; 4],
            bubbles: [StallReason::Initialisation; 4],
            rows: [[(0, 0, IClass::Fx2); 2]; RING],
            scoreboard: [(0, IClass::Fx2); 129],
            stall_for: 0,
            fp_busy_next: false,
            last_issue: LastIssue::Issued,
            arch_lag: 0,
            fetch: (0, StallReason::Initialisation),
            unit: UnitState::None,
            records: [(0, 0); TRACKED],
        }
    }
}

/// The real fetch unit's state in a [`TimingState`]. An explicit tag rather than an `Option`:
/// `None` is then all-zero bits (an `Option` would mark it in a niche of the unit's fields),
/// so a new pipeline stays in `.bss`.
#[derive(Clone, PartialEq, Eq)]
#[repr(u8)]
// No heap to box into; the fast-forward keeps the room for the unit either way.
#[allow(clippy::large_enum_variant)]
pub(super) enum UnitState {
    /// Ideal fetch.
    None = 0,
    Real(FetchUnit) = 1,
}
