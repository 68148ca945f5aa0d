//! The PMU driver, generic over a [`PmuBackend`]: detection, counter programming in the order
//! Linux's arm_pmuv3 driver uses, start/stop/reset, and 64-bit counts from 32-bit counters.

use core::fmt;

use tock_registers::LocalRegisterCopy;

use super::backend::{AccessError, ExceptionLevel, PmuBackend, PmuRegister};
use super::event::{Event, EventSet};
use super::info::{CpuId, PmuVersion, decode_midr};
use super::regs::{CYCLE_COUNTER_BIT, MAX_EVENT_COUNTERS, PMCR_EL0};

/// What [`detect`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PmuInfo {
    /// ID_AA64DFR0_EL1.PMUVer.
    pub version: PmuVersion,
    /// PMCR_EL0.N: number of event counters.
    pub counters: u8,
    /// Implemented common events (PMCEID0/1).
    pub events: EventSet,
    /// PMCR_EL0.IMP.
    pub implementer: u8,
    /// PMCR_EL0.IDCODE.
    pub idcode: u8,
    /// MIDR_EL1, decoded.
    pub cpu: CpuId,
    /// 64-bit event counters, PMCR.LP (FEAT_PMUv3p5).
    pub long_event_counters: bool,
    /// Freeze on overflow, PMCR.FZO (FEAT_PMUv3p7).
    pub freeze_on_overflow: bool,
    /// PMICNTR_EL0 (FEAT_PMUv3_ICNTR, ID_AA64DFR1_EL1.PMICNTR).
    pub instruction_counter: bool,
}

/// Driver errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// No usable PMUv3 (PMUVer is 0 or 0xF).
    NoPmu(PmuVersion),
    /// PMCEID says the PMU does not implement this common event.
    EventNotImplemented(Event),
    /// Every suitable counter is in use.
    NoFreeCounter,
    /// Event counter index >= PMCR.N.
    CounterOutOfRange(u8),
    /// The counter is not programmed.
    NotProgrammed(Counter),
    /// The counter is already programmed.
    CounterBusy(Counter),
    /// A register access the CPU would trap.
    Access(AccessError),
}

impl From<AccessError> for Error {
    fn from(e: AccessError) -> Self {
        Self::Access(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoPmu(v) => write!(f, "no usable PMUv3 (PMUVer: {v})"),
            Self::EventNotImplemented(e) => write!(f, "event {e} is not implemented by this PMU"),
            Self::NoFreeCounter => f.write_str("no free PMU counter"),
            Self::CounterOutOfRange(n) => {
                write!(f, "event counter {n} does not exist (n >= PMCR.N)")
            }
            Self::NotProgrammed(c) => write!(f, "{c} is not programmed"),
            Self::CounterBusy(c) => write!(f, "{c} is already programmed"),
            Self::Access(e) => write!(f, "PMU register access: {e}"),
        }
    }
}

/// A hardware counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Counter {
    /// PMCCNTR_EL0 (counts CPU_CYCLES).
    Cycle,
    /// PMEVCNTR<n>_EL0.
    Event(u8),
}

impl Counter {
    /// Bit in PMCNTEN/PMOVS/PMINTEN, and slot in a [`Snapshot`].
    pub const fn index(self) -> u32 {
        match self {
            Self::Cycle => CYCLE_COUNTER_BIT,
            Self::Event(n) => n as u32,
        }
    }
    const fn from_index(i: u32) -> Self {
        if i == CYCLE_COUNTER_BIT {
            Self::Cycle
        } else {
            Self::Event(i as u8)
        }
    }
    const fn register(self) -> PmuRegister {
        match self {
            Self::Cycle => PmuRegister::Ccntr,
            Self::Event(n) => PmuRegister::EvCntr(n),
        }
    }
    const fn bit(self) -> u64 {
        1u64 << self.index()
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cycle => f.write_str("PMCCNTR_EL0"),
            Self::Event(n) => write!(f, "PMEVCNTR{n}_EL0"),
        }
    }
}

/// Probes the PMU the way Linux does: PMUVer from ID_AA64DFR0_EL1 (0 or 0xF: no usable PMU),
/// N, IMP and IDCODE from PMCR_EL0, implemented events from PMCEID0/1_EL0.
pub fn detect<B: PmuBackend>(backend: &B) -> Result<PmuInfo, Error> {
    let version = PmuVersion::from_id_aa64dfr0(backend.id_aa64dfr0());
    if !version.is_pmuv3() {
        return Err(Error::NoPmu(version));
    }
    let pmcr: LocalRegisterCopy<u64, PMCR_EL0::Register> =
        LocalRegisterCopy::new(backend.read(PmuRegister::Pmcr)?);
    let events = EventSet::from_pmceid(
        backend.read(PmuRegister::Ceid0)?,
        backend.read(PmuRegister::Ceid1)?,
    );
    let counters = (pmcr.read(PMCR_EL0::N) as u8).min(MAX_EVENT_COUNTERS);
    Ok(PmuInfo {
        version,
        counters,
        events,
        implementer: pmcr.read(PMCR_EL0::IMP) as u8,
        idcode: pmcr.read(PMCR_EL0::IDCODE) as u8,
        cpu: decode_midr(backend.midr()),
        long_event_counters: version.at_least(PmuVersion::V3p5),
        freeze_on_overflow: version.at_least(PmuVersion::V3p7),
        instruction_counter: (backend.id_aa64dfr1() >> 36) & 0xF != 0,
    })
}

/// Number of counter slots in a [`Snapshot`]: 31 event counters and the cycle counter.
const SLOTS: usize = 32;

/// Counter values read at one moment, indexed by [`Counter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    present: u32,
    events: [Event; SLOTS],
    counts: [u64; SLOTS],
}

impl Default for Snapshot {
    fn default() -> Self {
        Self::new()
    }
}

impl Snapshot {
    /// An empty snapshot.
    pub const fn new() -> Self {
        Self {
            present: 0,
            events: [Event::SW_INCR; SLOTS],
            counts: [0; SLOTS],
        }
    }
    /// Records `count` of `event` for `counter` (replacing an earlier entry).
    pub fn insert(&mut self, counter: Counter, event: Event, count: u64) {
        let i = counter.index() as usize;
        if let (Some(e), Some(c)) = (self.events.get_mut(i), self.counts.get_mut(i)) {
            *e = event;
            *c = count;
            self.present |= 1 << i;
        }
    }
    /// The count of `counter`, if present.
    pub fn get(&self, counter: Counter) -> Option<u64> {
        let i = counter.index();
        if self.present & (1 << i) == 0 {
            return None;
        }
        self.counts.get(i as usize).copied()
    }
    /// The count of the first counter (cycle counter first, then event counters) that counted
    /// `event`, if any.
    pub fn count_of(&self, event: Event) -> Option<u64> {
        self.iter().find(|(_, e, _)| *e == event).map(|(_, _, c)| c)
    }
    /// Number of counters present.
    pub const fn len(&self) -> u32 {
        self.present.count_ones()
    }
    /// Whether no counter is present.
    pub const fn is_empty(&self) -> bool {
        self.present == 0
    }
    /// `(counter, event, count)` for every counter present: the cycle counter first, then
    /// event counters in index order.
    pub fn iter(&self) -> impl Iterator<Item = (Counter, Event, u64)> + '_ {
        core::iter::once(CYCLE_COUNTER_BIT)
            .chain(0..u32::from(MAX_EVENT_COUNTERS))
            .filter(move |i| self.present & (1 << i) != 0)
            .filter_map(move |i| {
                let e = self.events.get(i as usize)?;
                let c = self.counts.get(i as usize)?;
                Some((Counter::from_index(i), *e, *c))
            })
    }
    /// `self - earlier` per counter present in both (and counting the same event): modular, so
    /// a 64-bit count that wrapped between the two snapshots still gives the right difference.
    pub fn delta(&self, earlier: &Snapshot) -> Snapshot {
        let mut out = Snapshot::new();
        for (counter, event, later) in self.iter() {
            let i = counter.index();
            let same_event = earlier.events.get(i as usize) == Some(&event);
            if earlier.present & (1 << i) != 0
                && same_event
                && let Some(before) = earlier.get(counter)
            {
                out.insert(counter, event, later.wrapping_sub(before));
            }
        }
        out
    }
}

/// The PMU driver.
///
/// ```
/// use pmprobe::pmu::{driver::Pmu, emulated::EmulatedPmu, event::Event};
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
    /// Software extension: counts above the hardware counter width (multiples of 2^32).
    high: [u64; SLOTS],
    /// PMCR bits the driver keeps set (LC, and LP on PMUv3p5+).
    pmcr_base: u64,
    /// Filter bits for PMEVTYPER/PMCCFILTR: NSH when running at EL2 (as Linux does with VHE).
    filter: u64,
}

const PMCR_E: u64 = 1 << 0;
const PMCR_P: u64 = 1 << 1;
const PMCR_C: u64 = 1 << 2;
const PMCR_LC: u64 = 1 << 6;
const PMCR_LP: u64 = 1 << 7;
const FILTER_NSH: u64 = 1 << 27;
const NARROW_WRAP: u64 = 1 << 32;

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
        let mut pmu = Self {
            backend,
            info,
            programmed: [None; SLOTS],
            high: [0; SLOTS],
            pmcr_base,
            filter,
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
        self.high = [0; SLOTS];
        Ok(())
    }

    /// Programs `event` on a free counter: CPU_CYCLES on PMCCNTR (or an event counter when
    /// PMCCNTR is taken), any other event on the lowest free PMEVCNTR<n>. The counter starts at
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

    /// Stops and frees a counter: PMCNTENCLR, isb, PMINTENCLR, isb, PMOVSCLR, isb.
    pub fn release(&mut self, counter: Counter) -> Result<(), Error> {
        self.check_counter(counter)?;
        if self.slot(counter).is_none() {
            return Err(Error::NotProgrammed(counter));
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
        self.high = [0; SLOTS];
        Ok(())
    }

    /// Sets a counter's 64-bit value (the hardware gets the low bits, the software extension
    /// the rest), clearing its overflow flag. Used to preload a counter near overflow.
    pub fn preload(&mut self, counter: Counter, value: u64) -> Result<(), Error> {
        self.check_programmed(counter)?;
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
        self.backend.isb();
        let mut narrow_mask = 0u64;
        for i in 0..SLOTS as u32 {
            let counter = Counter::from_index(i);
            if let Some(event) = self.slot(counter) {
                let raw = self.backend.read(counter.register())?;
                if self.is_narrow(counter) {
                    narrow_mask |= counter.bit();
                }
                snap.insert(counter, event, raw);
            }
        }
        if narrow_mask == 0 {
            return Ok(snap);
        }
        // A counter that wrapped after it was read still has its flag set here; it is read
        // again after the flag is taken into the software extension.
        let flags = self.backend.read(PmuRegister::OvsSet)? & narrow_mask;
        if flags != 0 {
            self.take_overflows(flags)?;
        }
        let first_pass = snap;
        for (counter, event, raw) in first_pass.iter() {
            if narrow_mask & counter.bit() == 0 {
                continue;
            }
            let raw = if flags & counter.bit() != 0 {
                self.backend.read(counter.register())?
            } else {
                raw
            };
            snap.insert(
                counter,
                event,
                self.high_of(counter).wrapping_add(raw & (NARROW_WRAP - 1)),
            );
        }
        Ok(snap)
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

    fn take_overflows(&mut self, flags: u64) -> Result<(), Error> {
        self.backend.write(PmuRegister::OvsClr, flags)?;
        self.backend.isb();
        for i in 0..SLOTS as u32 {
            let counter = Counter::from_index(i);
            if flags & counter.bit() != 0 && self.is_narrow(counter) {
                self.set_high(counter, self.high_of(counter).wrapping_add(NARROW_WRAP));
            }
        }
        Ok(())
    }

    /// Linux's enable order: PMCNTENCLR bit, isb, PMEVTYPER/PMCCFILTR, (PMINTENSET), isb,
    /// PMCNTENSET bit.
    fn enable_counter(
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

    fn check_implemented(&self, event: Event) -> Result<(), Error> {
        // CPU_CYCLES is always countable on PMCCNTR; PMCEID says nothing about
        // IMPLEMENTATION DEFINED events, which are taken on trust.
        if event == Event::CPU_CYCLES || !event.is_common() || self.info.events.contains(event) {
            Ok(())
        } else {
            Err(Error::EventNotImplemented(event))
        }
    }

    fn check_counter(&self, counter: Counter) -> Result<(), Error> {
        match counter {
            Counter::Event(n) if n >= self.info.counters => Err(Error::CounterOutOfRange(n)),
            _ => Ok(()),
        }
    }

    fn check_programmed(&self, counter: Counter) -> Result<(), Error> {
        self.check_counter(counter)?;
        if self.slot(counter).is_none() {
            return Err(Error::NotProgrammed(counter));
        }
        Ok(())
    }

    fn is_narrow(&self, counter: Counter) -> bool {
        match counter {
            Counter::Cycle => self.pmcr_base & PMCR_LC == 0,
            Counter::Event(_) => self.pmcr_base & PMCR_LP == 0,
        }
    }

    fn programmed_mask(&self) -> u64 {
        (0..SLOTS as u32)
            .filter(|&i| self.slot(Counter::from_index(i)).is_some())
            .fold(0, |m, i| m | 1 << i)
    }

    fn slot(&self, counter: Counter) -> Option<Event> {
        self.programmed
            .get(counter.index() as usize)
            .copied()
            .flatten()
    }
    fn set_slot(&mut self, counter: Counter, event: Option<Event>) {
        if let Some(s) = self.programmed.get_mut(counter.index() as usize) {
            *s = event;
        }
    }
    fn high_of(&self, counter: Counter) -> u64 {
        self.high
            .get(counter.index() as usize)
            .copied()
            .unwrap_or(0)
    }
    fn set_high(&mut self, counter: Counter, value: u64) {
        if let Some(h) = self.high.get_mut(counter.index() as usize) {
            *h = value;
        }
    }
}
