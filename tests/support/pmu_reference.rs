//! The reference model of the emulated PMUv3, written from the Arm ARM rules independently of
//! `src/pmu/emulated/`: plain fields, one event at a time (so overflow, freeze-on-overflow,
//! CHAIN and the /64 divider need no arithmetic shortcuts).
//!
//! Shared by the property test (`tests/pmu_property.rs`) and the `pmu` fuzz target
//! (`fuzz/fuzz_targets/pmu.rs`), both include it with `#[path]`. It models the registers
//! PMCR, PMCNTENSET/CLR, PMOVSSET/CLR, PMINTENSET/CLR, PMSWINC, PMSELR, PMXEVTYPER, PMXEVCNTR,
//! PMEVTYPER<n>, PMEVCNTR<n>, PMCCNTR, PMCCFILTR and PMUSERENR; any other register is outside
//! the model (`unreachable!`), so callers pick registers from that list.
#![allow(dead_code)]

use pmprobe::pmu::EmulatedConfig;
use pmprobe::pmu::{ExceptionLevel, PmuRegister};

use PmuRegister::*;

/// The reference model: plain fields, one increment at a time.
pub struct Reference {
    pub n: u8,
    pub long: bool,
    pub fzo: bool,
    pub evt_bits: u64,
    pub ceid0: u64,
    pub ceid1: u64,
    pub el: ExceptionLevel,
    pub pmcr: u64,
    pub cnten: u64,
    pub ovs: u64,
    pub inten: u64,
    pub selr: u64,
    pub userenr: u64,
    pub evtyper: [u64; 31],
    pub evcntr: [u64; 31],
    pub ccntr: u64,
    pub ccfiltr: u64,
    pub divider: u64,
}

impl Reference {
    pub fn new(c: &EmulatedConfig) -> Self {
        Self {
            n: c.counters,
            long: c.long_event_counters,
            fzo: c.freeze_on_overflow,
            evt_bits: if c.pmu_version == 1 { 0x3FF } else { 0xFFFF },
            ceid0: c.ceid0,
            ceid1: c.ceid1,
            el: ExceptionLevel::El1,
            pmcr: 0,
            cnten: 0,
            ovs: 0,
            inten: 0,
            selr: 0,
            userenr: 0,
            evtyper: [0; 31],
            evcntr: [0; 31],
            ccntr: 0,
            ccfiltr: 0,
            divider: 0,
        }
    }
    pub fn valid(&self) -> u64 {
        ((1u64 << self.n) - 1) | 1 << 31
    }
    pub fn e(&self) -> bool {
        self.pmcr & 1 != 0
    }
    pub fn filter_ok(&self, f: u64) -> bool {
        match self.el {
            ExceptionLevel::El0 => f & (1 << 30) == 0,
            ExceptionLevel::El1 => f & (1 << 31) == 0,
            _ => f & (1 << 27) != 0,
        }
    }
    pub fn write(&mut self, r: PmuRegister, v: u64) {
        let valid = self.valid();
        match r {
            Pmcr => {
                if v & 2 != 0 {
                    for i in 0..self.n as usize {
                        self.evcntr[i] = 0;
                    }
                }
                if v & 4 != 0 {
                    self.ccntr = 0;
                    self.divider = 0;
                }
                let mut writable = 1 | 8 | 16 | 32 | 64;
                if self.long {
                    writable |= 128;
                }
                if self.fzo {
                    writable |= 512;
                }
                self.pmcr = v & writable;
            }
            CntenSet => self.cnten |= v & valid,
            CntenClr => self.cnten &= !(v & valid),
            OvsSet => self.ovs |= v & valid,
            OvsClr => self.ovs &= !(v & valid),
            IntenSet => self.inten |= v & valid,
            IntenClr => self.inten &= !(v & valid),
            Swinc => {
                if !self.frozen() {
                    for i in 0..self.n {
                        if v & (1 << i) != 0 && self.counts(i, 0x00) {
                            self.increment(i);
                        }
                    }
                }
            }
            Selr => self.selr = v & 31,
            XevTyper => {
                let s = self.selr as u8;
                if s == 31 {
                    self.write(Ccfiltr, v)
                } else if s < self.n {
                    self.write(EvTyper(s), v)
                }
            }
            XevCntr => {
                let s = self.selr as u8;
                if s < self.n {
                    self.write(EvCntr(s), v)
                }
            }
            EvTyper(i) if i < self.n => {
                self.evtyper[i as usize] = v & (0xFC00_0000 | self.evt_bits)
            }
            EvCntr(i) if i < self.n => {
                self.evcntr[i as usize] = if self.long { v } else { v & 0xFFFF_FFFF }
            }
            EvTyper(_) | EvCntr(_) => {}
            Ccntr => self.ccntr = v,
            Ccfiltr => self.ccfiltr = v & 0xFC00_0000,
            Userenr => self.userenr = v & 0b10_1111,
            _ => unreachable!(),
        }
    }
    pub fn read(&self, r: PmuRegister) -> u64 {
        match r {
            Pmcr => self.pmcr | u64::from(self.n) << 11 | 0x41 << 24 | self.idcode() << 16,
            CntenSet | CntenClr => self.cnten,
            OvsSet | OvsClr => self.ovs,
            IntenSet | IntenClr => self.inten,
            Selr => self.selr,
            XevTyper => match self.selr as u8 {
                31 => self.ccfiltr,
                s if s < self.n => self.evtyper[s as usize],
                _ => 0,
            },
            XevCntr => match self.selr as u8 {
                s if s < self.n => self.evcntr[s as usize],
                _ => 0,
            },
            EvTyper(i) if i < self.n => self.evtyper[i as usize],
            EvCntr(i) if i < self.n => self.evcntr[i as usize],
            EvTyper(_) | EvCntr(_) => 0,
            Ccntr => self.ccntr,
            Ccfiltr => self.ccfiltr,
            Userenr => self.userenr,
            _ => unreachable!(),
        }
    }
    pub fn idcode(&self) -> u64 {
        if self.long { 0x40 } else { 0x01 }
    }
    pub fn frozen(&self) -> bool {
        self.pmcr & 512 != 0 && self.ovs & ((1u64 << self.n) - 1) != 0
    }
    pub fn counts(&self, i: u8, event: u16) -> bool {
        let implemented = if event < 0x20 {
            self.ceid0 >> event & 1 != 0
        } else {
            self.ceid1 >> (event - 0x20) & 1 != 0
        };
        implemented
            && self.e()
            && self.cnten & (1 << i) != 0
            && self.evtyper[i as usize] & 0xFFFF == u64::from(event)
            && self.filter_ok(self.evtyper[i as usize])
    }
    pub fn increment(&mut self, i: u8) {
        let v = self.evcntr[i as usize];
        let lp = self.long && self.pmcr & 128 != 0;
        let overflow = if lp {
            v == u64::MAX
        } else {
            v & 0xFFFF_FFFF == 0xFFFF_FFFF
        };
        let nv = v.wrapping_add(1);
        self.evcntr[i as usize] = if self.long { nv } else { nv & 0xFFFF_FFFF };
        if overflow {
            self.ovs |= 1 << i;
            // AArch64.IncrementEventCounter: a 32-bit overflow of an even counter is one CHAIN
            // event for the odd counter above it, which counts it under its own enable and
            // filter (CountPMUEvents), after the flag just set froze it when FZO is 1.
            if !lp
                && i.is_multiple_of(2)
                && i + 1 < self.n
                && !self.frozen()
                && self.counts(i + 1, 0x1E)
            {
                self.increment(i + 1);
            }
        }
    }
    pub fn one_event(&mut self, event: u16) {
        if self.frozen() {
            return;
        }
        let hit: Vec<u8> = (0..self.n).filter(|&i| self.counts(i, event)).collect();
        for i in hit {
            self.increment(i);
        }
    }
    pub fn one_cycle(&mut self) {
        self.one_event(0x11);
        if !(self.e() && self.cnten & (1 << 31) != 0 && self.filter_ok(self.ccfiltr)) {
            return;
        }
        if self.pmcr & 8 != 0 && self.pmcr & 64 == 0 {
            self.divider += 1;
            if self.divider < 64 {
                return;
            }
            self.divider = 0;
        }
        let lc = self.pmcr & 64 != 0;
        let overflow = if lc {
            self.ccntr == u64::MAX
        } else {
            self.ccntr & 0xFFFF_FFFF == 0xFFFF_FFFF
        };
        self.ccntr = self.ccntr.wrapping_add(1);
        if overflow {
            self.ovs |= 1 << 31;
        }
    }
    pub fn count(&mut self, event: u16, n: u64) {
        for _ in 0..n {
            match event {
                0x00 | 0x1E => {}
                0x11 => self.one_cycle(),
                e => self.one_event(e),
            }
        }
    }
    pub fn irq(&self) -> bool {
        self.e() && self.inten & self.ovs != 0
    }
    pub fn is_counting(&self, event: u16) -> bool {
        self.e()
            && ((event == 0x11 && self.cnten & (1 << 31) != 0)
                || (0..self.n).any(|i| {
                    self.cnten & (1 << i) != 0
                        && self.evtyper[i as usize] & 0xFFFF == u64::from(event)
                }))
    }
}
