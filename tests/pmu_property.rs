//! Property test: random sequences of register writes and event feeds leave the emulated PMU in
//! the state a simple reference model predicts. The reference model is written here, from the
//! Arm ARM rules, independently of `src/pmu/emulated.rs`: it counts one event at a time (so
//! overflow, freeze-on-overflow and the /64 divider need no arithmetic shortcuts).

use pmprobe::pmu::backend::{ExceptionLevel, PmuBackend, PmuRegister};
use pmprobe::pmu::emulated::{EmulatedConfig, EmulatedPmu};

use PmuRegister::*;

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const EVENTS: [u16; 4] = [0x00, 0x04, 0x08, 0x11];

/// The reference model: plain fields, one increment at a time.
struct Reference {
    n: u8,
    long: bool,
    fzo: bool,
    evt_bits: u64,
    el: ExceptionLevel,
    pmcr: u64,
    cnten: u64,
    ovs: u64,
    inten: u64,
    selr: u64,
    userenr: u64,
    evtyper: [u64; 31],
    evcntr: [u64; 31],
    ccntr: u64,
    ccfiltr: u64,
    divider: u64,
}

impl Reference {
    fn new(c: &EmulatedConfig) -> Self {
        Self {
            n: c.counters,
            long: c.long_event_counters,
            fzo: c.freeze_on_overflow,
            evt_bits: if c.pmu_version == 1 { 0x3FF } else { 0xFFFF },
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
    fn valid(&self) -> u64 {
        ((1u64 << self.n) - 1) | 1 << 31
    }
    fn e(&self) -> bool {
        self.pmcr & 1 != 0
    }
    fn filter_ok(&self, f: u64) -> bool {
        match self.el {
            ExceptionLevel::El0 => f & (1 << 30) == 0,
            ExceptionLevel::El1 => f & (1 << 31) == 0,
            _ => f & (1 << 27) != 0,
        }
    }
    fn write(&mut self, r: PmuRegister, v: u64) {
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
    fn read(&self, r: PmuRegister) -> u64 {
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
    fn idcode(&self) -> u64 {
        if self.long { 0x40 } else { 0x01 }
    }
    fn frozen(&self) -> bool {
        self.pmcr & 512 != 0 && self.ovs & ((1u64 << self.n) - 1) != 0
    }
    fn counts(&self, i: u8, event: u16) -> bool {
        self.e()
            && self.cnten & (1 << i) != 0
            && self.evtyper[i as usize] & 0xFFFF == u64::from(event)
            && self.filter_ok(self.evtyper[i as usize])
    }
    fn increment(&mut self, i: u8) {
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
        }
    }
    fn one_event(&mut self, event: u16) {
        if self.frozen() {
            return;
        }
        let hit: Vec<u8> = (0..self.n).filter(|&i| self.counts(i, event)).collect();
        for i in hit {
            self.increment(i);
        }
    }
    fn one_cycle(&mut self) {
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
    fn count(&mut self, event: u16, n: u64) {
        for _ in 0..n {
            match event {
                0x00 => {}
                0x11 => self.one_cycle(),
                e => self.one_event(e),
            }
        }
    }
    fn irq(&self) -> bool {
        self.e() && self.inten & self.ovs != 0
    }
    fn is_counting(&self, event: u16) -> bool {
        self.e()
            && ((event == 0x11 && self.cnten & (1 << 31) != 0)
                || (0..self.n).any(|i| {
                    self.cnten & (1 << i) != 0
                        && self.evtyper[i as usize] & 0xFFFF == u64::from(event)
                }))
    }
}

fn random_value(rng: &mut XorShift, r: PmuRegister) -> u64 {
    match r {
        EvCntr(_) | XevCntr | Ccntr => match rng.below(4) {
            0 => {
                let span = if rng.below(2) == 0 { 4 } else { 300 };
                0xFFFF_FFFF - rng.below(span)
            }
            1 => {
                let span = if rng.below(2) == 0 { 4 } else { 300 };
                u64::MAX - rng.below(span)
            }
            2 => rng.below(1000),
            _ => rng.next(),
        },
        EvTyper(_) | XevTyper => {
            let filters = [0, 1 << 31, 1 << 30, 1 << 27][rng.below(4) as usize];
            let event = u64::from(EVENTS[rng.below(4) as usize]);
            if rng.below(8) == 0 {
                rng.next()
            } else {
                filters | event
            }
        }
        Pmcr => rng.next() & 0x3FF | if rng.below(4) == 0 { 0 } else { 1 },
        Selr => [0, 1, 2, 5, 6, 9, 31][rng.below(7) as usize],
        Ccfiltr => [0, 1 << 31, 1 << 30, 1 << 27][rng.below(4) as usize],
        _ => {
            let bits = rng.next();
            if rng.below(2) == 0 {
                bits & 0x8000_00FF
            } else {
                bits
            }
        }
    }
}

const WRITABLE: [PmuRegister; 17] = [
    Pmcr,
    CntenSet,
    CntenClr,
    OvsSet,
    OvsClr,
    IntenSet,
    IntenClr,
    Swinc,
    Selr,
    XevTyper,
    XevCntr,
    Ccntr,
    Ccfiltr,
    Userenr,
    EvTyper(0),
    EvCntr(0),
    Swinc,
];
const CHECKED: [PmuRegister; 10] = [
    Pmcr, CntenSet, CntenClr, OvsSet, OvsClr, IntenSet, Selr, XevTyper, XevCntr, Ccntr,
];

fn run(config: EmulatedConfig, seed: u64, steps: usize) {
    let mut rng = XorShift(seed);
    let pmu = EmulatedPmu::new(config);
    let mut model = Reference::new(&config);
    for step in 0..steps {
        let what = rng.below(10);
        let description;
        if what < 5 {
            let mut r = WRITABLE[rng.below(WRITABLE.len() as u64) as usize];
            let i = rng.below(8) as u8;
            r = match r {
                EvTyper(_) => EvTyper(i),
                EvCntr(_) => EvCntr(i),
                other => other,
            };
            let v = random_value(&mut rng, r);
            pmu.write(r, v).unwrap();
            model.write(r, v);
            description = format!("write {r} {v:#x}");
        } else {
            let el = [
                ExceptionLevel::El0,
                ExceptionLevel::El1,
                ExceptionLevel::El1,
                ExceptionLevel::El2,
            ][rng.below(4) as usize];
            let event = EVENTS[rng.below(4) as usize];
            // Small feeds land exactly on the boundaries, large ones cross them.
            let n = if rng.below(3) == 0 {
                rng.below(4)
            } else {
                rng.below(400)
            };
            pmu.set_el(el);
            model.el = el;
            if event == 0x11 && rng.below(2) == 0 {
                pmu.tick_cycles(n);
            } else {
                pmu.count(event, n);
            }
            model.count(event, n);
            pmu.set_el(ExceptionLevel::El1);
            model.el = ExceptionLevel::El1;
            description = format!("count {event:#x} x{n} at {el:?}");
        }
        let ctx = |what: &str| format!("seed {seed} step {step} after {description}: {what}");
        for r in CHECKED
            .into_iter()
            .chain((0..8).map(EvTyper))
            .chain((0..8).map(EvCntr))
            .chain([Ccfiltr, Userenr])
        {
            assert_eq!(
                pmu.read(r).unwrap(),
                model.read(r),
                "{}",
                ctx(&r.to_string())
            );
        }
        assert_eq!(pmu.irq_line(), model.irq(), "{}", ctx("irq line"));
        for e in EVENTS {
            assert_eq!(
                pmu.is_counting(e),
                model.is_counting(e),
                "{}",
                ctx("is_counting")
            );
        }
    }
}

#[test]
fn random_sequences_match_the_reference_model_on_the_qemu_a57_preset() {
    for seed in 1..=40 {
        run(
            EmulatedConfig::qemu_cortex_a57(),
            0x9E37_79B9_7F4A_7C15u64.wrapping_mul(seed),
            400,
        );
    }
}

#[test]
fn random_sequences_match_the_reference_model_on_the_neoverse_v1_like_preset() {
    for seed in 1..=40 {
        run(
            EmulatedConfig::neoverse_v1_like(),
            0xD1B5_4A32_D192_ED03u64.wrapping_mul(seed),
            400,
        );
    }
}
