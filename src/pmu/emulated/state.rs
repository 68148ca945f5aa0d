//! The emulated PMU's state: its configuration, its registers and its event inputs. The
//! behaviour is in the `impl`s beside it: the registers and counting in `mod.rs`, the event
//! inputs in `inputs.rs`, CHAIN in `chain.rs`.
#![forbid(unsafe_code)]

use core::cell::Cell;

use super::config::EmulatedConfig;
use super::input_slots::Inputs;
use crate::pmu::backend::ExceptionLevel;

/// The emulated PMUv3 (see the module documentation).
#[derive(Debug)]
pub struct EmulatedPmu {
    pub(super) config: EmulatedConfig,
    pub(super) el: Cell<ExceptionLevel>,
    pub(super) pmcr: Cell<u64>,
    pub(super) cnten: Cell<u64>,
    pub(super) ovs: Cell<u64>,
    pub(super) inten: Cell<u64>,
    pub(super) selr: Cell<u64>,
    pub(super) userenr: Cell<u64>,
    pub(super) evtyper: [Cell<u64>; 31],
    pub(super) evcntr: [Cell<u64>; 31],
    pub(super) ccntr: Cell<u64>,
    pub(super) ccfiltr: Cell<u64>,
    pub(super) icntr: Cell<u64>,
    pub(super) icfiltr: Cell<u64>,
    /// Clock cycles not yet counted by PMCCNTR while PMCR.D divides by 64.
    pub(super) prescale: Cell<u64>,
    /// The event inputs and what they hold back.
    pub(super) inputs: Inputs,
}
