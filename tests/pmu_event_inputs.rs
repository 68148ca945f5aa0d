//! The emulated PMU's event inputs (the lazy path): counts held back in an input behave as if
//! each occurrence had been counted on arrival. Overflow flags and the interrupt line change
//! at the exact occurrence, with counters preset just below 2^32 and 2^64; every register
//! read (direct, through PMSELR/PMXEVCNTR, PMOVSSET) sees the held-back counts; EL changes,
//! PMCR.E and PMCNTENSET apply them first. Expected values come from the architecture's rules,
//! and where a sequence is long, from the same sequence counted eagerly on a second PMU.

use pmprobe::pmu::{EVENT_INPUTS, EventInputsFull};
use pmprobe::pmu::{EmulatedPmu, ExceptionLevel, PmuBackend, PmuRegister};

use PmuRegister::*;

const INST_RETIRED: u16 = 0x08;
const CPU_CYCLES: u16 = 0x11;
const L1D_CACHE: u16 = 0x04;
const E: u64 = 1;
const D: u64 = 1 << 3;
const LC: u64 = 1 << 6;
const LP: u64 = 1 << 7;
const FZO: u64 = 1 << 9;
const CYCLE_BIT: u64 = 1 << 31;
/// PMEVTYPER.U: do not count at EL0.
const FILTER_U: u64 = 1 << 30;

fn rd(pmu: &EmulatedPmu, r: PmuRegister) -> u64 {
    pmu.read(r).unwrap()
}
fn wr(pmu: &EmulatedPmu, r: PmuRegister, v: u64) {
    pmu.write(r, v).unwrap()
}

/// Counter `i` counts `event`, enabled, its overflow interrupt enabled, PMCR.E set (plus
/// `pmcr_extra`).
fn program(pmu: &EmulatedPmu, i: u8, event: u16, pmcr_extra: u64) {
    wr(pmu, EvTyper(i), u64::from(event));
    wr(pmu, CntenSet, 1 << i);
    wr(pmu, IntenSet, 1 << i);
    wr(pmu, Pmcr, E | pmcr_extra);
}

#[test]
fn counts_are_held_back_until_a_register_is_read() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    program(&pmu, 2, INST_RETIRED, 0);
    let input = pmu.event_input(INST_RETIRED).unwrap();
    for _ in 0..1000 {
        input.add(1);
    }
    input.add(234);
    assert_eq!(input.pending(), 1234, "nothing applied yet");
    assert_eq!(rd(&pmu, EvCntr(2)), 1234);
    assert_eq!(input.pending(), 0, "the read applied them");
    // The eager entry point takes the input once the event has one.
    pmu.count(INST_RETIRED, 6);
    assert_eq!(input.pending(), 6);
    assert_eq!(rd(&pmu, EvCntr(2)), 1240);
}

#[test]
fn a_32_bit_counter_overflows_at_the_exact_occurrence() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    program(&pmu, 0, INST_RETIRED, 0);
    wr(&pmu, EvCntr(0), 0xFFFF_FFFF - 4);
    let input = pmu.event_input(INST_RETIRED).unwrap();
    for k in 1..=4 {
        input.add(1);
        assert!(!pmu.irq_line(), "occurrence {k}: 2^32 not reached");
    }
    assert_eq!(input.pending(), 4, "held back below the overflow");
    input.add(1);
    assert!(pmu.irq_line(), "the 5th occurrence wraps bit 31");
    assert_eq!(input.pending(), 0);
    assert_eq!(rd(&pmu, OvsSet), 1);
    assert_eq!(rd(&pmu, EvCntr(0)), 0);
    // A feed of several occurrences that crosses the wrap lands past it.
    wr(&pmu, OvsClr, 1);
    wr(&pmu, EvCntr(0), 0xFFFF_FFFD);
    input.add(2);
    assert!(!pmu.irq_line());
    input.add(10);
    assert!(pmu.irq_line());
    assert_eq!(rd(&pmu, EvCntr(0)), 9);
}

#[test]
fn a_64_bit_event_counter_overflows_at_the_exact_occurrence() {
    let pmu = EmulatedPmu::neoverse_v1_like();
    program(&pmu, 1, INST_RETIRED, LP);
    wr(&pmu, EvCntr(1), u64::MAX - 2);
    let input = pmu.event_input(INST_RETIRED).unwrap();
    input.add(1);
    input.add(1);
    assert!(!pmu.irq_line());
    assert_eq!(input.pending(), 2);
    input.add(1);
    assert!(pmu.irq_line(), "the 3rd occurrence wraps bit 63");
    assert_eq!(rd(&pmu, EvCntr(1)), 0);
    assert_eq!(rd(&pmu, OvsSet), 1 << 1);
    // Without LP the same counter overflows at bit 31 and keeps counting past it.
    wr(&pmu, OvsClr, 1 << 1);
    wr(&pmu, Pmcr, E);
    wr(&pmu, EvCntr(1), 0xFFFF_FFFE);
    input.add(1);
    assert!(!pmu.irq_line());
    input.add(1);
    assert!(pmu.irq_line());
    assert_eq!(rd(&pmu, EvCntr(1)), 0x1_0000_0000);
}

#[test]
fn the_cycle_counter_overflows_at_the_exact_cycle_at_32_and_64_bits() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, CntenSet, CYCLE_BIT);
    wr(&pmu, IntenSet, CYCLE_BIT);
    wr(&pmu, Pmcr, E);
    wr(&pmu, Ccntr, 0xFFFF_FFFD);
    let cycles = pmu.event_input(CPU_CYCLES).unwrap();
    cycles.add(2);
    assert!(!pmu.irq_line());
    cycles.add(1);
    assert!(pmu.irq_line(), "bit 31 of PMCCNTR carries without LC");
    assert_eq!(rd(&pmu, Ccntr), 0x1_0000_0000);
    wr(&pmu, OvsClr, CYCLE_BIT);
    wr(&pmu, Pmcr, E | LC);
    wr(&pmu, Ccntr, u64::MAX - 1);
    cycles.add(1);
    assert!(!pmu.irq_line());
    cycles.add(1);
    assert!(pmu.irq_line(), "bit 63 with LC");
    assert_eq!(rd(&pmu, Ccntr), 0);
}

#[test]
fn the_divided_cycle_counter_overflows_at_the_exact_cycle() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, CntenSet, CYCLE_BIT);
    wr(&pmu, IntenSet, CYCLE_BIT);
    wr(&pmu, Pmcr, E | D);
    let cycles = pmu.event_input(CPU_CYCLES).unwrap();
    cycles.add(100); // PMCCNTR 1, 36 cycles into the next 64
    assert_eq!(rd(&pmu, Ccntr), 1);
    wr(&pmu, Ccntr, 0xFFFF_FFFF);
    // The next step of PMCCNTR, which wraps it, comes 28 cycles on.
    cycles.add(27);
    assert!(!pmu.irq_line());
    assert_eq!(cycles.pending(), 27);
    cycles.add(1);
    assert!(pmu.irq_line());
    assert_eq!(rd(&pmu, Ccntr), 0x1_0000_0000);
}

#[test]
fn every_register_read_sees_the_held_back_counts() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    program(&pmu, 4, INST_RETIRED, 0);
    wr(&pmu, EvCntr(4), 0xFFFF_FFFF);
    let input = pmu.event_input(INST_RETIRED).unwrap();
    input.add(3); // wraps: applied at once
    input.add(5);
    assert_eq!(input.pending(), 5);
    wr(&pmu, Selr, 4);
    assert_eq!(input.pending(), 0, "a write applies first");
    input.add(1);
    assert_eq!(rd(&pmu, XevCntr), 8, "through PMSELR/PMXEVCNTR");
    input.add(1);
    assert_eq!(rd(&pmu, OvsSet), 1 << 4);
    assert_eq!(rd(&pmu, EvCntr(4)), 9);
}

#[test]
fn el_filters_enables_and_pmcr_e_apply_held_back_counts_first() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, EvTyper(0), u64::from(INST_RETIRED) | FILTER_U);
    wr(&pmu, CntenSet, 1);
    wr(&pmu, Pmcr, E);
    let input = pmu.event_input(INST_RETIRED).unwrap();
    input.add(3); // at EL1: counted
    pmu.set_el(ExceptionLevel::El0);
    input.add(5); // at EL0: filtered out
    pmu.set_el(ExceptionLevel::El1);
    input.add(2);
    assert_eq!(rd(&pmu, EvCntr(0)), 5);

    input.add(4);
    wr(&pmu, CntenClr, 1);
    input.add(100); // disabled
    wr(&pmu, CntenSet, 1);
    input.add(1);
    assert_eq!(rd(&pmu, EvCntr(0)), 10);

    input.add(7);
    wr(&pmu, Pmcr, 0);
    input.add(100); // PMCR.E clear
    wr(&pmu, Pmcr, E);
    assert_eq!(rd(&pmu, EvCntr(0)), 17);
}

#[test]
fn freeze_on_overflow_keeps_the_counts_of_other_events_that_came_before_it() {
    let lazy = EmulatedPmu::neoverse_v1_like();
    let eager = EmulatedPmu::neoverse_v1_like();
    for pmu in [&lazy, &eager] {
        wr(pmu, EvTyper(0), u64::from(INST_RETIRED));
        wr(pmu, EvTyper(1), u64::from(L1D_CACHE));
        wr(pmu, CntenSet, 0b11 | CYCLE_BIT);
        wr(pmu, Pmcr, E | FZO);
        wr(pmu, EvCntr(0), 0xFFFF_FFFD);
    }
    let insts = lazy.event_input(INST_RETIRED).unwrap();
    let l1d = lazy.event_input(L1D_CACHE).unwrap();
    let cycles = lazy.event_input(CPU_CYCLES).unwrap();
    // (event, occurrences) in arrival order; INST_RETIRED overflows on its 3rd.
    let feeds = [
        (L1D_CACHE, 7),
        (CPU_CYCLES, 5),
        (INST_RETIRED, 2),
        (L1D_CACHE, 4),
        (INST_RETIRED, 1),
        (L1D_CACHE, 9),
        (CPU_CYCLES, 5),
    ];
    for (event, n) in feeds {
        let input = match event {
            INST_RETIRED => insts,
            L1D_CACHE => l1d,
            _ => cycles,
        };
        input.add(n);
        eager.count(event, n);
    }
    assert_eq!(
        rd(&lazy, EvCntr(1)),
        11,
        "7 + 4 before the overflow, 9 frozen out"
    );
    assert_eq!(rd(&lazy, Ccntr), 10, "the cycle counter does not freeze");
    for register in [EvCntr(0), EvCntr(1), Ccntr, OvsSet] {
        assert_eq!(rd(&lazy, register), rd(&eager, register), "{register}");
    }
}

#[test]
fn an_event_input_per_event_up_to_the_capacity() {
    let pmu = EmulatedPmu::neoverse_v1_like();
    let first = pmu.event_input(0x20).unwrap();
    assert_eq!(first.event(), 0x20);
    for event in 0x21..0x20 + EVENT_INPUTS as u16 {
        pmu.event_input(event).unwrap();
    }
    // The same event shares its input, even when the inputs are all in use.
    let again = pmu.event_input(0x20).unwrap();
    again.add(3);
    assert_eq!(first.pending(), 3);
    assert_eq!(
        pmu.event_input(0x3F).err(),
        Some(EventInputsFull {
            event: 0x3F,
            capacity: EVENT_INPUTS
        })
    );
}

#[test]
fn long_random_feeds_match_eager_counting() {
    // Every counter near its wrap, several counters per event, interleaved inputs and eager
    // counts; compared with the same feeds counted eagerly after every step.
    let lazy = EmulatedPmu::neoverse_v1_like();
    let eager = EmulatedPmu::neoverse_v1_like();
    let events = [INST_RETIRED, L1D_CACHE, CPU_CYCLES, 0x21];
    for pmu in [&lazy, &eager] {
        for (i, event) in events.iter().chain(&events[..2]).enumerate() {
            wr(pmu, EvTyper(i as u8), u64::from(*event));
            wr(pmu, EvCntr(i as u8), 0xFFFF_FFFF - 1000 * i as u64);
        }
        wr(pmu, CntenSet, 0x3F | CYCLE_BIT);
        wr(pmu, IntenSet, 0x3F | CYCLE_BIT);
        wr(pmu, Pmcr, E | D);
        wr(pmu, Ccntr, 0xFFFF_FFF0);
    }
    let inputs: Vec<_> = events[..3]
        .iter()
        .map(|&event| lazy.event_input(event).unwrap())
        .collect();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for step in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let event = events[(state % 4) as usize];
        let n = (state >> 8) % 5;
        match inputs.iter().find(|input| input.event() == event) {
            Some(input) => input.add(n),
            None => lazy.count(event, n),
        }
        eager.count(event, n);
        assert_eq!(lazy.irq_line(), eager.irq_line(), "step {step}");
        if step % 997 == 0 {
            // Clear the flags (as an overflow handler would) so overflows keep coming.
            wr(&lazy, OvsClr, u64::MAX);
            wr(&eager, OvsClr, u64::MAX);
        }
    }
    for register in (0..6).map(EvCntr).chain([Ccntr, OvsSet]) {
        assert_eq!(rd(&lazy, register), rd(&eager, register), "{register}");
    }
}
