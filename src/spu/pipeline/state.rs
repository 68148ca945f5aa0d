//! The definition of the [`Pipeline`]: the model's parts and the shortcuts' memory, side by
//! side, each field's reset value all-zero bits. What a pipeline does is in the `impl`s beside
//! it: the public interface and the run loop in `mod.rs`, one cycle in `model/cycle.rs`, the
//! shortcuts in `shortcuts/`.

use super::model::config_choice::ConfigChoice;
use super::model::execute::ExecPipes;
use super::model::fetch::FetchModel;
use super::model::follow_up::FollowUp;
use super::model::issue::IssuePipes;
use super::model::last_issue::LastIssue;
use super::model::stats::Statistics;
use super::shortcuts::fast_forward::memory::FastForward;

/// The pipeline state of one SPU (everything but the architectural state).
///
/// A new pipeline is all-zero bits, so a static one (in an [`Arena`](crate::spu::arena::Arena))
/// lands in `.bss`: every field's reset value is encoded as zero.
#[derive(Clone)]
pub struct Pipeline {
    pub(super) config: ConfigChoice,
    pub(super) clock: u64,
    pub(super) issue: IssuePipes,
    pub(super) exec: ExecPipes,
    pub(super) fetch: FetchModel,
    /// The fetch model is the real fetch unit (a copy of `fetch`'s variant: the per-cycle
    /// checks read one flag instead of decoding the enum).
    pub(super) real_fetch: bool,
    /// Sequence number of a channel instruction that blocked at stage o and is retried each
    /// cycle (0: none).
    pub(super) blocked: u64,
    /// Why nothing issued in the last cycle, if nothing did.
    pub(super) last_issue: LastIssue,
    /// Sequence number of the instruction that completed at stage o in the last cycle and
    /// stopped the SPU (the flush that ends the run removes it from the pipes).
    pub(super) stopped_by: Option<u64>,
    pub(super) stats: Statistics,
    pub(super) fast_forward: FastForward,
    /// Stalled cycles are simulated one by one (off is stored, so that on is the reset
    /// state, all-zero bits).
    pub(super) stall_skip_off: bool,
    /// Stalled cycles the stall skip ran.
    pub(super) stall_skipped: u64,
    /// The MFC has transfers in flight: their data claims local-store port cycles, and the
    /// shortcuts (which assume nothing but the pipeline changes) stay off.
    pub(super) dma_active: bool,
    /// What the run loop does after this cycle besides the next one: a service of the
    /// channels, a bulk wait on one, a return after a prof_cp line.
    pub(super) follow_up: FollowUp,
}

impl Default for Pipeline {
    fn default() -> Self {
        Self::new()
    }
}

impl Pipeline {
    /// A pipeline with the `cell` configuration and ideal fetch. It simulates whichever SPU
    /// state [`run`](Self::run) is given.
    pub const fn new() -> Self {
        Pipeline {
            config: ConfigChoice::cell(),
            clock: 0,
            issue: IssuePipes::new(),
            exec: ExecPipes::new(),
            fetch: FetchModel::new_ideal(),
            real_fetch: false,
            blocked: 0,
            last_issue: LastIssue::Issued,
            stopped_by: None,
            stats: Statistics::new(),
            fast_forward: FastForward::new(),
            stall_skip_off: false,
            stall_skipped: 0,
            dma_active: false,
            follow_up: FollowUp::NOTHING,
        }
    }
}
