//! The emulated PMUv3 against the Arm ARM semantics it models, one test per point (the list in
//! `src/pmu/emulated/`).
//! Expected values come from the architecture (the Arm ARM's register descriptions), not from
//! the model's own output.

use pmprobe::pmu::regs::{PMCR_EL0, PMEVTYPER_EL0, PMUSERENR_EL0};
use pmprobe::pmu::{AccessError, ExceptionLevel, PmuBackend, PmuRegister, RegisterAccess};
use pmprobe::pmu::{EmulatedConfig, EmulatedPmu};
use tock_registers::interfaces::{ReadWriteable, Readable, Writeable};

use PmuRegister::*;

const INST_RETIRED: u16 = 0x08;
const CPU_CYCLES: u16 = 0x11;
const L1D_CACHE: u16 = 0x04;
const E: u64 = 1;
const P: u64 = 1 << 1;
const C: u64 = 1 << 2;
const D: u64 = 1 << 3;
const LC: u64 = 1 << 6;
const LP: u64 = 1 << 7;
const FZO: u64 = 1 << 9;
const CYCLE_BIT: u64 = 1 << 31;

fn rd(pmu: &EmulatedPmu, r: PmuRegister) -> u64 {
    pmu.read(r).unwrap()
}
fn wr(pmu: &EmulatedPmu, r: PmuRegister, v: u64) {
    pmu.write(r, v).unwrap()
}

/// Counter `i` counts `event`, enabled, PMCR.E set (plus `pmcr_extra`).
fn program(pmu: &EmulatedPmu, i: u8, event: u16, pmcr_extra: u64) {
    wr(pmu, EvTyper(i), u64::from(event));
    wr(pmu, CntenSet, 1 << i);
    wr(pmu, Pmcr, E | pmcr_extra);
}

#[test]
fn qemu_a57_preset_reports_what_qemu_reports() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    assert_eq!(rd(&pmu, Pmcr), 0x4101_3000);
    assert_eq!(rd(&pmu, Ceid0), 0x2_0101);
    assert_eq!(rd(&pmu, Ceid1), 0);
    assert_eq!((pmu.id_aa64dfr0() >> 8) & 0xF, 1);
}

#[test]
fn neoverse_v1_like_preset_is_pmuv3p5_plus_with_the_common_events() {
    let pmu = EmulatedPmu::neoverse_v1_like();
    assert!((pmu.id_aa64dfr0() >> 8) & 0xF >= 6);
    assert_eq!((rd(&pmu, Pmcr) >> 11) & 0x1F, 6);
    let ceid0 = rd(&pmu, Ceid0);
    let ceid1 = rd(&pmu, Ceid1);
    for e in [0x06, 0x07, 0x08, 0x10, 0x11, 0x12, 0x13] {
        assert!(ceid0 & (1 << e) != 0, "event {e:#x}");
    }
    for e in [0x21, 0x22, 0x23, 0x24] {
        assert!(ceid1 & (1 << (e - 0x20)) != 0, "event {e:#x}");
    }
}

#[test]
fn tock_register_fields_work_on_the_emulated_back_end() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    let pmcr = pmu.pmcr();
    assert_eq!(pmcr.read(PMCR_EL0::N), 6);
    assert_eq!(pmcr.read(PMCR_EL0::IMP), 0x41);
    pmcr.modify(PMCR_EL0::E::SET + PMCR_EL0::LC::SET);
    assert!(pmcr.is_set(PMCR_EL0::E));
    assert!(pmcr.is_set(PMCR_EL0::LC));
    let typer = pmu.view::<PMEVTYPER_EL0::Register>(EvTyper(3));
    typer.write(PMEVTYPER_EL0::evtCount.val(0x11) + PMEVTYPER_EL0::U::SET);
    assert_eq!(rd(&pmu, EvTyper(3)), 0x4000_0011);
    assert_eq!(pmcr.fault(), None);
}

#[test]
fn enables_overflow_flags_and_interrupt_enables_are_write_one_to_set_and_clear() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    for (set, clr) in [(CntenSet, CntenClr), (OvsSet, OvsClr), (IntenSet, IntenClr)] {
        wr(&pmu, set, 0b101);
        wr(&pmu, set, 0b010); // writing 0s leaves bits alone
        assert_eq!(rd(&pmu, set), 0b111, "{set}");
        assert_eq!(rd(&pmu, clr), 0b111, "{clr} reads the same state");
        wr(&pmu, clr, 0b001);
        assert_eq!(rd(&pmu, set), 0b110, "{set} after clear");
        wr(&pmu, clr, 0);
        assert_eq!(rd(&pmu, set), 0b110);
    }
}

#[test]
fn pmcr_p_and_c_reset_counters_and_read_as_zero() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    for i in 0..6 {
        wr(&pmu, EvCntr(i), 100 + u64::from(i));
    }
    wr(&pmu, Ccntr, 5000);
    wr(&pmu, Pmcr, P);
    assert!((0..6).all(|i| rd(&pmu, EvCntr(i)) == 0));
    assert_eq!(rd(&pmu, Ccntr), 5000, "P leaves the cycle counter alone");
    assert_eq!(rd(&pmu, Pmcr) & (P | C), 0);
    wr(&pmu, EvCntr(2), 7);
    wr(&pmu, Pmcr, C);
    assert_eq!(rd(&pmu, Ccntr), 0);
    assert_eq!(rd(&pmu, EvCntr(2)), 7, "C leaves event counters alone");
    assert_eq!(rd(&pmu, Pmcr) & (P | C), 0);
}

#[test]
fn counters_and_bits_at_or_above_n_are_raz_wi() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    for r in [CntenSet, OvsSet, IntenSet] {
        wr(&pmu, r, 0xFFFF_FFFF);
        assert_eq!(rd(&pmu, r), 0x8000_003F, "{r}: P[5:0] and C only");
    }
    wr(&pmu, EvCntr(6), 1234);
    assert_eq!(rd(&pmu, EvCntr(6)), 0);
    wr(&pmu, EvTyper(30), 0x08);
    assert_eq!(rd(&pmu, EvTyper(30)), 0);
    assert_eq!(
        pmu.read(EvCntr(31)),
        Err(AccessError::NoSuchRegister(EvCntr(31)))
    );
    assert_eq!(
        pmu.write(EvTyper(31), 0),
        Err(AccessError::NoSuchRegister(EvTyper(31)))
    );
    // PMSWINC bits >= N do nothing (no counter 6 to increment, and counter 0..5 untouched).
    program(&pmu, 0, 0x00, 0);
    wr(&pmu, Swinc, 1 << 6);
    assert_eq!(rd(&pmu, EvCntr(0)), 0);
}

#[test]
fn pmselr_selects_the_counter_seen_through_pmxevtyper_and_pmxevcntr() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, Selr, 2);
    wr(&pmu, XevTyper, 0x08);
    wr(&pmu, XevCntr, 77);
    assert_eq!(rd(&pmu, EvTyper(2)), 0x08);
    assert_eq!(rd(&pmu, EvCntr(2)), 77);
    wr(&pmu, EvCntr(2), 78);
    assert_eq!(rd(&pmu, XevCntr), 78);
    // SEL = 31 reaches PMCCFILTR (filter bits only).
    wr(&pmu, Selr, 31);
    wr(&pmu, XevTyper, 0x8000_0000 | 0x11);
    assert_eq!(rd(&pmu, Ccfiltr), 0x8000_0000);
    assert_eq!(rd(&pmu, XevTyper), 0x8000_0000);
    // SEL >= N (and != 31): RAZ/WI.
    wr(&pmu, Selr, 9);
    wr(&pmu, XevTyper, 0x08);
    wr(&pmu, XevCntr, 5);
    assert_eq!(rd(&pmu, XevTyper), 0);
    assert_eq!(rd(&pmu, XevCntr), 0);
    assert_eq!(rd(&pmu, Selr), 9);
}

#[test]
fn pmcr_e_and_pmcnten_both_gate_counting() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, EvTyper(0), u64::from(INST_RETIRED));
    pmu.count(INST_RETIRED, 10);
    assert_eq!(rd(&pmu, EvCntr(0)), 0, "neither enabled");
    wr(&pmu, CntenSet, 1);
    pmu.count(INST_RETIRED, 10);
    assert_eq!(rd(&pmu, EvCntr(0)), 0, "PMCR.E clear");
    wr(&pmu, Pmcr, E);
    pmu.count(INST_RETIRED, 10);
    assert_eq!(rd(&pmu, EvCntr(0)), 10);
    wr(&pmu, CntenClr, 1);
    pmu.count(INST_RETIRED, 10);
    assert_eq!(rd(&pmu, EvCntr(0)), 10, "PMCNTEN clear");
    pmu.count(L1D_CACHE, 10);
    assert_eq!(rd(&pmu, EvCntr(0)), 10, "other events do not count");
    // Cycle counter: C bit and E.
    pmu.tick_cycles(5);
    assert_eq!(rd(&pmu, Ccntr), 0);
    wr(&pmu, CntenSet, CYCLE_BIT);
    pmu.tick_cycles(5);
    assert_eq!(rd(&pmu, Ccntr), 5);
    wr(&pmu, Pmcr, 0);
    pmu.tick_cycles(5);
    assert_eq!(rd(&pmu, Ccntr), 5);
}

#[test]
fn cpu_cycles_event_counters_follow_the_clock() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    program(&pmu, 1, CPU_CYCLES, 0);
    wr(&pmu, CntenSet, CYCLE_BIT);
    pmu.tick_cycles(9);
    assert_eq!(rd(&pmu, EvCntr(1)), 9);
    assert_eq!(rd(&pmu, Ccntr), 9);
}

#[test]
fn event_counter_overflows_at_bit_31_on_pmuv3() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    program(&pmu, 3, INST_RETIRED, 0);
    wr(&pmu, EvCntr(3), 0xFFFF_FFFE);
    pmu.count(INST_RETIRED, 1);
    assert_eq!(rd(&pmu, OvsSet), 0, "no overflow yet");
    pmu.count(INST_RETIRED, 3);
    assert_eq!(rd(&pmu, EvCntr(3)), 2, "32-bit counter wraps");
    assert_eq!(rd(&pmu, OvsSet), 1 << 3);
    // A 64-bit write keeps only the 32 bits a PMUv3 counter has.
    wr(&pmu, EvCntr(3), 0x1_2345_6789);
    assert_eq!(rd(&pmu, EvCntr(3)), 0x2345_6789);
    // LP is RES0 without FEAT_PMUv3p5.
    wr(&pmu, Pmcr, E | LP);
    assert_eq!(rd(&pmu, Pmcr) & LP, 0);
}

#[test]
fn event_counter_overflows_at_bit_31_without_lp_and_at_bit_63_with_lp() {
    let pmu = EmulatedPmu::neoverse_v1_like();
    program(&pmu, 0, INST_RETIRED, 0);
    wr(&pmu, EvCntr(0), 0xFFFF_FFFE);
    pmu.count(INST_RETIRED, 3);
    assert_eq!(
        rd(&pmu, EvCntr(0)),
        0x1_0000_0001,
        "64-bit counter keeps counting"
    );
    assert_eq!(rd(&pmu, OvsSet), 1, "overflow flagged at the bit-31 carry");
    wr(&pmu, OvsClr, 1);
    wr(&pmu, Pmcr, E | LP);
    assert_eq!(rd(&pmu, Pmcr) & LP, LP);
    wr(&pmu, EvCntr(0), 0xFFFF_FFFE);
    pmu.count(INST_RETIRED, 3);
    assert_eq!(rd(&pmu, OvsSet), 0, "LP: no overflow at bit 31");
    wr(&pmu, EvCntr(0), u64::MAX - 1);
    pmu.count(INST_RETIRED, 3);
    assert_eq!(rd(&pmu, EvCntr(0)), 1);
    assert_eq!(rd(&pmu, OvsSet), 1, "LP: overflow at bit 63");
}

#[test]
fn cycle_counter_overflows_at_bit_31_without_lc_and_at_bit_63_with_lc() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, CntenSet, CYCLE_BIT);
    wr(&pmu, Pmcr, E);
    wr(&pmu, Ccntr, 0xFFFF_FFFF);
    pmu.tick_cycles(1);
    assert_eq!(rd(&pmu, Ccntr), 0x1_0000_0000, "PMCCNTR is 64 bits");
    assert_eq!(
        rd(&pmu, OvsSet),
        CYCLE_BIT,
        "flag at bit 31 of PMOVS, not at N"
    );
    wr(&pmu, OvsClr, CYCLE_BIT);
    wr(&pmu, Pmcr, E | LC);
    wr(&pmu, Ccntr, 0xFFFF_FFFF);
    pmu.tick_cycles(1);
    assert_eq!(rd(&pmu, OvsSet), 0);
    wr(&pmu, Ccntr, u64::MAX);
    pmu.tick_cycles(2);
    assert_eq!(rd(&pmu, Ccntr), 1);
    assert_eq!(rd(&pmu, OvsSet), CYCLE_BIT);
}

#[test]
fn pmcr_d_divides_the_cycle_counter_by_64_unless_lc() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, CntenSet, CYCLE_BIT);
    wr(&pmu, Pmcr, E | D);
    pmu.tick_cycles(130);
    assert_eq!(rd(&pmu, Ccntr), 2);
    pmu.tick_cycles(62); // 192 cycles in all
    assert_eq!(rd(&pmu, Ccntr), 3);
    wr(&pmu, Pmcr, E | D | LC);
    pmu.tick_cycles(130);
    assert_eq!(rd(&pmu, Ccntr), 133, "LC: D ignored");
}

#[test]
fn fzo_freezes_event_counters_while_an_overflow_flag_is_set() {
    let pmu = EmulatedPmu::neoverse_v1_like();
    wr(&pmu, EvTyper(0), u64::from(INST_RETIRED));
    wr(&pmu, EvTyper(1), u64::from(INST_RETIRED));
    wr(&pmu, EvTyper(2), u64::from(L1D_CACHE));
    wr(&pmu, CntenSet, 0b111 | CYCLE_BIT);
    wr(&pmu, Pmcr, E | FZO);
    assert_eq!(rd(&pmu, Pmcr) & FZO, FZO);
    wr(&pmu, EvCntr(0), 0xFFFF_FFFD);
    wr(&pmu, EvCntr(1), 100);
    pmu.count(INST_RETIRED, 10);
    // Counter 0 overflows on the 3rd event; everything stops there.
    assert_eq!(rd(&pmu, EvCntr(0)), 0x1_0000_0000);
    assert_eq!(rd(&pmu, EvCntr(1)), 103);
    assert_eq!(rd(&pmu, OvsSet), 1);
    pmu.count(L1D_CACHE, 4);
    assert_eq!(rd(&pmu, EvCntr(2)), 0, "all event counters frozen");
    pmu.tick_cycles(4);
    assert_eq!(rd(&pmu, Ccntr), 4, "the cycle counter is not frozen");
    wr(&pmu, OvsClr, 1);
    pmu.count(L1D_CACHE, 4);
    assert_eq!(
        rd(&pmu, EvCntr(2)),
        4,
        "counting resumes once the flag is cleared"
    );
    // Without FEAT_PMUv3p7 FZO is RES0.
    let old = EmulatedPmu::qemu_cortex_a57();
    wr(&old, Pmcr, E | FZO);
    assert_eq!(rd(&old, Pmcr) & FZO, 0);
}

#[test]
fn el_filters_apply_against_the_current_el() {
    const FILTER_P: u64 = 1 << 31;
    const FILTER_U: u64 = 1 << 30;
    const FILTER_NSH: u64 = 1 << 27;
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, EvTyper(0), FILTER_U | u64::from(INST_RETIRED)); // not EL0
    wr(&pmu, EvTyper(1), FILTER_P | u64::from(INST_RETIRED)); // not EL1
    wr(&pmu, EvTyper(2), FILTER_NSH | u64::from(INST_RETIRED)); // also EL2
    wr(&pmu, Ccfiltr, FILTER_P);
    wr(&pmu, CntenSet, 0b111 | CYCLE_BIT);
    wr(&pmu, Pmcr, E);
    pmu.set_el(ExceptionLevel::El0);
    pmu.count(INST_RETIRED, 1);
    pmu.tick_cycles(1);
    pmu.set_el(ExceptionLevel::El1);
    pmu.count(INST_RETIRED, 10);
    pmu.tick_cycles(10);
    pmu.set_el(ExceptionLevel::El2);
    pmu.count(INST_RETIRED, 100);
    pmu.tick_cycles(100);
    assert_eq!(rd(&pmu, EvCntr(0)), 10, "U: EL1 only (EL2 needs NSH)");
    assert_eq!(rd(&pmu, EvCntr(1)), 1, "P: EL0 only");
    assert_eq!(rd(&pmu, EvCntr(2)), 111, "NSH: EL0, EL1 and EL2");
    assert_eq!(rd(&pmu, Ccntr), 1, "PMCCFILTR.P: EL0 only");
}

#[test]
fn pmuserenr_gates_el0_accesses() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    pmu.set_el(ExceptionLevel::El0);
    let trapped = |r, access| AccessError::TrappedAtEl0 {
        register: r,
        access,
    };
    assert_eq!(pmu.read(Pmcr), Err(trapped(Pmcr, RegisterAccess::Read)));
    assert_eq!(pmu.read(Ccntr), Err(trapped(Ccntr, RegisterAccess::Read)));
    assert_eq!(
        pmu.write(Swinc, 1),
        Err(trapped(Swinc, RegisterAccess::Write))
    );
    assert_eq!(
        pmu.read(EvCntr(0)),
        Err(trapped(EvCntr(0), RegisterAccess::Read))
    );
    assert!(pmu.read(Userenr).is_ok(), "PMUSERENR is readable at EL0");
    assert_eq!(pmu.write(Userenr, 1), Err(AccessError::ReadOnly(Userenr)));

    let set_userenr = |v| {
        pmu.set_el(ExceptionLevel::El1);
        wr(&pmu, Userenr, v);
        pmu.set_el(ExceptionLevel::El0);
    };
    set_userenr(0b0010); // SW
    assert!(pmu.write(Swinc, 1).is_ok());
    assert!(pmu.read(Ccntr).is_err());
    set_userenr(0b0100); // CR
    assert!(pmu.read(Ccntr).is_ok());
    assert_eq!(
        pmu.write(Ccntr, 0),
        Err(trapped(Ccntr, RegisterAccess::Write))
    );
    set_userenr(0b1000); // ER
    assert!(pmu.read(EvCntr(0)).is_ok());
    assert!(pmu.read(XevCntr).is_ok());
    assert!(pmu.write(Selr, 1).is_ok());
    assert_eq!(
        pmu.write(EvCntr(0), 0),
        Err(trapped(EvCntr(0), RegisterAccess::Write))
    );
    assert!(pmu.read(Pmcr).is_err());
    set_userenr(0b0001); // EN
    assert!(pmu.read(Pmcr).is_ok());
    assert!(pmu.write(EvTyper(0), 0x08).is_ok());
    assert_eq!(
        pmu.read(IntenSet),
        Err(AccessError::UndefinedAtEl0(IntenSet))
    );
    assert_eq!(
        pmu.write(IntenClr, 1),
        Err(AccessError::UndefinedAtEl0(IntenClr))
    );

    // Through a tock-registers view the refused access reads 0 and the error is latched.
    set_userenr(0);
    let userenr_view = pmu.view::<PMUSERENR_EL0::Register>(Userenr);
    assert!(!userenr_view.is_set(PMUSERENR_EL0::EN));
    let pmcr = pmu.pmcr();
    assert_eq!(pmcr.get(), 0);
    assert_eq!(
        pmcr.fault(),
        Some(AccessError::TrappedAtEl0 {
            register: Pmcr,
            access: RegisterAccess::Read
        })
    );
}

#[test]
fn sw_incr_counts_pmswinc_writes() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    program(&pmu, 0, 0x00, 0);
    program(&pmu, 1, 0x00, 0);
    program(&pmu, 2, INST_RETIRED, 0);
    wr(&pmu, EvTyper(3), 0x00); // SW_INCR but not enabled
    wr(&pmu, Swinc, 0b1111);
    wr(&pmu, Swinc, 0b0001);
    assert_eq!(rd(&pmu, EvCntr(0)), 2);
    assert_eq!(rd(&pmu, EvCntr(1)), 1);
    assert_eq!(rd(&pmu, EvCntr(2)), 0, "not a SW_INCR counter");
    assert_eq!(rd(&pmu, EvCntr(3)), 0, "disabled");
    assert_eq!(pmu.read(Swinc), Err(AccessError::WriteOnly(Swinc)));
    pmu.count(0x00, 5);
    assert_eq!(rd(&pmu, EvCntr(0)), 2, "SW_INCR only counts PMSWINC writes");
    // SW_INCR overflow sets the flag like any event.
    wr(&pmu, EvCntr(0), 0xFFFF_FFFF);
    wr(&pmu, Swinc, 1);
    assert_eq!(rd(&pmu, EvCntr(0)), 0);
    assert_eq!(rd(&pmu, OvsSet), 1);
}

#[test]
fn interrupt_line_is_e_and_inten_and_ovs() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, OvsSet, 1 << 2);
    assert!(!pmu.irq_line(), "no enable");
    wr(&pmu, IntenSet, 1 << 1);
    wr(&pmu, Pmcr, E);
    assert!(!pmu.irq_line(), "enable for another counter");
    wr(&pmu, IntenSet, 1 << 2);
    assert!(pmu.irq_line());
    wr(&pmu, Pmcr, 0);
    assert!(!pmu.irq_line(), "PMCR.E clear");
    wr(&pmu, Pmcr, E);
    wr(&pmu, OvsClr, 1 << 2);
    assert!(!pmu.irq_line(), "flag cleared");
    // A real overflow raises it.
    program(&pmu, 1, INST_RETIRED, 0);
    wr(&pmu, EvCntr(1), 0xFFFF_FFFF);
    pmu.count(INST_RETIRED, 1);
    assert!(pmu.irq_line());
}

#[test]
fn is_counting_reports_enabled_counters_programmed_with_the_event() {
    let pmu = EmulatedPmu::qemu_cortex_a57();
    wr(&pmu, EvTyper(4), u64::from(INST_RETIRED));
    assert!(!pmu.is_counting(INST_RETIRED));
    wr(&pmu, CntenSet, 1 << 4);
    assert!(!pmu.is_counting(INST_RETIRED), "PMCR.E clear");
    wr(&pmu, Pmcr, E);
    assert!(pmu.is_counting(INST_RETIRED));
    assert!(!pmu.is_counting(L1D_CACHE));
    assert!(!pmu.is_counting(CPU_CYCLES));
    wr(&pmu, CntenSet, CYCLE_BIT);
    assert!(
        pmu.is_counting(CPU_CYCLES),
        "the cycle counter counts CPU_CYCLES"
    );
    wr(&pmu, CntenClr, 1 << 4);
    assert!(!pmu.is_counting(INST_RETIRED));
}

#[test]
fn evtcount_is_10_bits_on_pmuv3_and_16_bits_from_pmuv3p1() {
    let a57 = EmulatedPmu::qemu_cortex_a57();
    wr(&a57, EvTyper(0), 0xFFFF_FFFF);
    assert_eq!(rd(&a57, EvTyper(0)), 0xFC00_03FF);
    let v1 = EmulatedPmu::neoverse_v1_like();
    wr(&v1, EvTyper(0), 0xFFFF_FFFF);
    assert_eq!(rd(&v1, EvTyper(0)), 0xFC00_FFFF);
    assert_eq!(a57.write(Ceid0, 0), Err(AccessError::ReadOnly(Ceid0)));
}

#[test]
fn instruction_counter_counts_inst_retired_when_implemented() {
    let pmu = EmulatedPmu::new(EmulatedConfig {
        instruction_counter: true,
        ..EmulatedConfig::neoverse_v1_like()
    });
    const F0: u64 = 1 << 32;
    wr(&pmu, CntenSet, F0 | 1 << 7);
    assert_eq!(rd(&pmu, CntenSet), F0, "F0 exists, P7 does not");
    wr(&pmu, Pmcr, E);
    pmu.count(INST_RETIRED, 12);
    assert_eq!(rd(&pmu, Icntr), 12);
    assert_eq!(rd(&pmu, Icfiltr) & 0xFFFF, u64::from(INST_RETIRED));
    assert!(pmu.is_counting(INST_RETIRED));
    wr(&pmu, Pmcr, E | P);
    assert_eq!(rd(&pmu, Icntr), 0, "PMCR.P resets PMICNTR");
    let none = EmulatedPmu::neoverse_v1_like();
    assert_eq!(none.read(Icntr), Err(AccessError::NotImplemented(Icntr)));
    wr(&none, CntenSet, F0);
    assert_eq!(rd(&none, CntenSet), 0);
}

#[test]
fn common_events_the_pmu_does_not_implement_never_count() {
    // PMCEID0 of the QEMU preset lacks L1D_CACHE (0x04): a counter programmed with it stays 0.
    let pmu = EmulatedPmu::qemu_cortex_a57();
    program(&pmu, 0, L1D_CACHE, 0);
    program(&pmu, 1, 0xC0, 0); // IMPLEMENTATION DEFINED: PMCEID says nothing, it counts
    pmu.count(L1D_CACHE, 5);
    pmu.count(0xC0, 3);
    assert_eq!(rd(&pmu, EvCntr(0)), 0);
    assert_eq!(rd(&pmu, EvCntr(1)), 3);
    let v1 = EmulatedPmu::neoverse_v1_like();
    program(&v1, 0, L1D_CACHE, 0);
    v1.count(L1D_CACHE, 5);
    assert_eq!(rd(&v1, EvCntr(0)), 5);
}
