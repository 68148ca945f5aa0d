//! An emulated PMUv3: a software model of the architecture behind the [`PmuBackend`] trait.
//!
//! The model follows the Arm ARM: write-1-to-set/clear enables, overflow flags and interrupt
//! enables; PMCR.P/C reset the counters and read as 0; counters and bits for m >= N are RAZ/WI;
//! PMSELR indirection (SEL = 31 reaches PMCCFILTR); PMCR.E and PMCNTEN gate counting; 32-bit
//! overflow at bit 31 or 64-bit with PMCR.LP (event counters, FEAT_PMUv3p5) and PMCR.LC (cycle
//! counter); PMCR.D divides the cycle counter by 64 unless LC; PMCR.FZO (FEAT_PMUv3p7) freezes
//! the event counters while an event counter overflow flag is set; EL filters of PMEVTYPER /
//! PMCCFILTR / PMICFILTR against the current EL (Non-secure state, no EL3, as on QEMU `virt`);
//! PMUSERENR gates EL0 accesses; SW_INCR counts PMSWINC writes; CHAIN (an odd counter counts
//! the 32-bit overflows of the even counter below it, see `chain.rs`); an overflow interrupt
//! line.
//!
//! Events come from outside: [`EmulatedPmu::count`] for an event happening `n` times,
//! [`EmulatedPmu::tick_cycles`] for the clock, and [`EventInput`]s, one event's wire into the
//! PMU, for producers that feed an event often: counts fed through an input are applied
//! lazily, yet every register read, the overflow flags and the interrupt line see them as if
//! each occurrence had been counted on arrival (see [`EventInput`]). State lives in `Cell`s so
//! that the register accesses take `&self`, like real system registers.
#![forbid(unsafe_code)]

mod chain;
mod config;
mod fields;
mod input_slots;
mod inputs;
mod overflow;
mod state;

use core::cell::Cell;

use super::backend::el0_access_check;
use super::backend::{AccessError, ExceptionLevel, PmuBackend, PmuRegister, RegisterAccess};
use super::event::{Event, EventSet};
use super::regs::{
    COUNTER_32_MAX, CYCLE_COUNTER_BIT, FILTER_MASK, ID_AA64DFR0_EL1, ID_AA64DFR1_EL1,
    INSTRUCTION_COUNTER_BIT, MAX_EVENT_COUNTERS, PMCR_EL0, SEL_CYCLE_COUNTER, USERENR_MASK,
};

pub use config::EmulatedConfig;
pub use input_slots::EVENT_INPUTS;
pub use inputs::{EventInput, EventInputsFull};
pub use state::EmulatedPmu;

use fields::{EVTCOUNT, SEL, filter, pmcr};
use input_slots::Inputs;
use overflow::{advance, steps_to_overflow};

impl EmulatedPmu {
    /// A PMU in its reset state (counters 0, all disabled) running at EL1.
    pub fn new(config: EmulatedConfig) -> Self {
        Self {
            config,
            el: Cell::new(ExceptionLevel::El1),
            pmcr: Cell::new(0),
            cnten: Cell::new(0),
            ovs: Cell::new(0),
            inten: Cell::new(0),
            selr: Cell::new(0),
            userenr: Cell::new(0),
            evtyper: [const { Cell::new(0) }; 31],
            evcntr: [const { Cell::new(0) }; 31],
            ccntr: Cell::new(0),
            ccfiltr: Cell::new(0),
            icntr: Cell::new(0),
            icfiltr: Cell::new(0),
            prescale: Cell::new(0),
            inputs: Inputs::new(),
        }
    }

    /// The emulated QEMU cortex-a57 PMU ([`EmulatedConfig::qemu_cortex_a57`]).
    pub fn qemu_cortex_a57() -> Self {
        Self::new(EmulatedConfig::qemu_cortex_a57())
    }

    /// The emulated Neoverse-V1-like PMU ([`EmulatedConfig::neoverse_v1_like`]).
    pub fn neoverse_v1_like() -> Self {
        Self::new(EmulatedConfig::neoverse_v1_like())
    }

    /// The configuration.
    pub fn config(&self) -> &EmulatedConfig {
        &self.config
    }

    /// Sets the Exception level that following accesses and events happen at. Counts held
    /// back by the event inputs happened at the previous level and are applied first.
    pub fn set_el(&self, el: ExceptionLevel) {
        if el == self.el.get() {
            return;
        }
        self.apply_pending();
        self.el.set(el);
        self.rearm_inputs();
    }

    /// The overflow interrupt request: PMCR.E && (PMINTEN & PMOVS) != 0. Exact at every
    /// moment: an event input applies its counts when an overflow falls due.
    pub fn irq_line(&self) -> bool {
        self.pmcr.get() & pmcr::E != 0 && self.inten.get() & self.ovs.get() != 0
    }

    /// Whether some enabled counter (with PMCR.E set) is programmed with `event`: event counters
    /// by their PMEVTYPER.evtCount, the cycle counter for CPU_CYCLES and the instruction counter
    /// for INST_RETIRED. EL filters are not considered.
    pub fn is_counting(&self, event: u16) -> bool {
        if self.pmcr.get() & pmcr::E == 0 {
            return false;
        }
        let cnten = self.cnten.get();
        if event == Event::CPU_CYCLES.number() && cnten & (1 << CYCLE_COUNTER_BIT) != 0 {
            return true;
        }
        if event == Event::INST_RETIRED.number()
            && self.config.instruction_counter
            && cnten & (1 << INSTRUCTION_COUNTER_BIT) != 0
        {
            return true;
        }
        (0..self.config.n())
            .any(|i| cnten & (1 << i) != 0 && self.evtyper_of(i) & EVTCOUNT == u64::from(event))
    }

    /// `event` happened `n` times at the current EL: every enabled event counter programmed
    /// with it (and not filtered out or frozen) advances by `n`. A common event the
    /// configuration does not implement (PMCEID) never counts. CPU_CYCLES is the clock, see
    /// [`tick_cycles`](Self::tick_cycles); SW_INCR only counts PMSWINC writes and CHAIN only
    /// the overflows of an even counter, so feeding either here has no effect, as on hardware. INST_RETIRED also advances PMICNTR when implemented.
    ///
    /// When an [`EventInput`] of `event` exists, the count goes through it (lazily).
    pub fn count(&self, event: u16, n: u64) {
        match self.input_of(event) {
            Some(input) => input.add(n),
            None => {
                // Counts held back happened before this one.
                self.apply_pending();
                self.count_now(event, n);
                self.rearm_inputs();
            }
        }
    }

    /// `n` clock cycles at the current EL: PMCCNTR (divided by 64 when PMCR.D and not LC) and
    /// the event counters programmed with CPU_CYCLES advance. The same as
    /// [`count`](Self::count) of CPU_CYCLES.
    pub fn tick_cycles(&self, n: u64) {
        self.count(Event::CPU_CYCLES.number(), n);
    }

    /// Counts `event` `n` times now, with nothing held back by the inputs of other events
    /// in between (the caller applied them).
    fn count_now(&self, event: u16, n: u64) {
        if event == Event::CPU_CYCLES.number() {
            self.tick_now(n);
        } else if event != Event::SW_INCR.number() && event != Event::CHAIN.number() {
            self.count_event_counters(event, n, u64::MAX);
            if event == Event::INST_RETIRED.number() {
                self.count_instruction_counter(n);
            }
        }
    }

    fn tick_now(&self, n: u64) {
        self.count_event_counters(Event::CPU_CYCLES.number(), n, u64::MAX);
        let pmcr = self.pmcr.get();
        if !self.enabled(CYCLE_COUNTER_BIT) || !self.filter_allows(self.ccfiltr.get()) {
            return;
        }
        let steps = if pmcr & pmcr::D != 0 && pmcr & pmcr::LC == 0 {
            let total = u128::from(self.prescale.get()) + u128::from(n);
            self.prescale.set((total % 64) as u64);
            (total / 64) as u64
        } else {
            n
        };
        let long = pmcr & pmcr::LC != 0;
        let (value, overflowed) = advance(self.ccntr.get(), steps, long);
        self.ccntr.set(value);
        if overflowed {
            self.ovs.set(self.ovs.get() | 1 << CYCLE_COUNTER_BIT);
        }
    }

    fn count_instruction_counter(&self, n: u64) {
        if !self.config.instruction_counter
            || !self.enabled(INSTRUCTION_COUNTER_BIT)
            || !self.filter_allows(self.icfiltr.get())
        {
            return;
        }
        let (value, overflowed) = advance(self.icntr.get(), n, true);
        self.icntr.set(value);
        if overflowed {
            self.ovs.set(self.ovs.get() | 1 << INSTRUCTION_COUNTER_BIT);
        }
    }

    /// Whether the configuration implements `event`: common events per PMCEID0/1 (a common
    /// event the PMU does not implement never counts), IMPLEMENTATION DEFINED ones always.
    fn implements(&self, event: u16) -> bool {
        let set = EventSet::from_pmceid(self.config.ceid0, self.config.ceid1);
        let e = Event::raw(event);
        !e.is_common() || set.contains(e)
    }

    /// Advances the event counters selected by `which` (bit mask) that count `event`.
    fn count_event_counters(&self, event: u16, n: u64, which: u64) {
        if n == 0 || self.frozen() || !self.implements(event) {
            return;
        }
        let long = self.long_event_counters_on();
        let matching = |i: u8| which & (1 << i) != 0 && self.counts_event(i, event);
        // With FZO, counting stops at the first overflow: all counters of this event advance
        // together until the one closest to overflowing wraps.
        let mut steps = n;
        if self.pmcr.get() & pmcr::FZO != 0 {
            for i in (0..self.config.n()).filter(|&i| matching(i)) {
                steps = steps.min(steps_to_overflow(self.evcntr_of(i), long));
            }
        }
        for i in (0..self.config.n()).filter(|&i| matching(i)) {
            let old = self.evcntr_of(i);
            let (value, overflowed) = advance(old, steps, long);
            let value = if self.config.long_event_counters {
                value
            } else {
                value & COUNTER_32_MAX
            };
            self.set_evcntr(i, value);
            if overflowed {
                self.ovs.set(self.ovs.get() | 1 << i);
                if !long {
                    self.chain_wraps(i, chain::wraps_32(old, steps));
                }
            }
        }
    }

    /// Whether event counter `i` counts `event` now (enabled, programmed with it, not
    /// filtered out at the current EL).
    fn counts_event(&self, i: u8, event: u16) -> bool {
        self.enabled(u32::from(i))
            && self.evtyper_of(i) & EVTCOUNT == u64::from(event)
            && self.filter_allows(self.evtyper_of(i))
    }

    fn frozen(&self) -> bool {
        let event_bits = (1u64 << self.config.n()) - 1;
        self.pmcr.get() & pmcr::FZO != 0 && self.ovs.get() & event_bits != 0
    }

    fn long_event_counters_on(&self) -> bool {
        self.config.long_event_counters && self.pmcr.get() & pmcr::LP != 0
    }

    fn enabled(&self, bit: u32) -> bool {
        self.pmcr.get() & pmcr::E != 0 && self.cnten.get() & (1u64 << bit) != 0
    }

    /// EL filtering in Non-secure state without EL3: P excludes EL1, U excludes EL0, NSH
    /// includes EL2.
    fn filter_allows(&self, filter_bits: u64) -> bool {
        match self.el.get() {
            ExceptionLevel::El0 => filter_bits & filter::U == 0,
            ExceptionLevel::El1 => filter_bits & filter::P == 0,
            ExceptionLevel::El2 => self.config.el2 && filter_bits & filter::NSH != 0,
            ExceptionLevel::El3 => false,
        }
    }

    fn evtyper_of(&self, i: u8) -> u64 {
        self.evtyper.get(usize::from(i)).map_or(0, Cell::get)
    }
    fn evcntr_of(&self, i: u8) -> u64 {
        self.evcntr.get(usize::from(i)).map_or(0, Cell::get)
    }
    fn set_evcntr(&self, i: u8, v: u64) {
        if let Some(c) = self.evcntr.get(usize::from(i)) {
            c.set(v);
        }
    }

    fn implemented_counter(&self, i: u8) -> bool {
        i < self.config.n()
    }

    fn evtyper_mask(&self) -> u64 {
        FILTER_MASK | self.config.evtcount_mask()
    }

    fn read_raw(&self, register: PmuRegister) -> Result<u64, AccessError> {
        let mask = self.config.counter_mask();
        Ok(match register {
            PmuRegister::Pmcr => {
                let identity = PMCR_EL0::N.val(u64::from(self.config.n()))
                    + PMCR_EL0::IDCODE.val(u64::from(self.config.idcode))
                    + PMCR_EL0::IMP.val(u64::from(self.config.implementer));
                self.pmcr.get() | identity.value
            }
            PmuRegister::CntenSet | PmuRegister::CntenClr => self.cnten.get() & mask,
            PmuRegister::OvsSet | PmuRegister::OvsClr => self.ovs.get() & mask,
            PmuRegister::IntenSet | PmuRegister::IntenClr => self.inten.get() & mask,
            PmuRegister::Swinc => return Err(AccessError::WriteOnly(register)),
            PmuRegister::Selr => self.selr.get(),
            PmuRegister::XevTyper => match self.selected() {
                Selected::Counter(i) => self.evtyper_of(i),
                Selected::CycleFilter => self.ccfiltr.get(),
                Selected::Nothing => 0,
            },
            PmuRegister::XevCntr => match self.selected() {
                Selected::Counter(i) => self.evcntr_of(i),
                _ => 0,
            },
            PmuRegister::EvTyper(i) | PmuRegister::EvCntr(i) if i >= MAX_EVENT_COUNTERS => {
                return Err(AccessError::NoSuchRegister(register));
            }
            PmuRegister::EvTyper(i) if self.implemented_counter(i) => self.evtyper_of(i),
            PmuRegister::EvCntr(i) if self.implemented_counter(i) => self.evcntr_of(i),
            PmuRegister::EvTyper(_) | PmuRegister::EvCntr(_) => 0,
            PmuRegister::Ccntr => self.ccntr.get(),
            PmuRegister::Ccfiltr => self.ccfiltr.get(),
            PmuRegister::Userenr => self.userenr.get(),
            PmuRegister::Ceid0 => self.config.ceid0,
            PmuRegister::Ceid1 => self.config.ceid1,
            PmuRegister::Icntr | PmuRegister::Icfiltr if !self.config.instruction_counter => {
                return Err(AccessError::NotImplemented(register));
            }
            PmuRegister::Icntr => self.icntr.get(),
            PmuRegister::Icfiltr => self.icfiltr.get() | u64::from(Event::INST_RETIRED.number()),
        })
    }

    fn write_raw(&self, register: PmuRegister, value: u64) -> Result<(), AccessError> {
        let mask = self.config.counter_mask();
        match register {
            PmuRegister::Pmcr => {
                if value & pmcr::P != 0 {
                    for i in 0..self.config.n() {
                        self.set_evcntr(i, 0);
                    }
                    if self.config.instruction_counter {
                        self.icntr.set(0);
                    }
                }
                if value & pmcr::C != 0 {
                    self.ccntr.set(0);
                    self.prescale.set(0);
                }
                self.pmcr.set(value & self.config.pmcr_writable());
            }
            PmuRegister::CntenSet => self.cnten.set(self.cnten.get() | (value & mask)),
            PmuRegister::CntenClr => self.cnten.set(self.cnten.get() & !(value & mask)),
            PmuRegister::OvsSet => self.ovs.set(self.ovs.get() | (value & mask)),
            PmuRegister::OvsClr => self.ovs.set(self.ovs.get() & !(value & mask)),
            PmuRegister::IntenSet => self.inten.set(self.inten.get() | (value & mask)),
            PmuRegister::IntenClr => self.inten.set(self.inten.get() & !(value & mask)),
            PmuRegister::Swinc => self.software_increment(value),
            PmuRegister::Selr => self.selr.set(value & SEL),
            PmuRegister::XevTyper => match self.selected() {
                Selected::Counter(i) => self.write_evtyper(i, value),
                Selected::CycleFilter => self.ccfiltr.set(value & FILTER_MASK),
                Selected::Nothing => {}
            },
            PmuRegister::XevCntr => {
                if let Selected::Counter(i) = self.selected() {
                    self.write_evcntr(i, value);
                }
            }
            PmuRegister::EvTyper(i) | PmuRegister::EvCntr(i) if i >= MAX_EVENT_COUNTERS => {
                return Err(AccessError::NoSuchRegister(register));
            }
            PmuRegister::EvTyper(i) => self.write_evtyper(i, value),
            PmuRegister::EvCntr(i) => self.write_evcntr(i, value),
            PmuRegister::Ccntr => self.ccntr.set(value),
            PmuRegister::Ccfiltr => self.ccfiltr.set(value & FILTER_MASK),
            PmuRegister::Userenr => self.userenr.set(value & USERENR_MASK),
            PmuRegister::Ceid0 | PmuRegister::Ceid1 => return Err(AccessError::ReadOnly(register)),
            PmuRegister::Icntr | PmuRegister::Icfiltr if !self.config.instruction_counter => {
                return Err(AccessError::NotImplemented(register));
            }
            PmuRegister::Icntr => self.icntr.set(value),
            PmuRegister::Icfiltr => self.icfiltr.set(value & FILTER_MASK),
        }
        Ok(())
    }

    fn write_evtyper(&self, i: u8, value: u64) {
        if self.implemented_counter(i)
            && let Some(c) = self.evtyper.get(usize::from(i))
        {
            c.set(value & self.evtyper_mask());
        }
    }

    fn write_evcntr(&self, i: u8, value: u64) {
        if self.implemented_counter(i) {
            let width_mask = if self.config.long_event_counters {
                u64::MAX
            } else {
                COUNTER_32_MAX
            };
            self.set_evcntr(i, value & width_mask);
        }
    }

    /// One PMSWINC write increments all the selected SW_INCR counters at once.
    fn software_increment(&self, value: u64) {
        self.count_event_counters(Event::SW_INCR.number(), 1, value);
    }

    fn selected(&self) -> Selected {
        let sel = (self.selr.get() & SEL) as u8;
        if sel == SEL_CYCLE_COUNTER {
            Selected::CycleFilter
        } else if self.implemented_counter(sel) {
            Selected::Counter(sel)
        } else {
            Selected::Nothing
        }
    }
}

enum Selected {
    Counter(u8),
    CycleFilter,
    Nothing,
}

impl PmuBackend for EmulatedPmu {
    /// Reads see every count fed so far: the inputs apply what they hold back first.
    fn read(&self, register: PmuRegister) -> Result<u64, AccessError> {
        el0_access_check(
            self.el.get(),
            self.userenr.get(),
            register,
            RegisterAccess::Read,
        )?;
        self.apply_pending();
        self.read_raw(register)
    }

    /// Counts fed before a write are applied under the state before it; the inputs' budgets
    /// are recomputed after it.
    fn write(&self, register: PmuRegister, value: u64) -> Result<(), AccessError> {
        el0_access_check(
            self.el.get(),
            self.userenr.get(),
            register,
            RegisterAccess::Write,
        )?;
        self.apply_pending();
        let result = self.write_raw(register, value);
        self.rearm_inputs();
        result
    }

    fn current_el(&self) -> ExceptionLevel {
        self.el.get()
    }

    fn id_aa64dfr0(&self) -> u64 {
        ID_AA64DFR0_EL1::PMUVer
            .val(u64::from(self.config.pmu_version))
            .value
    }

    fn id_aa64dfr1(&self) -> u64 {
        ID_AA64DFR1_EL1::PMICNTR
            .val(u64::from(self.config.instruction_counter))
            .value
    }

    fn midr(&self) -> u64 {
        self.config.midr
    }
}
