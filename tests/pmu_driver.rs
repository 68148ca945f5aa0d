//! The driver over the emulated back end: detection, programming, the Linux register order,
//! 64-bit counts from 32-bit counters, snapshots and deltas across wrap.

use std::cell::RefCell;

use pmprobe::pmu::Event;
use pmprobe::pmu::PmuVersion;
use pmprobe::pmu::{AccessError, ExceptionLevel, PmuBackend, PmuRegister};
use pmprobe::pmu::{Counter, Error, Pmu, Snapshot, detect};
use pmprobe::pmu::{EmulatedConfig, EmulatedPmu};

use PmuRegister::*;

#[test]
fn detect_on_the_qemu_a57_preset() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let info = detect(&cpu).unwrap();
    assert_eq!(info.version, PmuVersion::V3);
    assert_eq!(info.counters, 6);
    assert_eq!(info.implementer, 0x41);
    let events: Vec<Event> = info.events.iter().collect();
    assert_eq!(
        events,
        [Event::SW_INCR, Event::INST_RETIRED, Event::CPU_CYCLES]
    );
    assert_eq!(
        info.events.to_string(),
        "{SW_INCR, INST_RETIRED, CPU_CYCLES}"
    );
    assert!(!info.long_event_counters);
    assert!(!info.freeze_on_overflow);
    assert_eq!(info.cpu.to_string(), "Arm Cortex-A57 r1p0");
}

#[test]
fn detect_on_the_neoverse_v1_like_preset() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let info = detect(&cpu).unwrap();
    assert!(info.version.at_least(PmuVersion::V3p5));
    assert!(info.long_event_counters);
    assert!(info.freeze_on_overflow);
    assert!(info.events.contains(Event::BR_MIS_PRED_RETIRED));
    assert!(info.cpu.to_string().starts_with("Arm Neoverse-V1"));
}

#[test]
fn detect_rejects_no_pmu_and_impdef_pmu() {
    for (ver, expected) in [(0, PmuVersion::None), (0xF, PmuVersion::ImpDef)] {
        let cpu = EmulatedPmu::new(EmulatedConfig {
            pmu_version: ver,
            ..EmulatedConfig::qemu_cortex_a57()
        });
        assert_eq!(detect(&cpu), Err(Error::NoPmu(expected)));
        assert!(matches!(Pmu::new(&cpu), Err(Error::NoPmu(_))));
    }
}

#[test]
fn detect_at_el0_without_access_reports_the_trap() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    cpu.set_el(ExceptionLevel::El0);
    assert!(matches!(
        detect(&cpu),
        Err(Error::Access(AccessError::TrappedAtEl0 {
            register: Pmcr,
            ..
        }))
    ));
}

#[test]
fn cycles_go_to_pmccntr_and_other_events_to_free_event_counters() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    assert_eq!(pmu.program(Event::CPU_CYCLES), Ok(Counter::Cycle));
    assert_eq!(pmu.program(Event::INST_RETIRED), Ok(Counter::Event(0)));
    assert_eq!(pmu.program(Event::SW_INCR), Ok(Counter::Event(1)));
    // PMCCNTR taken: CPU_CYCLES (implemented per PMCEID0) goes to an event counter.
    assert_eq!(pmu.program(Event::CPU_CYCLES), Ok(Counter::Event(2)));
    assert_eq!(cpu.read(EvTyper(0)).unwrap() & 0xFFFF, 0x08);
    assert_eq!(cpu.read(EvTyper(2)).unwrap() & 0xFFFF, 0x11);
    assert_eq!(cpu.read(CntenSet).unwrap(), (1 << 31) | 0b111);
    pmu.program(Event::INST_RETIRED).unwrap();
    pmu.program(Event::INST_RETIRED).unwrap();
    pmu.program(Event::INST_RETIRED).unwrap();
    assert_eq!(pmu.program(Event::INST_RETIRED), Err(Error::NoFreeCounter));
    pmu.release(Counter::Event(1)).unwrap();
    assert_eq!(
        pmu.program(Event::SW_INCR),
        Ok(Counter::Event(1)),
        "released counters are reused"
    );
}

#[test]
fn programming_errors_are_typed() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    assert_eq!(
        pmu.program(Event::L1D_CACHE),
        Err(Error::EventNotImplemented(Event::L1D_CACHE))
    );
    assert_eq!(
        pmu.program(Event::raw(0x4005)),
        Err(Error::EventNotImplemented(Event::raw(0x4005)))
    );
    assert_eq!(
        pmu.program_on(Counter::Event(6), Event::INST_RETIRED, false),
        Err(Error::CounterOutOfRange(6))
    );
    assert_eq!(
        pmu.read(Counter::Event(30)),
        Err(Error::CounterOutOfRange(30))
    );
    assert_eq!(
        pmu.read(Counter::Event(2)),
        Err(Error::NotProgrammed(Counter::Event(2)))
    );
    pmu.program_on(Counter::Event(2), Event::INST_RETIRED, false)
        .unwrap();
    assert_eq!(
        pmu.program_on(Counter::Event(2), Event::SW_INCR, false),
        Err(Error::CounterBusy(Counter::Event(2)))
    );
    // An IMPLEMENTATION DEFINED event cannot be checked against PMCEID: accepted.
    assert!(pmu.program(Event::raw(0xC0)).is_ok());
    // ...if its number fits PMUv3's 10-bit evtCount: 0xC001 would program event 0x001.
    assert_eq!(
        pmu.program(Event::raw(0xC001)),
        Err(Error::EventTooWide {
            event: Event::raw(0xC001),
            bits: 10
        })
    );
    assert_eq!(
        pmu.program_on(Counter::Event(3), Event::raw(0x400), true),
        Err(Error::EventTooWide {
            event: Event::raw(0x400),
            bits: 10
        })
    );
    assert_eq!(pmu.event_of(Counter::Event(3)), None, "nothing programmed");
    assert!(
        pmu.program(Event::raw(0x3FF)).is_ok(),
        "the widest that fits"
    );
    assert_eq!(
        Error::EventTooWide {
            event: Event::raw(0xC001),
            bits: 10
        }
        .to_string(),
        "event 0xC001 does not fit this PMU's 10-bit event number field"
    );
    assert_eq!(
        Error::EventNotImplemented(Event::L1D_CACHE).to_string(),
        "event L1D_CACHE is not implemented by this PMU"
    );
}

#[test]
fn from_pmuv3p1_on_a_16_bit_event_number_is_programmed_whole() {
    assert_eq!(PmuVersion::V3.event_bits(), 10);
    assert_eq!(PmuVersion::V3p1.event_bits(), 16);
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let counter = pmu.program(Event::raw(0xC001)).unwrap();
    let Counter::Event(n) = counter else {
        panic!("0xC001 went to {counter}")
    };
    assert_eq!(cpu.read(EvTyper(n)).unwrap() & 0xFFFF, 0xC001);
}

/// A back end that records every access in order, to check the driver's register sequences.
struct Recorder<'a> {
    inner: &'a EmulatedPmu,
    log: RefCell<Vec<Op>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    W(PmuRegister, u64),
    R(PmuRegister),
    Isb,
}

impl PmuBackend for Recorder<'_> {
    fn read(&self, r: PmuRegister) -> Result<u64, AccessError> {
        self.log.borrow_mut().push(Op::R(r));
        self.inner.read(r)
    }
    fn write(&self, r: PmuRegister, v: u64) -> Result<(), AccessError> {
        self.log.borrow_mut().push(Op::W(r, v));
        self.inner.write(r, v)
    }
    fn current_el(&self) -> ExceptionLevel {
        self.inner.current_el()
    }
    fn id_aa64dfr0(&self) -> u64 {
        self.inner.id_aa64dfr0()
    }
    fn id_aa64dfr1(&self) -> u64 {
        self.inner.id_aa64dfr1()
    }
    fn midr(&self) -> u64 {
        self.inner.midr()
    }
    fn isb(&self) {
        self.log.borrow_mut().push(Op::Isb);
    }
}

fn writes_and_isbs(log: &[Op]) -> Vec<Op> {
    log.iter()
        .copied()
        .filter(|op| !matches!(op, Op::R(_)))
        .collect()
}

#[test]
fn reset_uses_linux_order() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let rec = Recorder {
        inner: &cpu,
        log: RefCell::new(Vec::new()),
    };
    let _pmu = Pmu::new(&rec).unwrap();
    let ops = writes_and_isbs(&rec.log.borrow());
    // PMCNTENCLR = all, PMINTENCLR = all, isb, PMOVSCLR = all, isb, PMCR = P|C|LC.
    assert_eq!(
        ops[..6],
        [
            Op::W(CntenClr, 0xFFFF_FFFF),
            Op::W(IntenClr, 0xFFFF_FFFF),
            Op::Isb,
            Op::W(OvsClr, 0xFFFF_FFFF),
            Op::Isb,
            Op::W(Pmcr, (1 << 1) | (1 << 2) | (1 << 6)),
        ]
    );
    // PMUv3p5: LP too.
    let v1 = EmulatedPmu::neoverse_v1_like();
    let rec = Recorder {
        inner: &v1,
        log: RefCell::new(Vec::new()),
    };
    let _pmu = Pmu::new(&rec).unwrap();
    assert!(
        rec.log
            .borrow()
            .contains(&Op::W(Pmcr, (1 << 1) | (1 << 2) | (1 << 6) | (1 << 7)))
    );
}

fn position(ops: &[Op], op: Op) -> usize {
    ops.iter()
        .position(|o| *o == op)
        .unwrap_or_else(|| panic!("{op:?} not in {ops:?}"))
}

#[test]
fn enable_and_disable_use_linux_order() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let rec = Recorder {
        inner: &cpu,
        log: RefCell::new(Vec::new()),
    };
    let mut pmu = Pmu::new(&rec).unwrap();
    rec.log.borrow_mut().clear();
    pmu.program_on(Counter::Event(3), Event::INST_RETIRED, true)
        .unwrap();
    let ops = writes_and_isbs(&rec.log.borrow());
    // PMCNTENCLR bit, isb, PMEVTYPER, PMINTENSET, isb, PMCNTENSET bit (last).
    let clr = position(&ops, Op::W(CntenClr, 1 << 3));
    let typer = position(&ops, Op::W(EvTyper(3), 0x08));
    let inten = position(&ops, Op::W(IntenSet, 1 << 3));
    let set = position(&ops, Op::W(CntenSet, 1 << 3));
    assert_eq!(ops[clr + 1], Op::Isb);
    assert!(clr < typer && typer < inten && inten < set);
    assert_eq!(ops[set - 1], Op::Isb);
    assert_eq!(set, ops.len() - 1);

    rec.log.borrow_mut().clear();
    pmu.release(Counter::Event(3)).unwrap();
    assert_eq!(
        writes_and_isbs(&rec.log.borrow()),
        [
            Op::W(CntenClr, 1 << 3),
            Op::Isb,
            Op::W(IntenClr, 1 << 3),
            Op::Isb,
            Op::W(OvsClr, 1 << 3),
            Op::Isb,
        ]
    );
}

#[test]
fn start_stop_and_reset_counts() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let cycles = pmu.program(Event::CPU_CYCLES).unwrap();
    let insts = pmu.program(Event::INST_RETIRED).unwrap();
    cpu.count(0x08, 5);
    cpu.tick_cycles(5);
    assert_eq!(pmu.read(insts), Ok(0), "not started");
    assert!(!pmu.is_running().unwrap());
    pmu.start().unwrap();
    assert!(pmu.is_running().unwrap());
    cpu.count(0x08, 7);
    cpu.tick_cycles(9);
    pmu.stop().unwrap();
    cpu.count(0x08, 100);
    assert_eq!(pmu.read(insts), Ok(7));
    assert_eq!(pmu.read(cycles), Ok(9));
    pmu.reset_counts().unwrap();
    assert_eq!(pmu.read(insts), Ok(0));
    assert_eq!(pmu.read(cycles), Ok(0));
    assert!(!pmu.is_running().unwrap(), "reset_counts keeps E");
}

#[test]
fn thirty_two_bit_counters_read_as_64_bit_counts_across_wraps() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let insts = pmu.program(Event::INST_RETIRED).unwrap();
    pmu.preload(insts, 0xFFFF_FFF0).unwrap();
    pmu.start().unwrap();
    cpu.count(0x08, 0x20);
    assert_eq!(
        pmu.overflow_flags().unwrap() & 1,
        1,
        "hardware flagged the wrap"
    );
    assert_eq!(pmu.read(insts), Ok(0x1_0000_0010));
    assert_eq!(
        pmu.overflow_flags().unwrap() & 1,
        0,
        "the driver took the flag"
    );
    // Several wraps, each taken by the interrupt-handler entry point.
    for k in 2..6u64 {
        cpu.count(0x08, 0x1_0000_0000);
        assert_eq!(pmu.service_overflow(), Ok(1));
        assert_eq!(pmu.read(insts), Ok(k << 32 | 0x10));
    }
    // Preloading a 64-bit value keeps the upper half in software.
    pmu.preload(insts, 0x7_FFFF_FFFF).unwrap();
    cpu.count(0x08, 2);
    assert_eq!(pmu.read(insts), Ok(0x8_0000_0001));
}

#[test]
fn snapshot_reads_every_programmed_counter_and_delta_is_right_across_wrap() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let cycles = pmu.program(Event::CPU_CYCLES).unwrap();
    let insts = pmu.program(Event::INST_RETIRED).unwrap();
    let sw = pmu.program(Event::SW_INCR).unwrap();
    pmu.preload(insts, 0xFFFF_FF00).unwrap();
    pmu.start().unwrap();
    let before = pmu.snapshot().unwrap();
    assert_eq!(before.len(), 3);
    cpu.count(0x08, 0x300); // wraps the 32-bit counter
    cpu.tick_cycles(1000);
    cpu.write(Swinc, 1 << 1).unwrap();
    let after = pmu.snapshot().unwrap();
    let delta = after.delta(&before);
    assert_eq!(delta.get(insts), Some(0x300));
    assert_eq!(delta.get(cycles), Some(1000));
    assert_eq!(delta.get(sw), Some(1));
    assert_eq!(delta.count_of(Event::INST_RETIRED), Some(0x300));
    assert_eq!(after.get(insts), Some(0x1_0000_0200));
    let listed: Vec<_> = delta.iter().collect();
    assert_eq!(
        listed,
        [
            (Counter::Cycle, Event::CPU_CYCLES, 1000),
            (insts, Event::INST_RETIRED, 0x300),
            (sw, Event::SW_INCR, 1)
        ]
    );
}

#[test]
fn delta_is_right_across_a_64_bit_wrap() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let insts = pmu.program(Event::INST_RETIRED).unwrap();
    pmu.preload(insts, u64::MAX - 9).unwrap();
    pmu.start().unwrap();
    let before = pmu.snapshot().unwrap();
    cpu.count(0x08, 25);
    let after = pmu.snapshot().unwrap();
    assert_eq!(after.get(insts), Some(15));
    assert_eq!(after.delta(&before).get(insts), Some(25));
}

#[test]
fn delta_drops_counters_missing_or_reprogrammed_in_between() {
    let mut a = Snapshot::new();
    let mut b = Snapshot::new();
    a.insert(Counter::Event(0), Event::INST_RETIRED, 10);
    a.insert(Counter::Event(1), Event::SW_INCR, 10);
    b.insert(Counter::Event(0), Event::INST_RETIRED, 15);
    b.insert(Counter::Event(1), Event::L1D_CACHE, 20);
    b.insert(Counter::Cycle, Event::CPU_CYCLES, 20);
    let d = b.delta(&a);
    assert_eq!(d.len(), 1);
    assert_eq!(d.get(Counter::Event(0)), Some(5));
}

#[test]
fn at_el2_the_driver_sets_nsh_so_counting_happens() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    cpu.set_el(ExceptionLevel::El2);
    let mut pmu = Pmu::new(&cpu).unwrap();
    let insts = pmu.program(Event::INST_RETIRED).unwrap();
    let cycles = pmu.program(Event::CPU_CYCLES).unwrap();
    pmu.start().unwrap();
    cpu.count(0x08, 3);
    cpu.tick_cycles(4);
    assert_eq!(pmu.read(insts), Ok(3));
    assert_eq!(pmu.read(cycles), Ok(4));
}

#[test]
fn counter_indices_no_register_has_are_errors_not_panics() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    assert_eq!(
        pmu.read(Counter::Event(200)),
        Err(Error::CounterOutOfRange(200))
    );
    assert_eq!(
        pmu.program_on(Counter::Event(40), Event::INST_RETIRED, false),
        Err(Error::CounterOutOfRange(40))
    );
    assert_eq!(
        pmu.release(Counter::Event(255)),
        Err(Error::CounterOutOfRange(255))
    );
    let mut s = Snapshot::new();
    s.insert(Counter::Event(200), Event::INST_RETIRED, 1);
    assert!(s.is_empty());
    assert_eq!(s.get(Counter::Event(200)), None);
}
