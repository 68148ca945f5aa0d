//! Checks of the `pmu` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): arbitrary sequences of register writes, reads and event feeds on
//! the emulated PMUv3, against the reference model of `tests/support/pmu_reference.rs` (the one the
//! property test uses, from the Arm ARM rules).
//!
//! Input: byte 0 picks the preset (bit 0: QEMU cortex-a57 or Neoverse-V1-like) and the feed
//! path (bit 1: eager or lazy); then operations of 11 bytes: kind, register/event, counter
//! index or EL, value mode, 8 value bytes (a feed uses the low 9 bits as its count).
//!
//! Eager: after every operation every modelled register (PMCR, enables, overflow flags,
//! PMSELR, the indirect view, PMEVTYPER/PMEVCNTR 0..8, PMCCNTR, PMCCFILTR, PMUSERENR) reads
//! back what the model predicts, the overflow interrupt line and `is_counting` agree, and with
//! PMUSERENR.EN set every EL0 register reads at EL0 as at EL1.
//!
//! Lazy: feeds go through the PMU's event inputs (a feed's byte 2 bit 6 chooses
//! `EventInput::add` or `count`, which takes the input once the event has one, so inputs and
//! eager counts of other events interleave), and after a feed the registers are read only
//! when the value's top byte says so (and at the end), so counts pile up in the inputs across
//! feeds; the interrupt line, which must be exact without a register access, is compared
//! after every operation.
#[path = "../../tests/support/pmu_reference.rs"]
mod pmu_reference;

use pmprobe::pmu::{EmulatedConfig, EmulatedPmu};
use pmprobe::pmu::{ExceptionLevel, PmuBackend, PmuRegister};
use pmu_reference::Reference;

use PmuRegister::*;

/// Registers the model covers (PMEVTYPER/PMEVCNTR get their index from the input).
const WRITABLE: [PmuRegister; 16] = [
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
];
/// Events fed: SW_INCR and CHAIN (which no feed may count: only PMSWINC and an even counter's
/// overflow do), L1D_CACHE, INST_RETIRED, CPU_CYCLES and a few others, implemented or not
/// depending on the preset.
const EVENTS: [u16; 9] = [0x00, 0x04, 0x08, 0x11, 0x01, 0x10, 0x21, 0x3F, 0x1E];
const ELS: [ExceptionLevel; 3] = [
    ExceptionLevel::El0,
    ExceptionLevel::El1,
    ExceptionLevel::El2,
];
const OP_BYTES: usize = 11;
/// Longest event feed (the model counts one event at a time).
const MAX_FEED: u64 = 511;

/// Values near the 32- and 64-bit overflow boundaries are what matters; raw bytes rarely
/// land there, so the value mode picks a region and the bytes an offset in it.
fn value(mode: u8, raw: u64) -> u64 {
    match mode % 4 {
        0 => raw,
        1 => 0xFFFF_FFFF - (raw % 300),
        2 => u64::MAX - (raw % 300),
        _ => raw % 1000,
    }
}

fn checked_registers() -> impl Iterator<Item = PmuRegister> {
    [
        Pmcr, CntenSet, CntenClr, OvsSet, OvsClr, IntenSet, Selr, XevTyper, XevCntr, Ccntr,
    ]
    .into_iter()
    .chain((0..8).map(EvTyper))
    .chain((0..8).map(EvCntr))
    .chain([Ccfiltr, Userenr])
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let config = if data.first().is_some_and(|b| b & 1 == 1) {
        EmulatedConfig::neoverse_v1_like()
    } else {
        EmulatedConfig::qemu_cortex_a57()
    };
    let lazy = data.first().is_some_and(|b| b & 2 != 0);
    let pmu = EmulatedPmu::new(config);
    let mut model = Reference::new(&config);
    let mut description = "nothing".to_string();
    for (step, op) in data
        .get(1..)
        .unwrap_or_default()
        .chunks_exact(OP_BYTES)
        .enumerate()
    {
        let mut raw_bytes = [0u8; 8];
        raw_bytes.copy_from_slice(&op[3..11]);
        let raw = u64::from_le_bytes(raw_bytes);
        let feed = op[0] % 3 == 1;
        description = match op[0] % 3 {
            0 => {
                let register = match WRITABLE[usize::from(op[1]) % WRITABLE.len()] {
                    EvTyper(_) => EvTyper(op[2] % 31),
                    EvCntr(_) => EvCntr(op[2] % 31),
                    other => other,
                };
                let v = value(op[2] >> 5, raw);
                if let Err(error) = pmu.write(register, v) {
                    panic!("step {step}: write {register} {v:#x} at EL1 refused: {error}");
                }
                model.write(register, v);
                format!("write {register} {v:#x}")
            }
            1 => {
                let event = EVENTS[usize::from(op[1]) % EVENTS.len()];
                let el = ELS[usize::from(op[2]) % ELS.len()];
                let n = raw & MAX_FEED;
                pmu.set_el(el);
                model.el = el;
                if lazy && op[2] & 0x40 != 0 {
                    match pmu.event_input(event) {
                        Ok(input) => input.add(n),
                        Err(error) => panic!("step {step}: {error} (9 events fed)"),
                    }
                } else if event == 0x11 && op[2] & 0x80 != 0 {
                    pmu.tick_cycles(n);
                } else {
                    pmu.count(event, n);
                }
                model.count(event, n);
                pmu.set_el(ExceptionLevel::El1);
                model.el = ExceptionLevel::El1;
                format!("count {event:#x} x{n} at {el:?}")
            }
            _ => {
                // Reads at EL0: with PMUSERENR.EN every EL0 register is accessible and reads
                // as at EL1; without it, any answer but a panic is acceptable here.
                pmu.set_el(ExceptionLevel::El0);
                let enabled = model.userenr & 1 != 0;
                for register in checked_registers() {
                    let at_el0 = pmu.read(register);
                    if enabled && !matches!(register, IntenSet | IntenClr) {
                        assert_eq!(
                            at_el0.ok(),
                            Some(model.read(register)),
                            "step {step}: EL0 read of {register} with PMUSERENR.EN"
                        );
                    }
                }
                pmu.set_el(ExceptionLevel::El1);
                "reads at EL0".to_string()
            }
        };
        // The line first: a register read would apply what the inputs hold back.
        assert_eq!(
            pmu.irq_line(),
            model.irq(),
            "step {step} after {description}: irq line"
        );
        if !(lazy && feed) || op[10] & 0x80 != 0 {
            check_registers(&pmu, &model, step, &description);
        }
        for event in EVENTS {
            assert_eq!(
                pmu.is_counting(event),
                model.is_counting(event),
                "step {step} after {description}: is_counting({event:#x})"
            );
        }
    }
    check_registers(&pmu, &model, usize::MAX, &description);
}

/// Every checked register reads what the model predicts (`step` `usize::MAX`: at the end).
fn check_registers(pmu: &EmulatedPmu, model: &Reference, step: usize, description: &str) {
    for register in checked_registers() {
        let actual = pmu.read(register);
        assert_eq!(
            actual.ok(),
            Some(model.read(register)),
            "step {step} after {description}: {register}"
        );
    }
}
