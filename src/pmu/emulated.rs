//! An emulated PMUv3: a software model of the architecture behind the [`PmuBackend`] trait.
//!
//! The model follows the Arm ARM: write-1-to-set/clear enables, overflow flags and interrupt
//! enables; PMCR.P/C reset the counters and read as 0; counters and bits for m >= N are RAZ/WI;
//! PMSELR indirection (SEL = 31 reaches PMCCFILTR); PMCR.E and PMCNTEN gate counting; 32-bit
//! overflow at bit 31 or 64-bit with PMCR.LP (event counters, FEAT_PMUv3p5) and PMCR.LC (cycle
//! counter); PMCR.D divides the cycle counter by 64 unless LC; PMCR.FZO (FEAT_PMUv3p7) freezes
//! the event counters while an event counter overflow flag is set; EL filters of PMEVTYPER /
//! PMCCFILTR / PMICFILTR against the current EL (Non-secure state, no EL3, as on QEMU `virt`);
//! PMUSERENR gates EL0 accesses; SW_INCR counts PMSWINC writes; an overflow interrupt line.
//!
//! Events come from outside: [`EmulatedPmu::count`] for an event happening `n` times and
//! [`EmulatedPmu::tick_cycles`] for the clock. State lives in `Cell`s so that the register
//! accesses take `&self`, like real system registers.
#![forbid(unsafe_code)]

use core::cell::Cell;

use super::backend::el0_access_check;
use super::backend::{AccessError, ExceptionLevel, PmuBackend, PmuRegister, RegisterAccess};
use super::event::{Event, EventSet};
use super::regs::{
    COUNTER_32_MAX, CYCLE_COUNTER_BIT, FILTER_MASK, ID_AA64DFR0_EL1, ID_AA64DFR1_EL1,
    INSTRUCTION_COUNTER_BIT, MAX_EVENT_COUNTERS, PMCR_EL0, PMEVTYPER_EL0, PMSELR_EL0,
    SEL_CYCLE_COUNTER, USERENR_MASK, field_bits,
};

/// PMCR_EL0 bits used by the model.
mod pmcr {
    use crate::pmu::regs::{PMCR_EL0, field_bits};

    pub const E: u64 = field_bits(PMCR_EL0::E);
    pub const P: u64 = field_bits(PMCR_EL0::P);
    pub const C: u64 = field_bits(PMCR_EL0::C);
    pub const D: u64 = field_bits(PMCR_EL0::D);
    pub const X: u64 = field_bits(PMCR_EL0::X);
    pub const DP: u64 = field_bits(PMCR_EL0::DP);
    pub const LC: u64 = field_bits(PMCR_EL0::LC);
    pub const LP: u64 = field_bits(PMCR_EL0::LP);
    pub const FZO: u64 = field_bits(PMCR_EL0::FZO);
}

/// EL filter bits of PMEVTYPER / PMCCFILTR / PMICFILTR (one layout for all three).
mod filter {
    use crate::pmu::regs::{PMEVTYPER_EL0, field_bits};

    pub const P: u64 = field_bits(PMEVTYPER_EL0::P);
    pub const U: u64 = field_bits(PMEVTYPER_EL0::U);
    pub const NSH: u64 = field_bits(PMEVTYPER_EL0::NSH);
}

/// PMEVTYPER.evtCount: the event number of an event counter.
const EVTCOUNT: u64 = field_bits(PMEVTYPER_EL0::evtCount);
/// PMSELR.SEL.
const SEL: u64 = field_bits(PMSELR_EL0::SEL);

/// What the emulated PMU implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmulatedConfig {
    /// ID_AA64DFR0_EL1.PMUVer (1 = PMUv3, 4 = v3p1, 5 = v3p4, 6 = v3p5, 7 = v3p7, ...).
    pub pmu_version: u8,
    /// PMCR.N: number of event counters (0..=31; larger values are clamped to 31).
    pub counters: u8,
    /// PMCR.IMP.
    pub implementer: u8,
    /// PMCR.IDCODE.
    pub idcode: u8,
    /// MIDR_EL1 reported by the model.
    pub midr: u64,
    /// PMCEID0_EL0 (events 0x00..0x1F, and 0x4000..0x401F in the upper half).
    pub ceid0: u64,
    /// PMCEID1_EL0 (events 0x20..0x3F, and 0x4020..0x403F in the upper half).
    pub ceid1: u64,
    /// 64-bit event counters and PMCR.LP (FEAT_PMUv3p5).
    pub long_event_counters: bool,
    /// PMCR.FZO freeze-on-overflow (FEAT_PMUv3p7).
    pub freeze_on_overflow: bool,
    /// PMICNTR_EL0 / PMICFILTR_EL0 and the F0 bits (FEAT_PMUv3_ICNTR).
    pub instruction_counter: bool,
    /// EL2 is implemented (PMEVTYPER.NSH counts at EL2).
    pub el2: bool,
}

impl EmulatedConfig {
    /// What QEMU 7.2 reports for `-cpu cortex-a57`: PMUv3, N = 6, PMCR = 0x41013000,
    /// PMCEID0 = 0x20101 (SW_INCR, INST_RETIRED, CPU_CYCLES), PMCEID1 = 0.
    pub const fn qemu_cortex_a57() -> Self {
        Self {
            pmu_version: 1,
            counters: 6,
            implementer: 0x41,
            idcode: 0x01,
            midr: 0x411F_D070,
            ceid0: 0x2_0101,
            ceid1: 0,
            long_event_counters: false,
            freeze_on_overflow: false,
            instruction_counter: false,
            el2: true,
        }
    }

    /// A Neoverse-V1-like core: PMUv3p5 with the PMUv3p7 freeze-on-overflow, N = 6, the common
    /// events such a core implements (cache, TLB, branch, memory, stall events).
    pub const fn neoverse_v1_like() -> Self {
        Self {
            pmu_version: 7,
            counters: 6,
            implementer: 0x41,
            idcode: 0x40,
            midr: 0x410F_D402,
            // All of 0x00..=0x1F.
            ceid0: 0xFFFF_FFFF,
            // 0x20..=0x26, 0x29..=0x2B, 0x2D, 0x2F, 0x31, 0x34..=0x37, 0x39..=0x3F.
            ceid1: 0xFEF2_AE7F,
            long_event_counters: true,
            freeze_on_overflow: true,
            instruction_counter: false,
            el2: true,
        }
    }

    fn n(&self) -> u8 {
        if self.counters > MAX_EVENT_COUNTERS {
            MAX_EVENT_COUNTERS
        } else {
            self.counters
        }
    }

    /// Bits of PMCNTEN/PMOVS/PMINTEN that exist: P[N-1:0], C, and F0 with ICNTR.
    fn counter_mask(&self) -> u64 {
        let events = (1u64 << self.n()) - 1;
        let icntr = if self.instruction_counter {
            1u64 << INSTRUCTION_COUNTER_BIT
        } else {
            0
        };
        events | (1u64 << CYCLE_COUNTER_BIT) | icntr
    }

    fn pmcr_writable(&self) -> u64 {
        let mut mask = pmcr::E | pmcr::D | pmcr::X | pmcr::DP | pmcr::LC;
        if self.long_event_counters {
            mask |= pmcr::LP;
        }
        if self.freeze_on_overflow {
            mask |= pmcr::FZO;
        }
        mask
    }

    fn evtcount_mask(&self) -> u64 {
        // PMUv3 (v1) has evtCount[9:0]; PMUv3p1 widened it to [15:0].
        if self.pmu_version == 1 {
            field_bits(PMEVTYPER_EL0::evtCount_v3)
        } else {
            EVTCOUNT
        }
    }
}

/// The emulated PMUv3 (see the module documentation).
#[derive(Debug)]
pub struct EmulatedPmu {
    config: EmulatedConfig,
    el: Cell<ExceptionLevel>,
    pmcr: Cell<u64>,
    cnten: Cell<u64>,
    ovs: Cell<u64>,
    inten: Cell<u64>,
    selr: Cell<u64>,
    userenr: Cell<u64>,
    evtyper: [Cell<u64>; 31],
    evcntr: [Cell<u64>; 31],
    ccntr: Cell<u64>,
    ccfiltr: Cell<u64>,
    icntr: Cell<u64>,
    icfiltr: Cell<u64>,
    /// Clock cycles not yet counted by PMCCNTR while PMCR.D divides by 64.
    prescale: Cell<u64>,
}

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

    /// Sets the Exception level that following accesses and events happen at.
    pub fn set_el(&self, el: ExceptionLevel) {
        self.el.set(el);
    }

    /// The overflow interrupt request: PMCR.E && (PMINTEN & PMOVS) != 0.
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
    /// [`tick_cycles`](Self::tick_cycles); SW_INCR only counts PMSWINC writes, so feeding it
    /// here has no effect, as on hardware. INST_RETIRED also advances PMICNTR when implemented.
    pub fn count(&self, event: u16, n: u64) {
        if event == Event::CPU_CYCLES.number() {
            self.tick_cycles(n);
            return;
        }
        if event == Event::SW_INCR.number() {
            return;
        }
        self.count_event_counters(event, n, u64::MAX);
        if event == Event::INST_RETIRED.number() {
            self.count_instruction_counter(n);
        }
    }

    /// `n` clock cycles at the current EL: PMCCNTR (divided by 64 when PMCR.D and not LC) and
    /// the event counters programmed with CPU_CYCLES advance.
    pub fn tick_cycles(&self, n: u64) {
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
        let matching = |i: u8| {
            which & (1 << i) != 0
                && self.enabled(u32::from(i))
                && self.evtyper_of(i) & EVTCOUNT == u64::from(event)
                && self.filter_allows(self.evtyper_of(i))
        };
        // With FZO, counting stops at the first overflow: all counters of this event advance
        // together until the one closest to overflowing wraps.
        let mut steps = n;
        if self.pmcr.get() & pmcr::FZO != 0 {
            for i in (0..self.config.n()).filter(|&i| matching(i)) {
                steps = steps.min(steps_to_overflow(self.evcntr_of(i), long));
            }
        }
        for i in (0..self.config.n()).filter(|&i| matching(i)) {
            let (value, overflowed) = advance(self.evcntr_of(i), steps, long);
            let value = if self.config.long_event_counters {
                value
            } else {
                value & COUNTER_32_MAX
            };
            self.set_evcntr(i, value);
            if overflowed {
                self.ovs.set(self.ovs.get() | 1 << i);
            }
        }
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

/// Adds `n` to a counter; overflow is an unsigned wrap of bits \[31:0\] (or \[63:0\] when `long`).
/// The stored value is 64 bits either way (bits above 31 of a 32-bit counter are cut by the
/// caller), as the Arm ARM describes for PMCCNTR with LC = 0 and PMEVCNTR with LP = 0.
fn advance(value: u64, n: u64, long: bool) -> (u64, bool) {
    let new = value.wrapping_add(n);
    let overflowed = if long {
        u128::from(value) + u128::from(n) > u128::from(u64::MAX)
    } else {
        u128::from(value & COUNTER_32_MAX) + u128::from(n) > u128::from(COUNTER_32_MAX)
    };
    (new, overflowed)
}

/// Increments left before the counter overflows.
fn steps_to_overflow(value: u64, long: bool) -> u64 {
    if long {
        (u64::MAX - value).saturating_add(1)
    } else {
        COUNTER_32_MAX + 1 - (value & COUNTER_32_MAX)
    }
}

impl PmuBackend for EmulatedPmu {
    fn read(&self, register: PmuRegister) -> Result<u64, AccessError> {
        el0_access_check(
            self.el.get(),
            self.userenr.get(),
            register,
            RegisterAccess::Read,
        )?;
        self.read_raw(register)
    }

    fn write(&self, register: PmuRegister, value: u64) -> Result<(), AccessError> {
        el0_access_check(
            self.el.get(),
            self.userenr.get(),
            register,
            RegisterAccess::Write,
        )?;
        self.write_raw(register, value)
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
