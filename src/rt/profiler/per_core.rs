//! Each core's sampler and whether its source is armed, and the sample the sources'
//! interrupt handlers take into it: the state the public calls (`mod.rs`) and the handlers
//! (`sources.rs`) share, in a leaf of its own so that neither reaches into the other.

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::probe::Listener;
use crate::rt::core_id::MAX_CORES;
use crate::rt::irq::Interrupted;
use crate::sampling::{EncodedBuffer, Sample, SampleSource, Sampler};
use crate::sync::IrqMutex;

use super::live_stack::LiveStack;

/// Bytes of encoded samples each core keeps (about 10 000 samples of a 10-frame stack).
pub const BUFFER_BYTES: usize = 192 * 1024;
/// Listeners each core's sample probe point takes.
pub const LISTENERS: usize = 4;
/// A core's sampler: encoded samples, listeners that may be notified from the interrupt handler.
pub type CoreSampler =
    Sampler<'static, EncodedBuffer<BUFFER_BYTES>, LISTENERS, dyn Listener<Sample> + Sync>;

/// Each core's sampler, reached by that core only (its handler and its own calls).
pub(super) static SAMPLERS: [IrqMutex<RefCell<CoreSampler>>; MAX_CORES] = [const {
    IrqMutex::new(RefCell::new(Sampler::new(
        SampleSource::PmuOverflow,
        0,
        0,
        EncodedBuffer::new(),
    )))
}; MAX_CORES];
/// Whether each core's source is armed.
pub(super) static ACTIVE: [AtomicBool; MAX_CORES] = [const { AtomicBool::new(false) }; MAX_CORES];

/// This core's number (the runtime's dense numbering, [`crate::rt::core_id::this_core`]).
pub(super) fn this_core() -> usize {
    crate::rt::core_id::this_core().index()
}

/// Called by the sources' interrupt handlers: one sample of the interrupted code on this core.
pub(super) fn take_sample(interrupted: &Interrupted, counter: u64) {
    let core = this_core();
    if !ACTIVE
        .get(core)
        .is_some_and(|active| active.load(Ordering::Acquire))
    {
        return;
    }
    let Some(sampler) = SAMPLERS.get(core) else {
        return;
    };
    let stack = LiveStack::of_this_core();
    let context = crate::sampling::InterruptedContext {
        pc: interrupted.pc,
        fp: interrupted.fp,
        lr: interrupted.lr,
        counter,
    };
    sampler.lock(|cell| {
        if let Ok(mut sampler) = cell.try_borrow_mut() {
            sampler.take_sample(context, stack.bounds(), &stack);
        }
    });
}
