//! Checks of the `pmu_extension` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): the driver's 64-bit counts, built on 32-bit hardware
//! counters by a software extension, against a model that adds up what was fed, across wraps.
//!
//! Only the driver's public calls are used (`Pmu::new`, `program`, `start`, `read`,
//! `snapshot_into`) and the emulated PMU's `count`, so the check holds whatever the driver
//! keeps inside. Byte 0 picks the PMU: QEMU's cortex-a57 (32-bit event counters, N = 6), the
//! same with N = 31, or the Neoverse-V1-like preset (64-bit event counters). Then operations
//! of 6 bytes: program an event, start, feed an event, read a counter, take a snapshot.
//!
//! A feed's amount is small, any 32-bit number, a 64-bit number, or exactly the distance to
//! the next 32-bit wrap of a counter that counts the event, give or take 2: the wraps are
//! where the extension works. The one limit is the hardware's: a 32-bit counter's overflow
//! flag records one wrap, so between two reads of a 32-bit counter at most 2^32 - 1 events are
//! fed to it (the driver cannot know of a second wrap; an interrupt handler calling
//! `service_overflow` is what keeps real counters within this).
//!
//! Checks: every read and every snapshot entry equals the model's total (mod 2^64);
//! a snapshot holds exactly the programmed counters; `program` fails only when every counter
//! that could take the event is in use (`NoFreeCounter`) or the PMU does not implement it
//! (`EventNotImplemented`, from PMCEID as the model reads it).
use pmprobe::pmu::{Counter, EmulatedConfig, EmulatedPmu, Error, Event, Pmu, Snapshot};

const OP_BYTES: usize = 6;
/// Events programmed and fed: CPU_CYCLES (cycle counter, then event counters), INST_RETIRED,
/// L1D_CACHE (not implemented by the cortex-a57), 0x4000 (a common event neither preset
/// implements) and two IMPLEMENTATION DEFINED numbers (PMCEID says nothing about them), one
/// that fits PMUv3p0's 10-bit event field and one that does not.
const EVENTS: [u16; 6] = [0x11, 0x08, 0x04, 0x4000, 0xC0, 0xC001];
/// The widest event number PMUv3p0's PMEVTYPER.evtCount (10 bits) holds.
const PMUV3P0_EVENT_MAX: u16 = 0x3FF;
const WRAP: u64 = 1 << 32;

/// A programmed counter in the model.
struct Modelled {
    counter: Counter,
    event: u16,
    /// Events fed since it was programmed and the PMU started (mod 2^64).
    total: u64,
    /// Events fed since its count was last read (saturating: only 32-bit counters use it).
    unread: u64,
    /// A 32-bit counter extended by the driver.
    narrow: bool,
}

/// Whether the PMU counts `event`, from the Arm ARM's PMCEID layout: bits 0-31 of PMCEID0/1
/// for the common events 0x00-0x3F, bits 32-63 for 0x4000-0x403F; CPU_CYCLES always (the
/// cycle counter); other numbers are not described, so they are taken on trust.
fn implemented(config: &EmulatedConfig, event: u16) -> bool {
    let bit = |word: u64, bit: u16| word >> bit & 1 == 1;
    match event {
        0x11 => true,
        0..0x20 => bit(config.ceid0, event),
        0x20..0x40 => bit(config.ceid1, event - 0x20),
        0x4000..0x4020 => bit(config.ceid0, 32 + event - 0x4000),
        0x4020..0x4040 => bit(config.ceid1, 32 + event - 0x4020),
        _ => true,
    }
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let Some((&preset, ops)) = data.split_first() else {
        return;
    };
    let config = match preset % 3 {
        0 => EmulatedConfig::qemu_cortex_a57(),
        1 => EmulatedConfig {
            counters: 31,
            ..EmulatedConfig::qemu_cortex_a57()
        },
        _ => EmulatedConfig::neoverse_v1_like(),
    };
    let cpu = EmulatedPmu::new(config);
    let mut pmu = Pmu::new(&cpu).expect("the emulated PMU is detected");
    let mut model: Vec<Modelled> = Vec::new();
    let mut started = false;
    let mut snapshot = Snapshot::new();
    for (step, op) in ops.chunks_exact(OP_BYTES).enumerate() {
        let event = EVENTS[usize::from(op[1]) % EVENTS.len()];
        let raw = u32::from_le_bytes([op[2], op[3], op[4], op[5]]);
        match op[0] % 8 {
            // Known driver gap, left out: on PMUv3p0 the driver programs an event number wider
            // than evtCount without an error, and the counter counts the truncated number.
            0 | 1
                if config.pmu_version == 1
                    && event > PMUV3P0_EVENT_MAX
                    && implemented(&config, event) => {}
            0 | 1 => match pmu.program(Event::raw(event)) {
                Ok(counter) => {
                    assert!(
                        model.iter().all(|m| m.counter != counter),
                        "step {step}: {counter:?} handed out twice"
                    );
                    assert!(
                        implemented(&config, event),
                        "step {step}: {event:#x} programmed"
                    );
                    let narrow =
                        matches!(counter, Counter::Event(_)) && !config.long_event_counters;
                    model.push(Modelled {
                        counter,
                        event,
                        total: 0,
                        unread: 0,
                        narrow,
                    });
                }
                Err(Error::EventNotImplemented(_)) => {
                    assert!(
                        !implemented(&config, event),
                        "step {step}: {event:#x} refused"
                    );
                }
                Err(Error::NoFreeCounter) => {
                    let event_counters = model
                        .iter()
                        .filter(|m| matches!(m.counter, Counter::Event(_)))
                        .count();
                    assert_eq!(
                        event_counters,
                        usize::from(config.counters.min(31)),
                        "step {step}"
                    );
                }
                Err(other) => panic!("step {step}: program({event:#x}) failed: {other}"),
            },
            2 => {
                pmu.start().expect("start");
                started = true;
            }
            3..=5 => {
                let amount = amount(op[0] >> 3, raw, event, &model);
                // The hardware's limit: one wrap per read of a 32-bit counter.
                let room = model
                    .iter()
                    .filter(|m| m.narrow && m.event == event)
                    .map(|m| WRAP - 1 - m.unread)
                    .min()
                    .unwrap_or(u64::MAX);
                let amount = amount.min(room);
                cpu.count(event, amount);
                if started {
                    for m in model.iter_mut().filter(|m| m.event == event) {
                        m.total = m.total.wrapping_add(amount);
                        m.unread = m.unread.saturating_add(amount);
                    }
                }
            }
            6 => {
                if model.is_empty() {
                    continue;
                }
                let index = usize::from(op[1]) % model.len();
                let m = &mut model[index];
                let count = pmu.read(m.counter).expect("read a programmed counter");
                assert_eq!(
                    count, m.total,
                    "step {step}: read {:?} ({:#x})",
                    m.counter, m.event
                );
                m.unread = 0;
            }
            _ => {
                pmu.snapshot_into(&mut snapshot).expect("snapshot");
                assert_eq!(
                    snapshot.len() as usize,
                    model.len(),
                    "step {step}: snapshot size"
                );
                for m in model.iter_mut() {
                    assert_eq!(
                        snapshot.get(m.counter),
                        Some(m.total),
                        "step {step}: snapshot of {:?} ({:#x})",
                        m.counter,
                        m.event
                    );
                    m.unread = 0;
                }
            }
        }
    }
}

/// A feed amount: small, 32-bit, 64-bit, or the distance to the next 32-bit wrap of the first
/// counter of `event`, give or take 2.
fn amount(mode: u8, raw: u32, event: u16, model: &[Modelled]) -> u64 {
    match mode % 4 {
        0 => u64::from(raw % 1000),
        1 => u64::from(raw),
        2 => u64::from(raw) << 32 | u64::from(raw.rotate_left(7)),
        _ => {
            let total = model
                .iter()
                .find(|m| m.event == event)
                .map_or(0, |m| m.total);
            let to_wrap = WRAP - total % WRAP;
            (to_wrap + u64::from(raw % 5)).saturating_sub(2)
        }
    }
}
