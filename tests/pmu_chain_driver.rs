//! The driver's 64-bit counts on 32-bit event counters (Linux arm_pmuv3's `long` events):
//! chained even/odd pairs, their allocation, reads across a carry, overflow interrupts and
//! sampling periods. Expected values follow from the CHAIN rule (the odd counter counts the
//! 32-bit overflows of the even one, so the pair is one 64-bit counter) and from Linux's
//! programming order; the emulated PMU is the hardware here.

use std::cell::{Cell, RefCell};

use pmprobe::pmu::{AccessError, ExceptionLevel, PmuBackend, PmuRegister};
use pmprobe::pmu::{Counter, EmulatedConfig, EmulatedPmu, Error, Event, Pmu};

use PmuRegister::*;

const CHAIN: u64 = 0x1E;
const L1D: u16 = 0x04;

/// A PMUv3 core with 32-bit event counters and `n` of them, announcing CHAIN.
fn chaining_core(n: u8) -> EmulatedPmu {
    EmulatedPmu::new(EmulatedConfig {
        counters: n,
        // SW_INCR, L1D_CACHE, INST_RETIRED, CPU_CYCLES, CHAIN.
        ceid0: 1 | 1 << 0x04 | 1 << 0x08 | 1 << 0x11 | 1 << CHAIN,
        ..EmulatedConfig::qemu_cortex_a57()
    })
}

#[test]
fn a_long_event_takes_the_lowest_free_pair_with_chain_on_the_odd_counter() {
    let cpu = chaining_core(6);
    let mut pmu = Pmu::new(&cpu).unwrap();
    let single = pmu.program(Event::INST_RETIRED).unwrap();
    assert_eq!(single, Counter::Event(0));
    let long = pmu.program_long(Event::L1D_CACHE).unwrap();
    assert_eq!(long, Counter::Event(2));
    assert!(pmu.is_chained(long));
    assert_eq!(cpu.read(EvTyper(2)).unwrap() & 0xFFFF, u64::from(L1D));
    assert_eq!(cpu.read(EvTyper(3)).unwrap() & 0xFFFF, CHAIN);
    assert_eq!(cpu.read(CntenSet).unwrap() & 0b1111, 0b1101);
    assert_eq!(cpu.read(IntenSet).unwrap(), 0);
    assert_eq!(pmu.event_of(Counter::Event(3)), Some(Event::CHAIN));
    // The next single event skips both halves of the pair.
    assert_eq!(pmu.program(Event::SW_INCR), Ok(Counter::Event(1)));
    assert_eq!(pmu.program(Event::SW_INCR), Ok(Counter::Event(4)));
}

#[test]
fn a_pair_counts_64_bits() {
    let cpu = chaining_core(6);
    let mut pmu = Pmu::new(&cpu).unwrap();
    let long = pmu.program_long(Event::L1D_CACHE).unwrap();
    pmu.start().unwrap();
    let n = (7 << 32) + 0x1234;
    cpu.count(L1D, n);
    assert_eq!(pmu.read(long), Ok(n));
    assert_eq!(cpu.read(EvCntr(1)).unwrap(), 7);
    assert_eq!(cpu.read(EvCntr(0)).unwrap(), 0x1234);
    // The even counter's flags are carries, not a software extension: a service of the
    // overflow flags changes nothing.
    assert_eq!(pmu.service_overflow(), Ok(0b01));
    assert_eq!(pmu.read(long), Ok(n));
}

#[test]
fn a_pair_preloaded_near_2_64_wraps_and_flags_the_odd_counter() {
    let cpu = chaining_core(6);
    let mut pmu = Pmu::new(&cpu).unwrap();
    let long = pmu.program_long(Event::L1D_CACHE).unwrap();
    pmu.preload(long, u64::MAX - 3).unwrap();
    assert_eq!(pmu.read(long), Ok(u64::MAX - 3));
    pmu.start().unwrap();
    cpu.count(L1D, 10);
    assert_eq!(pmu.read(long), Ok(6));
    assert_eq!(pmu.overflow_flags(), Ok(0b11));
    assert_eq!(pmu.overflow_bit(long), 0b10);
}

/// A back end that counts `inject` more events on the even counter right after its first
/// read of PMEVCNTR0: a carry between the driver's reads of the two halves.
struct CarryBetweenReads<'a> {
    inner: &'a EmulatedPmu,
    inject: Cell<u64>,
}

impl PmuBackend for CarryBetweenReads<'_> {
    fn read(&self, r: PmuRegister) -> Result<u64, AccessError> {
        let value = self.inner.read(r);
        if r == EvCntr(0) {
            self.inner.count(L1D, self.inject.replace(0));
        }
        value
    }
    fn write(&self, r: PmuRegister, v: u64) -> Result<(), AccessError> {
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
}

#[test]
fn a_carry_between_the_reads_of_the_two_halves_is_not_lost_nor_doubled() {
    let cpu = chaining_core(6);
    let backend = CarryBetweenReads {
        inner: &cpu,
        inject: Cell::new(0),
    };
    let mut pmu = Pmu::new(&backend).unwrap();
    let long = pmu.program_long(Event::L1D_CACHE).unwrap();
    pmu.preload(long, 0xFFFF_FFF8).unwrap();
    pmu.start().unwrap();
    // Read upper (0), lower (0xFFFF_FFF8), then 16 events wrap the lower half: the value at
    // the end of the read is 0xFFFF_FFF8 + 16.
    backend.inject.set(16);
    assert_eq!(pmu.read(long), Ok(0x1_0000_0008));
    // The same through a snapshot, from 0x1_FFFF_FFF8.
    pmu.preload(long, 0x1_FFFF_FFF8).unwrap();
    backend.inject.set(16);
    assert_eq!(pmu.snapshot().unwrap().get(long), Some(0x2_0000_0008));
}

#[test]
fn no_free_pair_is_a_typed_error() {
    let cpu = chaining_core(6);
    let mut pmu = Pmu::new(&cpu).unwrap();
    for pair in [0, 2, 4] {
        assert_eq!(pmu.program_long(Event::L1D_CACHE), Ok(Counter::Event(pair)));
    }
    assert_eq!(
        pmu.program_long(Event::L1D_CACHE),
        Err(Error::NoFreeCounterPair)
    );
    // One free counter is not a pair.
    pmu.release(Counter::Event(2)).unwrap();
    pmu.program(Event::SW_INCR).unwrap();
    assert_eq!(
        pmu.program_long(Event::L1D_CACHE),
        Err(Error::NoFreeCounterPair)
    );
}

#[test]
fn the_highest_counter_of_an_odd_n_and_odd_counters_head_no_pair() {
    let cpu = chaining_core(5);
    let mut pmu = Pmu::new(&cpu).unwrap();
    assert_eq!(
        pmu.program_long_on(Counter::Event(4), Event::L1D_CACHE, false),
        Err(Error::NoFreeCounterPair)
    );
    assert_eq!(
        pmu.program_long_on(Counter::Event(1), Event::L1D_CACHE, false),
        Err(Error::NoFreeCounterPair)
    );
    pmu.program_on(Counter::Event(3), Event::SW_INCR, false)
        .unwrap();
    assert_eq!(
        pmu.program_long_on(Counter::Event(2), Event::L1D_CACHE, false),
        Err(Error::CounterBusy(Counter::Event(3)))
    );
    assert_eq!(pmu.program_long(Event::L1D_CACHE), Ok(Counter::Event(0)));
    assert_eq!(
        pmu.program_long(Event::L1D_CACHE),
        Err(Error::NoFreeCounterPair)
    );
}

#[test]
fn without_chain_in_pmceid_a_pair_is_refused() {
    // QEMU 7.2's cortex-a57 does not implement CHAIN: counting 64 bits there needs the
    // software extension of Pmu::program.
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    assert_eq!(
        pmu.program_long(Event::INST_RETIRED),
        Err(Error::EventNotImplemented(Event::CHAIN))
    );
    // PMCCNTR is 64 bits wide (PMCR.LC) and needs no pair.
    assert_eq!(pmu.program_long(Event::CPU_CYCLES), Ok(Counter::Cycle));
}

#[test]
fn on_pmuv3p5_a_long_event_takes_one_64_bit_counter() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let long = pmu.program_long(Event::L1D_CACHE).unwrap();
    assert_eq!(long, Counter::Event(0));
    assert!(!pmu.is_chained(long));
    assert_eq!(pmu.program(Event::L1D_CACHE), Ok(Counter::Event(1)));
    pmu.start().unwrap();
    cpu.count(L1D, 5 << 32);
    assert_eq!(pmu.read(long), Ok(5 << 32));
    assert_eq!(cpu.read(EvCntr(0)).unwrap(), 5 << 32);
}

#[test]
fn the_interrupt_of_a_pair_is_the_odd_counters() {
    let cpu = chaining_core(6);
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program_long_on(Counter::Event(2), Event::L1D_CACHE, true)
        .unwrap();
    assert_eq!(cpu.read(IntenSet).unwrap(), 1 << 3);
    pmu.start().unwrap();
    // 32-bit wraps of the even counter raise nothing.
    cpu.count(L1D, 3 << 32);
    assert!(!cpu.irq_line());
    assert_eq!(pmu.overflow_bit(Counter::Event(2)), 1 << 3);
}

#[test]
fn sampling_on_a_pair_reloads_the_period_after_each_interrupt() {
    let cpu = chaining_core(6);
    let mut pmu = Pmu::new(&cpu).unwrap();
    let long = Counter::Event(0);
    pmu.program_long_on(long, Event::L1D_CACHE, true).unwrap();
    // A period longer than 32 bits: only a pair (or a 64-bit counter) can take it.
    let period = (1 << 32) + 1000;
    pmu.set_period(long, period).unwrap();
    pmu.start().unwrap();
    let mut samples = 0;
    for _ in 0..3 {
        cpu.count(L1D, period - 1);
        assert!(!cpu.irq_line(), "one event early");
        cpu.count(L1D, 1);
        assert!(cpu.irq_line(), "at the period");
        // The handler: take the flags, test the pair's bit, reload.
        let flags = pmu.service_overflow().unwrap();
        assert!(!cpu.irq_line());
        if flags & pmu.overflow_bit(long) != 0 {
            samples += 1;
            pmu.set_period(long, period).unwrap();
        }
    }
    assert_eq!(samples, 3);
}

#[test]
fn periods_a_counter_cannot_reach_are_refused() {
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let narrow = pmu.program(Event::INST_RETIRED).unwrap();
    let too_long = (1 << 32) + 1;
    assert_eq!(
        pmu.set_period(narrow, too_long),
        Err(Error::PeriodOutOfRange {
            counter: narrow,
            period: too_long
        })
    );
    assert_eq!(
        pmu.set_period(narrow, 0),
        Err(Error::PeriodOutOfRange {
            counter: narrow,
            period: 0
        })
    );
    // 2^32 is the longest a 32-bit counter takes: it starts at 0 and overflows on the last.
    pmu.set_period(narrow, 1 << 32).unwrap();
    assert_eq!(cpu.read(EvCntr(0)).unwrap(), 0);
}

#[test]
fn the_odd_half_is_reached_only_through_the_even_counter() {
    let cpu = chaining_core(6);
    let mut pmu = Pmu::new(&cpu).unwrap();
    let long = pmu.program_long(Event::L1D_CACHE).unwrap();
    let odd = Counter::Event(1);
    assert_eq!(pmu.read(odd), Err(Error::ChainedPair(odd)));
    assert_eq!(pmu.preload(odd, 1), Err(Error::ChainedPair(odd)));
    assert_eq!(pmu.release(odd), Err(Error::ChainedPair(odd)));
    assert_eq!(
        pmu.program_on(odd, Event::SW_INCR, false),
        Err(Error::CounterBusy(odd))
    );
    // A snapshot holds the pair once, under its even counter.
    pmu.start().unwrap();
    cpu.count(L1D, (2 << 32) + 3);
    let snap = pmu.snapshot().unwrap();
    assert_eq!(snap.get(long), Some((2 << 32) + 3));
    assert_eq!(snap.get(odd), None);
    assert_eq!(snap.count_of(Event::L1D_CACHE), Some((2 << 32) + 3));
    // A group does not read pairs.
    pmu.program(Event::CPU_CYCLES).unwrap();
    assert_eq!(
        pmu.group::<2>().map(|_| ()),
        Err(Error::ChainedPair(Counter::Event(0)))
    );
}

/// Records the writes the driver makes.
struct Recorder<'a> {
    inner: &'a EmulatedPmu,
    writes: RefCell<Vec<(PmuRegister, u64)>>,
}

impl PmuBackend for Recorder<'_> {
    fn read(&self, r: PmuRegister) -> Result<u64, AccessError> {
        self.inner.read(r)
    }
    fn write(&self, r: PmuRegister, v: u64) -> Result<(), AccessError> {
        self.writes.borrow_mut().push((r, v));
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
}

#[test]
fn a_pair_is_programmed_disabled_and_enabled_odd_first_released_even_first() {
    let cpu = chaining_core(6);
    let rec = Recorder {
        inner: &cpu,
        writes: RefCell::new(Vec::new()),
    };
    let mut pmu = Pmu::new(&rec).unwrap();
    rec.writes.borrow_mut().clear();
    pmu.program_long_on(Counter::Event(4), Event::L1D_CACHE, true)
        .unwrap();
    let writes = rec.writes.borrow().clone();
    let at = |w: (PmuRegister, u64)| {
        writes
            .iter()
            .position(|x| *x == w)
            .unwrap_or_else(|| panic!("{w:?} not in {writes:?}"))
    };
    let disabled = at((CntenClr, 0b11 << 4));
    let chain = at((EvTyper(5), CHAIN));
    let event = at((EvTyper(4), u64::from(L1D)));
    let odd_on = at((CntenSet, 1 << 5));
    let even_on = at((CntenSet, 1 << 4));
    assert!(disabled < chain && chain < odd_on && event < odd_on);
    assert!(odd_on < even_on);
    assert_eq!(even_on, writes.len() - 1);
    assert!(at((IntenSet, 1 << 5)) < odd_on);
    assert!(!writes.contains(&(IntenSet, 1 << 4)));

    rec.writes.borrow_mut().clear();
    pmu.release(Counter::Event(4)).unwrap();
    assert_eq!(
        *rec.writes.borrow(),
        [
            (CntenClr, 1 << 4),
            (CntenClr, 1 << 5),
            (IntenClr, 0b11 << 4),
            (OvsClr, 0b11 << 4),
        ]
    );
    assert_eq!(pmu.program_long(Event::L1D_CACHE), Ok(Counter::Event(0)));
    assert_eq!(pmu.event_of(Counter::Event(5)), None);
}
