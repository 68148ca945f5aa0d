//! Programming and freeing several counters at once: the steps of Linux's order, one register
//! write per step for all the counters (each of PMCNTENCLR, PMOVSCLR, PMINTENCLR and
//! PMCNTENSET takes a bit mask), so a multiplexer's rotation writes a dozen registers rather
//! than some thirty.
#![forbid(unsafe_code)]

use super::backend::{PmuBackend, PmuRegister};
use super::counter::Counter;
use super::driver::Pmu;
use super::error::Error;
use super::event::Event;
use super::filter::EventFilter;

impl<B: PmuBackend> Pmu<B> {
    /// Programs every `(counter, event)` as [`program_on`](Self::program_on) does (no overflow
    /// interrupt), in Linux's order with each step done for all of them at once: PMCNTENCLR,
    /// isb, the event types, PMOVSCLR, the counts zeroed, isb, PMCNTENSET.
    ///
    /// Errors (nothing is programmed then): as [`program_on`](Self::program_on) for the first
    /// assignment it refuses, and [`Error::CounterBusy`] for a counter given twice.
    pub fn program_many(&mut self, assignments: &[(Counter, Event)]) -> Result<(), Error> {
        self.program_assignments(
            assignments
                .iter()
                .map(|&(counter, event)| (counter, event, None)),
        )
    }

    /// [`program_many`](Self::program_many) with each counter's exception-level filter
    /// (perf's `:u`, `:k`, ... modifiers, see [`Exclude::filter`](super::Exclude::filter)) in
    /// place of the driver's default.
    pub fn program_many_filtered(
        &mut self,
        assignments: &[(Counter, Event, EventFilter)],
    ) -> Result<(), Error> {
        self.program_assignments(
            assignments
                .iter()
                .map(|&(counter, event, filter)| (counter, event, Some(filter))),
        )
    }

    /// Programs `(counter, event, filter)` assignments; `None` is the driver's default filter.
    pub(super) fn program_assignments(
        &mut self,
        assignments: impl Iterator<Item = (Counter, Event, Option<EventFilter>)> + Clone,
    ) -> Result<(), Error> {
        let mut mask = 0u64;
        for (counter, event, _) in assignments.clone() {
            self.check_counter(counter)?;
            self.check_implemented(event)?;
            if counter == Counter::Cycle && event != Event::CPU_CYCLES {
                return Err(Error::EventNotImplemented(event));
            }
            if self.slot(counter).is_some() || mask & counter.bit() != 0 {
                return Err(Error::CounterBusy(counter));
            }
            mask |= counter.bit();
        }
        if mask == 0 {
            return Ok(());
        }
        let default = self.filter;
        let b = self.backend();
        b.write(PmuRegister::CntenClr, mask)?;
        b.isb();
        for (counter, event, filter) in assignments.clone() {
            let filter = filter.map_or(default, |f| u64::from(f.bits()));
            match counter {
                Counter::Cycle => b.write(PmuRegister::Ccfiltr, filter)?,
                Counter::Event(n) => {
                    b.write(PmuRegister::EvTyper(n), filter | u64::from(event.number()))?
                }
            }
        }
        b.write(PmuRegister::OvsClr, mask)?;
        for (counter, _, _) in assignments.clone() {
            b.write(counter.register(), 0)?;
        }
        b.isb();
        b.write(PmuRegister::CntenSet, mask)?;
        for (counter, event, _) in assignments {
            self.set_slot(counter, Some(event));
            self.set_high(counter, 0);
        }
        Ok(())
    }

    /// Stops every counter of `counters`, reads each one's final 64-bit count into `counts` (in
    /// the same order) and frees them: [`take`](Self::take) for several counters, each step one
    /// write for all (PMCNTENCLR, isb, the reads, PMINTENCLR, PMOVSCLR).
    ///
    /// Errors (nothing is freed then): [`Error::NotProgrammed`] or
    /// [`Error::CounterOutOfRange`] for the first counter that is not programmed,
    /// [`Error::ChainedPair`] for a counter of a chained pair (take those one at a time),
    /// [`Error::CounterBusy`] for a counter given twice; `counts` shorter than `counters` gets
    /// the first counts only.
    pub fn take_many(&mut self, counters: &[Counter], counts: &mut [u64]) -> Result<(), Error> {
        let mut mask = 0u64;
        for &counter in counters {
            self.check_programmed(counter)?;
            if self.pair_bits() as u64 & counter.bit() != 0 {
                return Err(Error::ChainedPair(counter));
            }
            if mask & counter.bit() != 0 {
                return Err(Error::CounterBusy(counter));
            }
            mask |= counter.bit();
        }
        if mask == 0 {
            return Ok(());
        }
        self.backend().write(PmuRegister::CntenClr, mask)?;
        self.backend().isb();
        for (index, &counter) in counters.iter().enumerate() {
            let count = self.read(counter)?;
            if let Some(slot) = counts.get_mut(index) {
                *slot = count;
            }
        }
        let b = self.backend();
        b.write(PmuRegister::IntenClr, mask)?;
        b.write(PmuRegister::OvsClr, mask)?;
        b.isb();
        for &counter in counters {
            self.set_slot(counter, None);
        }
        Ok(())
    }
}
