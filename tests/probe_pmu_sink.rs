//! The PMU event counter feeding the emulated PMUv3, programmed through the PMU driver: only
//! events a running counter counts reach it, and the counts read back through the driver.
use core::cell::RefCell;
use pmprobe::pmu::{EmulatedPmu, Event, Pmu};
use pmprobe::probe::listeners::PmuEventSink;

#[test]
fn emulated_pmu_counts_what_the_sink_feeds() {
    let emulated = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&emulated).expect("emulated PMUv3 detected");
    let inst = pmu
        .program(Event::INST_RETIRED)
        .expect("INST_RETIRED counter");
    let mut sink: &EmulatedPmu = &emulated;
    // Not started yet: PMCR.E = 0, so nothing is counting.
    assert!(!PmuEventSink::is_counting(
        &sink,
        Event::INST_RETIRED.number()
    ));
    pmu.start().expect("start");
    assert!(PmuEventSink::is_counting(
        &sink,
        Event::INST_RETIRED.number()
    ));
    assert!(!PmuEventSink::is_counting(&sink, Event::SW_INCR.number()));
    sink.count_event(Event::INST_RETIRED.number(), 41);
    sink.count_event(Event::INST_RETIRED.number(), 1);
    assert_eq!(pmu.read(inst).expect("read"), 42);
    let shared = RefCell::new(sink);
    shared
        .borrow_mut()
        .count_event(Event::INST_RETIRED.number(), 8);
    assert_eq!(pmu.read(inst).expect("read"), 50);
}
