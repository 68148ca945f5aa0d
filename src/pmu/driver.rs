//! The PMU driver, generic over a [`PmuBackend`]: counter programming in the order Linux's
//! arm_pmuv3 driver uses, start/stop/reset, and 64-bit counts from 32-bit counters.
#![forbid(unsafe_code)]

use super::backend::{ExceptionLevel, PmuBackend, PmuRegister};
pub use super::counter::Counter;
pub use super::detect::{PmuInfo, detect};
pub use super::error::Error;
use super::event::Event;
use super::regs::{
    COUNTER_32_MAX, CYCLE_COUNTER_BIT, EVENT_COUNTER_BITS, PMCR_EL0, PMEVTYPER_EL0, field_bits,
};
use super::snapshot::SLOTS;
pub use super::snapshot::Snapshot;

/// The PMU driver.
///
/// ```
/// use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
/// let cpu = EmulatedPmu::qemu_cortex_a57();
/// let mut pmu = Pmu::new(&cpu).unwrap();
/// let insts = pmu.program(Event::INST_RETIRED).unwrap();
/// pmu.start().unwrap();
/// cpu.count(Event::INST_RETIRED.number(), 42);
/// pmu.stop().unwrap();
/// assert_eq!(pmu.read(insts).unwrap(), 42);
/// ```
#[derive(Debug)]
pub struct Pmu<B: PmuBackend> {
    backend: B,
    info: PmuInfo,
    /// Event programmed on each counter slot.
    programmed: [Option<Event>; SLOTS],
    /// Software extension: per counter slot, the 2^32 wraps of a 32-bit counter taken so far.
    wraps: Wraps,
    /// PMCR bits the driver keeps set (LC, and LP on PMUv3p5+).
    pmcr_base: u64,
    /// Filter bits for PMEVTYPER/PMCCFILTR: NSH when running at EL2 (as Linux does with VHE).
    pub(super) filter: u64,
    /// Programmed counters, bit = [`Counter::index`].
    mask: u32,
    /// Counters that are 32 bits wide and need the software extension (unless chained).
    narrow_bits: u32,
    /// Chained pairs, bit = the even counter (its odd partner counts CHAIN).
    pub(super) pairs: u32,
}

/// The software extension of each counter slot, as a number of 2^32 wraps (2^32 wraps of 2^32
/// cover 64 bits). 32 bits per slot and eight-byte aligned: a [`CounterGroup`] copies six of
/// them with two loads and two stores.
///
/// [`CounterGroup`]: super::CounterGroup
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(8))]
pub(super) struct Wraps(pub(super) [u32; SLOTS]);

const PMCR_E: u64 = field_bits(PMCR_EL0::E);
const PMCR_P: u64 = field_bits(PMCR_EL0::P);
const PMCR_C: u64 = field_bits(PMCR_EL0::C);
const PMCR_LC: u64 = field_bits(PMCR_EL0::LC);
const PMCR_LP: u64 = field_bits(PMCR_EL0::LP);
const FILTER_NSH: u64 = field_bits(PMEVTYPER_EL0::NSH);
/// One wrap of a 32-bit counter: the unit of the software extension.
const NARROW_WRAP: u64 = COUNTER_32_MAX + 1;

impl<B: PmuBackend> Pmu<B> {
    /// Detects the PMU and resets it: all counters disabled, interrupts off, overflow flags
    /// cleared, counters zeroed, PMCR = P|C|LC (+LP on PMUv3p5), counting stopped.
    pub fn new(backend: B) -> Result<Self, Error> {
        let info = detect(&backend)?;
        let pmcr_base = PMCR_LC | if info.long_event_counters { PMCR_LP } else { 0 };
        let filter = if backend.current_el() == ExceptionLevel::El2 {
            FILTER_NSH
        } else {
            0
        };
        let event_bits = if info.long_event_counters {
            0
        } else {
            EVENT_COUNTER_BITS as u32
        };
        let cycle_bit = if pmcr_base & PMCR_LC != 0 {
            0
        } else {
            1 << CYCLE_COUNTER_BIT
        };
        let mut pmu = Self {
            backend,
            info,
            programmed: [None; SLOTS],
            wraps: Wraps([0; SLOTS]),
            pmcr_base,
            filter,
            mask: 0,
            narrow_bits: event_bits | cycle_bit,
            pairs: 0,
        };
        pmu.reset()?;
        Ok(pmu)
    }

    /// What detection found.
    pub fn info(&self) -> &PmuInfo {
        &self.info
    }

    /// The back end.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// Gives the back end back.
    pub fn into_backend(self) -> B {
        self.backend
    }

    /// Linux's reset order: PMCNTENCLR = all, PMINTENCLR = all, isb, PMOVSCLR = all, isb,
    /// PMCR = P|C|LC (+LP). Forgets every programmed counter.
    pub fn reset(&mut self) -> Result<(), Error> {
        let b = &self.backend;
        b.write(PmuRegister::CntenClr, u64::from(u32::MAX))?;
        b.write(PmuRegister::IntenClr, u64::from(u32::MAX))?;
        b.isb();
        b.write(PmuRegister::OvsClr, u64::from(u32::MAX))?;
        b.isb();
        b.write(PmuRegister::Pmcr, self.pmcr_base | PMCR_P | PMCR_C)?;
        b.isb();
        self.programmed = [None; SLOTS];
        self.wraps = Wraps([0; SLOTS]);
        self.mask = 0;
        self.pairs = 0;
        Ok(())
    }

    /// Programs `event` on a free counter: CPU_CYCLES on PMCCNTR (or an event counter when
    /// PMCCNTR is taken), any other event on the lowest free PMEVCNTR&lt;n&gt;. The counter starts at
    /// 0 and counts while the PMU is [started](Self::start).
    pub fn program(&mut self, event: Event) -> Result<Counter, Error> {
        self.check_implemented(event)?;
        if event == Event::CPU_CYCLES && self.slot(Counter::Cycle).is_none() {
            self.enable_counter(Counter::Cycle, event, false)?;
            return Ok(Counter::Cycle);
        }
        let free = (0..self.info.counters)
            .map(Counter::Event)
            .find(|c| self.slot(*c).is_none())
            .ok_or(Error::NoFreeCounter)?;
        self.enable_counter(free, event, false)?;
        Ok(free)
    }

    /// Programs `event` on the given counter (`Counter::Cycle` only takes CPU_CYCLES).
    /// `interrupt` also sets its PMINTENSET bit (overflow interrupt).
    pub fn program_on(
        &mut self,
        counter: Counter,
        event: Event,
        interrupt: bool,
    ) -> Result<(), Error> {
        self.check_counter(counter)?;
        self.check_implemented(event)?;
        if counter == Counter::Cycle && event != Event::CPU_CYCLES {
            return Err(Error::EventNotImplemented(event));
        }
        if self.slot(counter).is_some() {
            return Err(Error::CounterBusy(counter));
        }
        self.enable_counter(counter, event, interrupt)
    }

    /// Stops and frees a counter: PMCNTENCLR, isb, PMINTENCLR, isb, PMOVSCLR, isb. The even
    /// counter of a chained pair frees the pair.
    pub fn release(&mut self, counter: Counter) -> Result<(), Error> {
        self.check_counter(counter)?;
        if self.slot(counter).is_none() {
            return Err(Error::NotProgrammed(counter));
        }
        self.check_not_upper_half(counter)?;
        if self.is_chained(counter) {
            return self.release_pair(counter);
        }
        let b = &self.backend;
        b.write(PmuRegister::CntenClr, counter.bit())?;
        b.isb();
        b.write(PmuRegister::IntenClr, counter.bit())?;
        b.isb();
        b.write(PmuRegister::OvsClr, counter.bit())?;
        b.isb();
        self.set_slot(counter, None);
        Ok(())
    }

    /// Stops `counter`, reads its final 64-bit count and frees it, in the order of perf's
    /// `armpmu_stop`: disabled first (PMCNTENCLR, isb), then the last read, so nothing counted
    /// after that read is lost; then as [`release`](Self::release). The even counter of a
    /// chained pair takes the pair.
    pub fn take(&mut self, counter: Counter) -> Result<u64, Error> {
        self.check_programmed(counter)?;
        self.check_not_upper_half(counter)?;
        self.backend.write(PmuRegister::CntenClr, counter.bit())?;
        self.backend.isb();
        let count = self.read(counter)?;
        self.release(counter)?;
        Ok(count)
    }

    /// The event a counter is programmed with.
    pub fn event_of(&self, counter: Counter) -> Option<Event> {
        self.slot(counter)
    }

    /// Starts counting (PMCR.E = 1).
    pub fn start(&mut self) -> Result<(), Error> {
        self.backend
            .write(PmuRegister::Pmcr, self.pmcr_base | PMCR_E)?;
        self.backend.isb();
        Ok(())
    }

    /// Stops counting (PMCR.E = 0).
    pub fn stop(&mut self) -> Result<(), Error> {
        self.backend.write(PmuRegister::Pmcr, self.pmcr_base)?;
        self.backend.isb();
        Ok(())
    }

    /// Whether counting is on (PMCR.E).
    pub fn is_running(&self) -> Result<bool, Error> {
        Ok(self.backend.read(PmuRegister::Pmcr)? & PMCR_E != 0)
    }

    /// Zeroes all counters (PMCR.P and C, keeping E) and their overflow state.
    pub fn reset_counts(&mut self) -> Result<(), Error> {
        let running = self.backend.read(PmuRegister::Pmcr)? & PMCR_E;
        self.backend.write(
            PmuRegister::Pmcr,
            self.pmcr_base | running | PMCR_P | PMCR_C,
        )?;
        self.backend.isb();
        self.backend
            .write(PmuRegister::OvsClr, self.programmed_mask())?;
        self.backend.isb();
        self.wraps = Wraps([0; SLOTS]);
        Ok(())
    }

    /// Sets a counter's 64-bit value (the hardware gets the low bits, the software extension
    /// the rest), clearing its overflow flag. Used to preload a counter near overflow.
    pub fn preload(&mut self, counter: Counter, value: u64) -> Result<(), Error> {
        self.check_programmed(counter)?;
        self.check_not_upper_half(counter)?;
        if self.is_chained(counter) {
            return self.preload_pair(counter, value);
        }
        let narrow = self.is_narrow(counter);
        let hw = if narrow {
            value & (NARROW_WRAP - 1)
        } else {
            value
        };
        self.backend.write(PmuRegister::OvsClr, counter.bit())?;
        self.backend.write(counter.register(), hw)?;
        self.backend.isb();
        self.set_high(counter, value - hw);
        Ok(())
    }

    /// The raw PMOVSSET_EL0 value (overflow flags not yet taken into the 64-bit counts).
    pub fn overflow_flags(&self) -> Result<u64, Error> {
        Ok(self.backend.read(PmuRegister::OvsSet)?)
    }

    /// Reads one counter as a 64-bit count.
    pub fn read(&mut self, counter: Counter) -> Result<u64, Error> {
        self.check_programmed(counter)?;
        self.check_not_upper_half(counter)?;
        if self.is_chained(counter) {
            self.backend.isb();
            return self.read_pair(counter);
        }
        self.backend.isb();
        let raw = self.backend.read(counter.register())?;
        if !self.is_narrow(counter) {
            return Ok(raw);
        }
        let flags = self.backend.read(PmuRegister::OvsSet)?;
        let raw = if flags & counter.bit() != 0 {
            self.take_overflows(counter.bit())?;
            self.backend.read(counter.register())?
        } else {
            raw
        };
        Ok(self.high_of(counter).wrapping_add(raw & (NARROW_WRAP - 1)))
    }

    /// Reads every programmed counter.
    pub fn snapshot(&mut self) -> Result<Snapshot, Error> {
        let mut snap = Snapshot::new();
        self.snapshot_into(&mut snap)?;
        Ok(snap)
    }

    /// Reads every programmed counter into `snap` (replacing its contents); avoids returning
    /// the snapshot by value on the hot path.
    pub fn snapshot_into(&mut self, snap: &mut Snapshot) -> Result<(), Error> {
        snap.present = 0;
        self.backend.isb();
        // The odd counter of a pair is read with the even one, as the pair's upper half.
        let mut pending = self.mask & !(self.pairs << 1);
        while pending != 0 {
            let i = pending.trailing_zeros();
            pending &= pending - 1;
            let counter = Counter::from_index(i);
            let value = if self.pairs & 1 << i != 0 {
                self.read_pair(counter)?
            } else {
                let raw = self.backend.read(counter.register())?;
                self.extend(counter, raw)
            };
            let event = self.slot(counter).unwrap_or(Event::SW_INCR);
            if let (Some(e), Some(c)) = (
                snap.events.get_mut(i as usize),
                snap.counts.get_mut(i as usize),
            ) {
                *e = event;
                *c = value;
            }
        }
        snap.present = self.mask & !(self.pairs << 1);
        let narrow = self.mask & self.narrow_bits & !self.pair_bits();
        if narrow == 0 {
            return Ok(());
        }
        // A counter that wrapped before or after it was read has its flag set here: the flag
        // goes into the software extension and the counter is read again (rare path).
        let flags = self.backend.read(PmuRegister::OvsSet)? & u64::from(narrow);
        if flags == 0 {
            return Ok(());
        }
        self.take_overflows(flags)?;
        let mut pending = flags;
        while pending != 0 {
            let counter = Counter::from_index(pending.trailing_zeros());
            pending &= pending - 1;
            let raw = self.backend.read(counter.register())?;
            let value = self.extend(counter, raw);
            if let Some(c) = snap.counts.get_mut(counter.index() as usize) {
                *c = value;
            }
        }
        Ok(())
    }

    /// A raw counter value as a 64-bit count: the software extension plus the low 32 bits for
    /// 32-bit counters, the value itself for 64-bit ones.
    fn extend(&self, counter: Counter, raw: u64) -> u64 {
        if self.is_narrow(counter) {
            self.high_of(counter).wrapping_add(raw & (NARROW_WRAP - 1))
        } else {
            raw
        }
    }

    /// Takes pending overflow flags of programmed 32-bit counters into the software extension
    /// (call it from the PMU overflow interrupt handler; clearing the flags lowers the line).
    /// Returns the flags that were taken.
    pub fn service_overflow(&mut self) -> Result<u64, Error> {
        let flags = self.backend.read(PmuRegister::OvsSet)? & self.programmed_mask();
        if flags != 0 {
            self.take_overflows(flags)?;
        }
        Ok(flags)
    }

    pub(super) fn take_overflows(&mut self, flags: u64) -> Result<(), Error> {
        self.backend.write(PmuRegister::OvsClr, flags)?;
        self.backend.isb();
        // A chained pair carries its even counter's wraps in the odd counter, and the odd
        // counter's wrap is the pair's 2^64 one: neither goes into the software extension.
        let mut pending = flags & u64::from(self.narrow_bits & !self.pair_bits());
        while pending != 0 {
            let counter = Counter::from_index(pending.trailing_zeros());
            pending &= pending - 1;
            self.add_wrap(counter);
        }
        Ok(())
    }

    /// Linux's enable order: PMCNTENCLR bit, isb, PMEVTYPER/PMCCFILTR, (PMINTENSET), isb,
    /// PMCNTENSET bit.
    pub(super) fn enable_counter(
        &mut self,
        counter: Counter,
        event: Event,
        interrupt: bool,
    ) -> Result<(), Error> {
        let b = &self.backend;
        b.write(PmuRegister::CntenClr, counter.bit())?;
        b.isb();
        match counter {
            Counter::Cycle => b.write(PmuRegister::Ccfiltr, self.filter)?,
            Counter::Event(n) => b.write(
                PmuRegister::EvTyper(n),
                self.filter | u64::from(event.number()),
            )?,
        }
        b.write(PmuRegister::OvsClr, counter.bit())?;
        b.write(counter.register(), 0)?;
        if interrupt {
            b.write(PmuRegister::IntenSet, counter.bit())?;
        }
        b.isb();
        b.write(PmuRegister::CntenSet, counter.bit())?;
        self.set_slot(counter, Some(event));
        self.set_high(counter, 0);
        Ok(())
    }

    pub(super) fn check_implemented(&self, event: Event) -> Result<(), Error> {
        // CPU_CYCLES is always countable on PMCCNTR; PMCEID says nothing about
        // IMPLEMENTATION DEFINED events, which are taken on trust as long as their number
        // fits the event field.
        if event != Event::CPU_CYCLES && event.is_common() && !self.info.events.contains(event) {
            return Err(Error::EventNotImplemented(event));
        }
        let bits = self.info.version.event_bits();
        if u32::from(event.number()) >> bits != 0 {
            return Err(Error::EventTooWide { event, bits });
        }
        Ok(())
    }

    pub(super) fn check_counter(&self, counter: Counter) -> Result<(), Error> {
        match counter {
            Counter::Event(n) if n >= self.info.counters => Err(Error::CounterOutOfRange(n)),
            _ => Ok(()),
        }
    }

    pub(super) fn check_programmed(&self, counter: Counter) -> Result<(), Error> {
        self.check_counter(counter)?;
        if self.slot(counter).is_none() {
            return Err(Error::NotProgrammed(counter));
        }
        Ok(())
    }

    pub(super) fn is_narrow(&self, counter: Counter) -> bool {
        u64::from(self.narrow_bits & !self.pair_bits()) & counter.bit() != 0
    }

    pub(super) fn programmed_mask(&self) -> u64 {
        u64::from(self.mask)
    }

    pub(super) fn slot(&self, counter: Counter) -> Option<Event> {
        self.programmed
            .get(counter.index() as usize)
            .copied()
            .flatten()
    }
    pub(super) fn set_slot(&mut self, counter: Counter, event: Option<Event>) {
        if let Some(s) = self.programmed.get_mut(counter.index() as usize) {
            *s = event;
            // The slot exists, so the index is < 32 and the bit fits.
            let bit = counter.bit() as u32;
            self.mask = if event.is_some() {
                self.mask | bit
            } else {
                self.mask & !bit
            };
        }
    }
    /// The software extension of every counter slot, in 2^32 wraps (0 for 64-bit counters),
    /// indexed by [`Counter::index`].
    pub(super) fn wraps(&self) -> &[u32; SLOTS] {
        &self.wraps.0
    }
    /// The software extension of `counter`: its wraps times 2^32.
    fn high_of(&self, counter: Counter) -> u64 {
        let wraps = self.wraps.0.get(counter.index() as usize).copied();
        u64::from(wraps.unwrap_or(0)) << 32
    }
    /// Sets the software extension of `counter` to `value`, a multiple of 2^32.
    pub(super) fn set_high(&mut self, counter: Counter, value: u64) {
        if let Some(wraps) = self.wraps.0.get_mut(counter.index() as usize) {
            *wraps = (value >> 32) as u32;
        }
    }
    fn add_wrap(&mut self, counter: Counter) {
        if let Some(wraps) = self.wraps.0.get_mut(counter.index() as usize) {
            *wraps = wraps.wrapping_add(1);
        }
    }
}
