//! Property test: random sequences of register writes and event feeds leave the emulated PMU in
//! the state a simple reference model predicts. The reference model
//! (`tests/support/pmu_reference.rs`) is written from the Arm ARM rules, independently of
//! `src/pmu/emulated/`; the `pmu` fuzz target uses the same model.

#[path = "support/pmu_reference.rs"]
mod pmu_reference;

use pmprobe::pmu::{EmulatedConfig, EmulatedPmu};
use pmprobe::pmu::{ExceptionLevel, PmuBackend, PmuRegister};
use pmu_reference::Reference;

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

// CHAIN (0x1E) is programmed like the others and fed like them: feeding it must count nothing,
// and the overflows of the even counters below it must.
const EVENTS: [u16; 5] = [0x00, 0x04, 0x08, 0x11, 0x1E];

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
            let event = u64::from(EVENTS[rng.below(EVENTS.len() as u64) as usize]);
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
            let event = EVENTS[rng.below(EVENTS.len() as u64) as usize];
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

/// A PMUv3p1 core with 32-bit counters, an odd N (its highest counter has no partner) and CHAIN
/// announced, so that the even counters' overflows chain whatever PMCR holds.
fn chaining_32_bit_core() -> EmulatedConfig {
    EmulatedConfig {
        pmu_version: 4,
        counters: 5,
        // SW_INCR, L1D_CACHE, INST_RETIRED, CPU_CYCLES and CHAIN.
        ceid0: 1 | 1 << 0x04 | 1 << 0x08 | 1 << 0x11 | 1 << 0x1E,
        ceid1: 0,
        ..EmulatedConfig::qemu_cortex_a57()
    }
}

#[test]
fn random_sequences_match_the_reference_model_on_a_chaining_32_bit_core() {
    for seed in 1..=40 {
        run(
            chaining_32_bit_core(),
            0xA24B_AED4_963E_E407u64.wrapping_mul(seed),
            400,
        );
    }
}
