//! Honest identification: every emulated preset announces in PMCEID0/1_EL0 (common events
//! 0x00..=0x3F in the low halves, 0x4000..=0x403F in the high halves) exactly what its model
//! counts. For each of the 128 common event numbers, the event is produced the way the
//! architecture produces it (a PMSWINC write for SW_INCR, a clock cycle for CPU_CYCLES, a
//! 32-bit overflow of the even counter below for CHAIN, an occurrence fed to the model for the
//! others) on a counter programmed with it: an announced event must change that counter, an
//! unannounced one must leave it unchanged and be refused by the driver.

use pmprobe::pmu::{EmulatedConfig, EmulatedPmu, Error, Event, EventSet, Pmu};
use pmprobe::pmu::{PmuBackend, PmuRegister};

use PmuRegister::*;

const SW_INCR: u16 = 0x00;
const CPU_CYCLES: u16 = 0x11;
const CHAIN: u16 = 0x1E;

/// The counter `event` counted on after it was produced once on a fresh PMU with PMCR.E set
/// (and LP clear, so that CHAIN can exist).
fn counted_after_producing(config: EmulatedConfig, event: u16) -> u64 {
    let pmu = EmulatedPmu::new(config);
    let w = |r, v| pmu.write(r, v).unwrap();
    if event == CHAIN {
        // Counter 0 counts SW_INCR from 0xFFFF_FFFF: one PMSWINC write wraps it.
        w(EvTyper(0), u64::from(SW_INCR));
        w(EvTyper(1), u64::from(CHAIN));
        w(EvCntr(0), 0xFFFF_FFFF);
        w(CntenSet, 0b11);
        w(Pmcr, 1);
        w(Swinc, 0b1);
        return pmu.read(EvCntr(1)).unwrap();
    }
    w(EvTyper(0), u64::from(event));
    w(CntenSet, 0b1);
    w(Pmcr, 1);
    match event {
        SW_INCR => w(Swinc, 0b1),
        CPU_CYCLES => pmu.tick_cycles(1),
        _ => pmu.count(event, 1),
    }
    pmu.read(EvCntr(0)).unwrap()
}

fn check_preset(name: &str, config: EmulatedConfig) {
    let announced = {
        let pmu = EmulatedPmu::new(config);
        EventSet::from_pmceid(pmu.read(Ceid0).unwrap(), pmu.read(Ceid1).unwrap())
    };
    let mut counted = 0;
    for number in (0u16..0x40).chain(0x4000..0x4040) {
        let event = Event::raw(number);
        let counts = counted_after_producing(config, number) != 0;
        assert_eq!(
            counts,
            announced.contains(event),
            "{name}: {event} announced {} but counts {counts}",
            announced.contains(event)
        );
        if counts {
            counted += 1;
        } else {
            let cpu = EmulatedPmu::new(config);
            let mut pmu = Pmu::new(&cpu).unwrap();
            assert_eq!(
                pmu.program(event),
                Err(Error::EventNotImplemented(event)),
                "{name}: the driver programs unannounced {event}"
            );
        }
    }
    assert_eq!(counted, announced.len(), "{name}");
}

#[test]
fn qemu_cortex_a57_announces_exactly_what_it_counts() {
    // QEMU 7.2's cortex-a57: PMCEID0 = 0x20101 (SW_INCR, INST_RETIRED, CPU_CYCLES), no CHAIN.
    check_preset("qemu_cortex_a57", EmulatedConfig::qemu_cortex_a57());
    assert_eq!(EmulatedConfig::qemu_cortex_a57().ceid0, 0x2_0101);
}

#[test]
fn neoverse_v1_like_announces_exactly_what_it_counts() {
    check_preset("neoverse_v1_like", EmulatedConfig::neoverse_v1_like());
}
