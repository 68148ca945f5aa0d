//! What the SPU model tells its observers ([`SpuObserver`]), how two observers compose, and
//! [`NoProbes`], the observer that hears nothing. A leaf beside the probe points: the points
//! (`probes.rs`) and the PMU feed both implement the trait.
#![forbid(unsafe_code)]

use super::stall::StallReason;
use crate::spu::exec::{CompletedBatch, Executed};
use crate::spu::isa::Instruction;
use crate::spu::mfc::DmaEvent;

/// An instruction issued to an execution pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct IssueEvent {
    /// The cycle.
    pub cycle: u64,
    /// Its address.
    pub pc: u32,
    /// The execution pipe it went to (0 even, 1 odd).
    pub pipe: u8,
    /// Issued together with another instruction.
    pub dual: bool,
}

/// What the SPU reports to observers. Every method but [`completed`](Self::completed) has an
/// empty default.
///
/// Instruction mode runs up to [`COMPLETED_BATCH`](crate::spu::exec::COMPLETED_BATCH) instructions at a time and then hands them
/// to [`completed`](Self::completed), whose default tells the observer about them as running
/// them one by one would (`cycles(1)`, then `retired` with the cycle count after the
/// instruction). Observers cannot reach the SPU, so hearing a few instructions late changes
/// nothing they can see; a run never goes past a `prof_cp` line, a stop or a channel wait
/// before its observers have heard of everything before it.
pub trait SpuObserver {
    /// Whether any notification can have an effect now. A model may skip every notification
    /// of a run when this is `false` at its start (it asks again after anything that could
    /// attach a listener during the run, such as writing a `prof_cp` line to the caller's
    /// output). The default, `true`, never skips.
    #[inline(always)]
    fn is_listening(&self) -> bool {
        true
    }
    /// `n` cycles elapsed.
    #[inline(always)]
    fn cycles(&self, _n: u64) {}
    /// An instruction completed; `executed` is its functional effect, `cycle` the current cycle.
    #[inline(always)]
    fn retired(&self, _instruction: &Instruction, _executed: &Executed, _cycle: u64) {}
    /// Instruction mode: the instructions of `batch` completed, one per cycle. The default
    /// reports each as [`cycles`](Self::cycles)`(1)` then [`retired`](Self::retired).
    /// An observer that can take the batch at once overrides it; a composed pair `(a, b)`
    /// gives `a` the whole batch, then `b`.
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        completed_one_by_one(self, batch);
    }
    /// Whether the next [`completed`](Self::completed) will read the batch's records
    /// ([`CompletedBatch::records`], [`CompletedBatch::instruction`]); asked before each batch
    /// runs. With `false`, instruction mode writes none (the batch's length, counts and LS
    /// accesses are always there) and the batch's records are empty: an observer that sums
    /// counts or only wants the accesses says so and pays for neither. The default, `true`,
    /// suits the default `completed`.
    #[inline(always)]
    fn needs_records(&self) -> bool {
        true
    }
    /// A branch resolved against its prediction.
    #[inline(always)]
    fn mispredict(&self) {}
    /// An instruction issued.
    #[inline(always)]
    fn issue(&self, _event: IssueEvent) {}
    /// Nothing issued this cycle.
    #[inline(always)]
    fn issue_stall(&self, _reason: StallReason) {}
    /// `n` cycles elapsed in which nothing issued, for `reason`, and nothing else happened
    /// (no instruction completed): what [`cycles`](Self::cycles)`(1)` then
    /// [`issue_stall`](Self::issue_stall)`(reason)`, `n` times over, report. The pipeline's
    /// stall skip reports such a run of cycles at once; the default reports it cycle by cycle.
    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        for _ in 0..n {
            self.cycles(1);
            self.issue_stall(reason);
        }
    }
    /// A DMA transfer completed (in instruction mode, right after the instruction that
    /// issued it).
    #[inline(always)]
    fn dma(&self, _event: &DmaEvent) {}
}

/// What [`SpuObserver::completed`] does by default: `observer.cycles(1)` then
/// `observer.retired(..)` for each instruction of `batch`, oldest first. For observers that
/// override `completed` and sometimes need the plain way.
#[inline(always)]
pub fn completed_one_by_one<O: SpuObserver + ?Sized>(observer: &O, batch: &CompletedBatch<'_>) {
    for (index, record) in batch.records().iter().enumerate() {
        observer.cycles(1);
        if let Some(instruction) = batch.instruction(record) {
            observer.retired(&instruction, &record.executed(), batch.cycle_after(index));
        }
    }
}

/// A reference observes as what it refers to.
impl<T: SpuObserver + ?Sized> SpuObserver for &T {
    #[inline(always)]
    fn is_listening(&self) -> bool {
        (**self).is_listening()
    }
    #[inline(always)]
    fn cycles(&self, n: u64) {
        (**self).cycles(n);
    }
    #[inline(always)]
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        (**self).retired(instruction, executed, cycle);
    }
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        (**self).completed(batch);
    }
    #[inline(always)]
    fn needs_records(&self) -> bool {
        (**self).needs_records()
    }
    #[inline(always)]
    fn mispredict(&self) {
        (**self).mispredict();
    }
    #[inline(always)]
    fn issue(&self, event: IssueEvent) {
        (**self).issue(event);
    }
    #[inline(always)]
    fn issue_stall(&self, reason: StallReason) {
        (**self).issue_stall(reason);
    }
    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        (**self).stalled_cycles(reason, n);
    }
    #[inline(always)]
    fn dma(&self, event: &DmaEvent) {
        (**self).dma(event);
    }
}

/// Two observers composed at build time: every notification goes to the first, then to the
/// second, both inlined into the model (no list, no indirect call).
impl<A: SpuObserver, B: SpuObserver> SpuObserver for (A, B) {
    #[inline(always)]
    fn is_listening(&self) -> bool {
        self.0.is_listening() || self.1.is_listening()
    }
    #[inline(always)]
    fn cycles(&self, n: u64) {
        self.0.cycles(n);
        self.1.cycles(n);
    }
    #[inline(always)]
    fn retired(&self, instruction: &Instruction, executed: &Executed, cycle: u64) {
        self.0.retired(instruction, executed, cycle);
        self.1.retired(instruction, executed, cycle);
    }
    /// The whole batch to the first, then to the second (each hears its notifications in
    /// order; see [`completed`](SpuObserver::completed)).
    #[inline(always)]
    fn completed(&self, batch: &CompletedBatch<'_>) {
        self.0.completed(batch);
        self.1.completed(batch);
    }
    #[inline(always)]
    fn needs_records(&self) -> bool {
        self.0.needs_records() || self.1.needs_records()
    }
    #[inline(always)]
    fn mispredict(&self) {
        self.0.mispredict();
        self.1.mispredict();
    }
    #[inline(always)]
    fn issue(&self, event: IssueEvent) {
        self.0.issue(event);
        self.1.issue(event);
    }
    #[inline(always)]
    fn issue_stall(&self, reason: StallReason) {
        self.0.issue_stall(reason);
        self.1.issue_stall(reason);
    }
    #[inline(always)]
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        self.0.stalled_cycles(reason, n);
        self.1.stalled_cycles(reason, n);
    }
    #[inline(always)]
    fn dma(&self, event: &DmaEvent) {
        self.0.dma(event);
        self.1.dma(event);
    }
}

/// Emits nothing; the notifications compile away.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProbes;

impl SpuObserver for NoProbes {
    #[inline(always)]
    fn is_listening(&self) -> bool {
        false
    }
    #[inline(always)]
    fn stalled_cycles(&self, _reason: StallReason, _n: u64) {}
}
