//! Programming and freeing several counters at once: each step of Linux's order (arm_pmuv3's
//! `armv8pmu_enable_event`: disable, isb, event type, clear the overflow flag, zero the count,
//! isb, enable; `armv8pmu_disable_event` and the driver's release: disable, the last read,
//! interrupt off, overflow flag cleared) done with one register write for all the counters,
//! since PMCNTENCLR, PMOVSCLR, PMINTENCLR and PMCNTENSET take bit masks.

use std::cell::RefCell;

use pmprobe::pmu::{
    AccessError, Counter, EmulatedPmu, Error, Event, ExceptionLevel, Pmu, PmuBackend, PmuRegister,
};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    W(PmuRegister, u64),
    Isb,
}

/// Records the writes and isbs, to check the register sequence.
struct Recorder<'a> {
    inner: &'a EmulatedPmu,
    log: RefCell<Vec<Op>>,
}

impl PmuBackend for Recorder<'_> {
    fn read(&self, r: PmuRegister) -> Result<u64, AccessError> {
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

use Op::{Isb, W};
use PmuRegister::*;

#[test]
fn program_many_writes_each_step_once_for_all_counters() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let recorder = Recorder {
        inner: &cpu,
        log: RefCell::new(Vec::new()),
    };
    let mut pmu = Pmu::new(&recorder).unwrap();
    recorder.log.borrow_mut().clear();
    pmu.program_many(&[
        (Counter::Event(1), Event::BR_RETIRED),
        (Counter::Cycle, Event::CPU_CYCLES),
        (Counter::Event(4), Event::L1D_CACHE),
    ])
    .unwrap();
    let mask = 1 << 1 | 1 << 31 | 1 << 4;
    assert_eq!(
        *recorder.log.borrow(),
        [
            W(CntenClr, mask),
            Isb,
            W(EvTyper(1), 0x21),
            W(Ccfiltr, 0),
            W(EvTyper(4), 0x04),
            W(OvsClr, mask),
            W(EvCntr(1), 0),
            W(Ccntr, 0),
            W(EvCntr(4), 0),
            Isb,
            W(CntenSet, mask),
        ]
    );
    assert_eq!(pmu.event_of(Counter::Event(4)), Some(Event::L1D_CACHE));
    pmu.start().unwrap();
    cpu.count(Event::BR_RETIRED.number(), 7);
    assert_eq!(pmu.read(Counter::Event(1)), Ok(7));
}

#[test]
fn take_many_stops_reads_and_frees_in_one_pass() {
    let cpu = EmulatedPmu::qemu_cortex_a57(); // 32-bit event counters
    let recorder = Recorder {
        inner: &cpu,
        log: RefCell::new(Vec::new()),
    };
    let mut pmu = Pmu::new(&recorder).unwrap();
    pmu.program_many(&[
        (Counter::Event(0), Event::INST_RETIRED),
        (Counter::Event(2), Event::INST_RETIRED),
        (Counter::Cycle, Event::CPU_CYCLES),
    ])
    .unwrap();
    pmu.start().unwrap();
    pmu.preload(Counter::Event(2), 0xFFFF_FFF0).unwrap();
    cpu.count(Event::INST_RETIRED.number(), 0x20);
    cpu.tick_cycles(5);
    recorder.log.borrow_mut().clear();
    let mut counts = [0; 3];
    pmu.take_many(
        &[Counter::Event(2), Counter::Cycle, Counter::Event(0)],
        &mut counts,
    )
    .unwrap();
    // Counter 2 wrapped past 2^32 on the way: the software extension keeps the 64-bit count.
    assert_eq!(counts, [0x1_0000_0010, 5, 0x20]);
    let mask = 1 << 0 | 1 << 2 | 1 << 31;
    let log = recorder.log.borrow();
    let writes: Vec<Op> = log
        .iter()
        .copied()
        .filter(|op| matches!(op, W(..)))
        .collect();
    assert_eq!(
        writes,
        [
            W(CntenClr, mask),
            W(OvsClr, 1 << 2),
            W(IntenClr, mask),
            W(OvsClr, mask)
        ],
        "disabled first; the wrap's flag taken into the extension by the read"
    );
    assert_eq!(log[..2], [W(CntenClr, mask), Isb]);
    for counter in [Counter::Event(0), Counter::Event(2), Counter::Cycle] {
        assert_eq!(pmu.event_of(counter), None, "{counter} freed");
    }
}

#[test]
fn a_refused_batch_programs_and_frees_nothing() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    assert_eq!(
        pmu.program_many(&[
            (Counter::Event(0), Event::INST_RETIRED),
            (Counter::Event(0), Event::SW_INCR),
        ]),
        Err(Error::CounterBusy(Counter::Event(0)))
    );
    assert_eq!(
        pmu.program_many(&[
            (Counter::Event(1), Event::INST_RETIRED),
            (Counter::Cycle, Event::INST_RETIRED),
        ]),
        Err(Error::EventNotImplemented(Event::INST_RETIRED))
    );
    assert_eq!(
        pmu.program_many(&[(Counter::Event(1), Event::L1D_CACHE)]),
        Err(Error::EventNotImplemented(Event::L1D_CACHE))
    );
    assert_eq!(pmu.event_of(Counter::Event(0)), None);
    assert_eq!(pmu.event_of(Counter::Event(1)), None);
    pmu.program_on(Counter::Event(3), Event::INST_RETIRED, false)
        .unwrap();
    let mut counts = [0; 2];
    assert_eq!(
        pmu.take_many(&[Counter::Event(3), Counter::Event(4)], &mut counts),
        Err(Error::NotProgrammed(Counter::Event(4)))
    );
    assert_eq!(pmu.event_of(Counter::Event(3)), Some(Event::INST_RETIRED));
}
