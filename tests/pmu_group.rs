//! `CounterGroup` over the emulated back end: its values against the driver's own reads, the
//! 64-bit extension across 2^32 wraps (including a wrap between a counter's read and the
//! overflow flags' read), 64-bit counters, and the typed errors of its preparation.

use std::cell::Cell;

use pmprobe::pmu::EmulatedPmu;
use pmprobe::pmu::Event;
use pmprobe::pmu::{AccessError, ExceptionLevel, PmuBackend, PmuRegister, RegisterAccess};
use pmprobe::pmu::{Counter, Error, Pmu};
use pmprobe::pmu::{CounterGroup, GroupSnapshot};

const INST_RETIRED: u16 = 0x08;

/// The benchmark's layout: the cycle counter and six event counters.
fn six_counters(pmu: &mut Pmu<&EmulatedPmu>) {
    for event in [
        Event::CPU_CYCLES,
        Event::INST_RETIRED,
        Event::INST_RETIRED,
        Event::SW_INCR,
        Event::SW_INCR,
        Event::CPU_CYCLES,
        Event::INST_RETIRED,
    ] {
        pmu.program(event).unwrap();
    }
}

#[test]
fn group_reads_equal_the_drivers_own_reads() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    six_counters(&mut pmu);
    pmu.start().unwrap();
    cpu.tick_cycles(1234);
    cpu.count(INST_RETIRED, 77);
    // PMEVCNTR2 and PMEVCNTR3 count SW_INCR.
    cpu.write(PmuRegister::Swinc, 0b1100).unwrap();
    cpu.write(PmuRegister::Swinc, 0b1000).unwrap();
    let snapshot = *pmu.group::<6>().unwrap().read().unwrap();
    assert_eq!(snapshot.cycles(), pmu.read(Counter::Cycle).unwrap());
    for index in 0..6 {
        assert_eq!(
            snapshot.event(index),
            Some(pmu.read(Counter::Event(index as u8)).unwrap()),
            "PMEVCNTR{index}"
        );
    }
    assert_eq!(snapshot.events(), [77, 77, 1, 2, 1234, 77]);
    assert_eq!(snapshot.event(6), None);
}

#[test]
fn a_32_bit_counter_is_widened_across_several_wraps() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program(Event::CPU_CYCLES).unwrap();
    let insts = pmu.program(Event::INST_RETIRED).unwrap();
    pmu.preload(insts, 0xFFFF_FFF0).unwrap();
    pmu.start().unwrap();
    let mut group = pmu.group::<1>().unwrap();
    let mut snapshot = GroupSnapshot::new();
    let mut expected = 0xFFFF_FFF0u64;
    // Each step wraps the hardware counter once; every read takes that wrap.
    for step in [0x20u64, 0xFFFF_FFFF, 0x1_0000_0000, 5] {
        cpu.count(INST_RETIRED, step);
        expected += step;
        group.read_into(&mut snapshot).unwrap();
        assert_eq!(snapshot.event(0), Some(expected), "after {step:#x}");
        assert_eq!(
            group.pmu().overflow_flags(),
            Ok(0),
            "the flag went into the extension"
        );
    }
    assert_eq!(expected, 0x3_0000_0014);
    // The group's borrow of the driver ends here.
    assert_eq!(pmu.read(insts), Ok(expected), "the driver agrees");
}

/// A back end that feeds events right after one chosen register is read: the events the
/// hardware counts between two `mrs` of a group read.
struct EventsDuringRead<'c> {
    cpu: &'c EmulatedPmu,
    after: PmuRegister,
    events: Cell<Option<(u16, u64)>>,
}

impl PmuBackend for EventsDuringRead<'_> {
    fn read(&self, register: PmuRegister) -> Result<u64, AccessError> {
        let value = self.cpu.read(register)?;
        if register == self.after
            && let Some((event, n)) = self.events.take()
        {
            self.cpu.count(event, n);
        }
        Ok(value)
    }
    fn write(&self, register: PmuRegister, value: u64) -> Result<(), AccessError> {
        self.cpu.write(register, value)
    }
    fn current_el(&self) -> ExceptionLevel {
        self.cpu.current_el()
    }
    fn id_aa64dfr0(&self) -> u64 {
        self.cpu.id_aa64dfr0()
    }
    fn id_aa64dfr1(&self) -> u64 {
        self.cpu.id_aa64dfr1()
    }
    fn midr(&self) -> u64 {
        self.cpu.midr()
    }
}

#[test]
fn a_counter_that_wraps_between_its_read_and_the_flags_read_is_read_again() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let backend = EventsDuringRead {
        cpu: &cpu,
        after: PmuRegister::EvCntr(1),
        events: Cell::new(None),
    };
    let mut pmu = Pmu::new(&backend).unwrap();
    pmu.program(Event::CPU_CYCLES).unwrap();
    let first = pmu.program(Event::INST_RETIRED).unwrap();
    let second = pmu.program(Event::INST_RETIRED).unwrap();
    pmu.preload(first, 0xFFFF_FFF0).unwrap();
    pmu.preload(second, 0xFFFF_FFF0).unwrap();
    pmu.start().unwrap();
    let mut group = pmu.group::<2>().unwrap();
    // PMEVCNTR0 is read before the 0x20 instructions and PMEVCNTR1 after them: both wrap
    // before PMOVSSET is read.
    backend.events.set(Some((INST_RETIRED, 0x20)));
    let snapshot = *group.read().unwrap();
    assert_eq!(
        snapshot.event(0),
        Some(0x1_0000_0010),
        "read again after the wrap"
    );
    assert_eq!(
        snapshot.event(1),
        Some(0x1_0000_0010),
        "read after the wrap"
    );
    assert_eq!(*group.read().unwrap(), snapshot, "nothing counted since");
    // The same into a caller's snapshot, one more wrap later.
    backend.events.set(Some((INST_RETIRED, 0xFFFF_FFFF)));
    let mut into = GroupSnapshot::new();
    group.read_into(&mut into).unwrap();
    assert_eq!(into.events(), [0x2_0000_000F; 2]);
    assert_eq!(group.read().unwrap().events(), [0x2_0000_000F; 2]);
}

#[test]
fn a_flag_set_after_the_flags_read_is_taken_by_the_next_read() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let backend = EventsDuringRead {
        cpu: &cpu,
        after: PmuRegister::OvsSet,
        events: Cell::new(None),
    };
    let mut pmu = Pmu::new(&backend).unwrap();
    pmu.program(Event::CPU_CYCLES).unwrap();
    let insts = pmu.program(Event::INST_RETIRED).unwrap();
    pmu.preload(insts, 0xFFFF_FFF0).unwrap();
    pmu.start().unwrap();
    let mut group = pmu.group::<1>().unwrap();
    backend.events.set(Some((INST_RETIRED, 0x20)));
    // The counter was read before the wrap, and the flag came too late for this read.
    assert_eq!(group.read().unwrap().event(0), Some(0xFFFF_FFF0));
    assert_eq!(group.read().unwrap().event(0), Some(0x1_0000_0010));
}

#[test]
fn sixty_four_bit_event_counters_need_no_extension() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program(Event::CPU_CYCLES).unwrap();
    let insts = pmu.program(Event::INST_RETIRED).unwrap();
    pmu.preload(insts, 0xFFFF_FFF0).unwrap();
    pmu.start().unwrap();
    let mut group = pmu.group::<1>().unwrap();
    let before = *group.read().unwrap();
    cpu.count(INST_RETIRED, 0x1_0000_0020);
    let after = group.read().unwrap();
    assert_eq!(after.event(0), Some(0x2_0000_0010));
    assert_eq!(after.delta(&before).event(0), Some(0x1_0000_0020));
}

#[test]
fn a_stray_flag_of_a_counter_outside_the_driver_changes_no_value() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program(Event::CPU_CYCLES).unwrap();
    pmu.program(Event::INST_RETIRED).unwrap();
    pmu.start().unwrap();
    cpu.count(INST_RETIRED, 9);
    // PMEVCNTR5 is not programmed: its flag is not the driver's to take.
    cpu.write(PmuRegister::OvsSet, 1 << 5).unwrap();
    let mut group = pmu.group::<1>().unwrap();
    assert_eq!(group.read().unwrap().event(0), Some(9));
    assert_eq!(group.read().unwrap().event(0), Some(9));
    assert_eq!(group.pmu().overflow_flags(), Ok(1 << 5));
}

#[test]
fn preparation_errors_are_typed() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program(Event::INST_RETIRED).unwrap();
    assert_eq!(
        pmu.group::<1>().err(),
        Some(Error::NotProgrammed(Counter::Cycle))
    );
    pmu.program(Event::CPU_CYCLES).unwrap();
    assert_eq!(
        pmu.group::<2>().err(),
        Some(Error::NotProgrammed(Counter::Event(1)))
    );
    assert_eq!(pmu.group::<7>().err(), Some(Error::CounterOutOfRange(6)));
    assert!(pmu.group::<1>().is_ok());
}

fn trapped(register: PmuRegister, access: RegisterAccess) -> Option<Error> {
    Some(Error::Access(AccessError::TrappedAtEl0 {
        register,
        access,
    }))
}

#[test]
fn at_el0_preparation_checks_pmuserenr_once() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program(Event::CPU_CYCLES).unwrap();
    pmu.program(Event::INST_RETIRED).unwrap();
    pmu.start().unwrap();
    cpu.count(INST_RETIRED, 3);
    cpu.set_el(ExceptionLevel::El0);
    assert_eq!(
        pmu.group::<1>().err(),
        trapped(PmuRegister::Ccntr, RegisterAccess::Read)
    );
    // CR and ER allow the counters but not PMOVSSET, which the group needs.
    cpu.set_el(ExceptionLevel::El1);
    cpu.write(PmuRegister::Userenr, 0b1100).unwrap();
    cpu.set_el(ExceptionLevel::El0);
    assert_eq!(
        pmu.group::<1>().err(),
        trapped(PmuRegister::OvsSet, RegisterAccess::Read)
    );
    cpu.set_el(ExceptionLevel::El1);
    cpu.write(PmuRegister::Userenr, 0b0001).unwrap();
    cpu.set_el(ExceptionLevel::El0);
    let mut group: CounterGroup<'_, _, 1> = pmu.group().unwrap();
    assert_eq!(group.read().unwrap().event(0), Some(3));
}

#[test]
fn a_back_end_that_refuses_a_read_later_gives_a_typed_error() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program(Event::CPU_CYCLES).unwrap();
    let mut group = pmu.group::<0>().unwrap();
    // The emulated PMU's Exception level changes behind the group's back.
    cpu.set_el(ExceptionLevel::El0);
    assert_eq!(
        group.read().err(),
        trapped(PmuRegister::Ccntr, RegisterAccess::Read)
    );
}

#[test]
fn start_and_stop_through_the_group() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program(Event::CPU_CYCLES).unwrap();
    let mut group = pmu.group::<0>().unwrap();
    group.start().unwrap();
    cpu.tick_cycles(5);
    group.stop().unwrap();
    cpu.tick_cycles(5);
    assert_eq!(group.read().unwrap().cycles(), 5);
    assert_eq!(group.pmu().is_running(), Ok(false));
}
