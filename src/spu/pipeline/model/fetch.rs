//! Instruction fetch models behind one interface.
//!
//! The pipeline asks its [`FetchModel`] once per cycle, after execute and issue were updated,
//! for the next fetch group (a doubleword-aligned pair) to put into issue stage g, and tells it
//! when a serializing instruction completed at stage o.
//!
//! # Ideal fetch ([`FetchKind::Ideal`])
//! The correct path is always available, two instructions per cycle, and a taken branch
//! redirects at once: what spu_timing assumes. Its oracle for the path is a run-ahead
//! functional shadow ([`ideal_fetch`](super::ideal_fetch)).
//!
//! # Real fetch ([`FetchKind::Real`])
//! The fetch unit of [`fetch_unit`](super::fetch_unit): it fetches the predicted path from the
//! local store through the LS pipe and the line buffers, with no oracle. Stage o compares the
//! resolved next PC with the one fetch predicted; a difference squashes the younger
//! instructions and starts the mispredict sequence instead of being a path error.

use super::decode_cache::DecodeCache;
use super::fetch_unit::FetchUnit;
use super::ideal_fetch::IdealFetch;
use super::issue::IssuePipes;
use crate::spu::exec::SpuState;
use crate::spu::probes::StallReason;

/// Which fetch model to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FetchKind {
    /// Always the correct path, two instructions per cycle, no branch penalty.
    Ideal,
    /// The article's fetch unit: line buffers, LS pipe, hints, mispredicts.
    Real,
}

impl FetchKind {
    /// `"ideal"` or `"real"`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "ideal" => Some(Self::Ideal),
            "real" => Some(Self::Real),
            _ => None,
        }
    }
}

/// The fetch model of a pipeline.
///
/// No heap: the ideal model's run-ahead state lives inline, so every pipeline reserves room
/// for it whichever model it uses (the arena's storage is sized once, statically).
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum FetchModel {
    /// Ideal fetch with a run-ahead functional shadow.
    Ideal(IdealFetch),
    /// The fetch unit, fetching, about to restart or held (see [`Resume`]).
    Real {
        /// The unit.
        unit: FetchUnit,
        /// Whether the unit fetches in the next cycle.
        resume: Resume,
        /// Instructions decoded once per address and word (kept across restarts).
        decoded: DecodeCache,
    },
}

/// What the real fetch unit does in its next cycle. One state, so that the cycle tests one
/// value for both exceptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resume {
    /// It fetches.
    Fetching,
    /// It forgets what it fetched and starts at the architectural PC.
    Restart,
    /// It waits: a channel instruction is held at stage o.
    Held,
}

impl FetchModel {
    /// The ideal model.
    pub(crate) const fn new_ideal() -> Self {
        FetchModel::Ideal(IdealFetch::new())
    }

    /// The real fetch unit.
    pub(crate) const fn new_real() -> Self {
        FetchModel::Real {
            unit: FetchUnit::new(),
            resume: Resume::Restart,
            decoded: DecodeCache::new(),
        }
    }

    /// The kind.
    pub fn kind(&self) -> FetchKind {
        match self {
            FetchModel::Ideal(_) => FetchKind::Ideal,
            FetchModel::Real { .. } => FetchKind::Real,
        }
    }

    /// The real fetch unit's state, if that is the model.
    pub fn unit(&self) -> Option<&FetchUnit> {
        match self {
            FetchModel::Real { unit, .. } => Some(unit),
            FetchModel::Ideal(_) => None,
        }
    }

    /// Forgets everything fetched; fetch restarts at the architectural PC.
    #[inline]
    pub(crate) fn restart(&mut self) {
        match self {
            FetchModel::Ideal(ideal) => ideal.restart(),
            FetchModel::Real { resume, .. } => *resume = Resume::Restart,
        }
    }

    /// One fetch cycle: puts the next group into issue stage g if it is free and a group is
    /// available (else an empty g records why it is empty). Returns whether a line request
    /// was kept out of the LS pipe by a load/store (LS contention).
    #[inline(always)]
    pub(crate) fn step(
        &mut self,
        arch: &mut SpuState,
        issue: &mut IssuePipes,
        ls_in_stage_n: bool,
    ) -> bool {
        let g_free = issue.g_is_empty();
        match self {
            FetchModel::Ideal(ideal) => {
                if g_free && !ideal.fetch_group(arch, issue) {
                    issue.bubbles[0] = ideal.starve_reason();
                }
                false
            }
            FetchModel::Real {
                unit,
                resume,
                decoded,
            } => {
                match *resume {
                    Resume::Fetching => {}
                    Resume::Restart => {
                        unit.restart(arch.pc());
                        *resume = Resume::Fetching;
                    }
                    // Behind a channel instruction waiting at stage o: no line requests.
                    Resume::Held => return false,
                }
                let step = unit.cycle(arch, issue, ls_in_stage_n, decoded);
                if !step.fed && g_free {
                    issue.bubbles[0] = unit.starve_reason();
                }
                if step.invalidate_issue {
                    issue.invalidate(StallReason::BranchMiss);
                }
                step.ls_contention
            }
        }
    }

    /// How many cycles from now on [`step`](Self::step) would change nothing the stall skip
    /// does not account for ([`idle`](Self::idle)), given whether issue stage g is free.
    /// Ideal fetch fetches only into a free stage g; the real fetch unit
    /// ([`FetchUnit::idle_cycles`]) also moves its line requests.
    #[inline(always)]
    pub(crate) fn idle_cycles(&self, g_free: bool) -> u64 {
        match self {
            _ if g_free => 0,
            FetchModel::Ideal(_) => u64::MAX,
            FetchModel::Real {
                resume: Resume::Restart | Resume::Held,
                ..
            } => 0,
            FetchModel::Real { unit, .. } => unit.idle_cycles(),
        }
    }

    /// Moves on `cycles` idle cycles ([`idle_cycles`](Self::idle_cycles) allows them).
    #[inline(always)]
    pub(crate) fn idle(&mut self, arch: &SpuState, cycles: u64) {
        if let FetchModel::Real { unit, .. } = self {
            unit.idle(arch, cycles);
        }
    }

    /// Stage o completed every instruction up to fetch sequence number `seq`.
    #[inline(always)]
    pub(crate) fn completed_through(&mut self, seq: u64) {
        if let FetchModel::Ideal(ideal) = self {
            ideal.completed_through(seq);
        }
    }

    /// A serializing instruction completed at stage o.
    #[inline]
    pub(crate) fn serializing_completed(&mut self) {
        if let FetchModel::Ideal(ideal) = self {
            ideal.restart_reason(StallReason::Channel);
        }
    }

    /// A serializing instruction at stage o waits on a channel (the MFC or an event will
    /// release it): ideal fetch charges its starved cycles to [`StallReason::ChannelWait`].
    pub(crate) fn hold_for_channel(&mut self) {
        if let FetchModel::Ideal(ideal) = self {
            ideal.wait_reason(StallReason::ChannelWait);
        }
    }

    /// A channel instruction at stage o waits (on the MFC, an event or the host): the real
    /// fetch unit makes no requests until [`restart`](Self::restart), after it completes.
    /// Ideal fetch, which waits behind serializing instructions anyway, is not affected.
    pub(crate) fn hold(&mut self) {
        if let FetchModel::Real { resume, .. } = self {
            *resume = Resume::Held;
        }
    }

    /// The local store of ideal fetch's run-ahead copy, if it keeps one of its own.
    pub(crate) fn shadow_local_store_mut(&mut self) -> Option<&mut crate::spu::exec::LocalStore> {
        match self {
            FetchModel::Ideal(ideal) => ideal.shadow_local_store_mut(),
            FetchModel::Real { .. } => None,
        }
    }

    /// The loop head fetch passed in the last cycle (ideal fetch: the target of a backward
    /// taken branch it fetched; the real fetch unit: the target of a hinted backward branch
    /// it predicted taken), once.
    #[inline(always)]
    pub(crate) fn take_loop_head(&mut self) -> Option<u32> {
        match self {
            FetchModel::Ideal(ideal) => ideal.take_loop_head(),
            FetchModel::Real { unit, .. } => unit.take_loop_head(),
        }
    }

    /// Whether issue is held (mispredict sequence).
    #[inline(always)]
    pub(crate) fn blocks_issue(&self) -> bool {
        match self {
            FetchModel::Ideal(_) => false,
            FetchModel::Real { unit, .. } => unit.blocks_issue(),
        }
    }
}
