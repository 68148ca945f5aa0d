//! Properties of multiplexing on random configurations (seeded xorshift, so a failing case
//! repeats):
//! - the scaled estimate is exact for uniform event streams: an event that happens `r` times
//!   per time unit counts `r × running` while its group is on, and `raw × enabled / running`
//!   is then `r × enabled`, whatever the groups, turns and rotation times;
//! - the time running adds up to the counters times the elapsed time: with more one-event
//!   groups than counters every counter is busy at every moment, so the times running of all
//!   events add up to N × the time enabled (N + 1 with a pinned CPU_CYCLES on PMCCNTR);
//! - the schedule is perf's: each group's time running equals that of a model of perf's rules
//!   written here independently (pinned first; flexible in order while each fits, stopping at
//!   the first that does not; the first moved to the end when one waited).

#[path = "support/xorshift.rs"]
mod xorshift;

use pmprobe::pmu::{EmulatedPmu, Event, GroupKind, Multiplexer, MuxError, Pmu};
use xorshift::XorShift;

/// Events the Neoverse-V1-like preset counts, fed through `EmulatedPmu::count`.
const POOL: [Event; 12] = [
    Event::INST_RETIRED,
    Event::LD_RETIRED,
    Event::ST_RETIRED,
    Event::BR_RETIRED,
    Event::BR_MIS_PRED,
    Event::L1D_CACHE,
    Event::L1D_CACHE_REFILL,
    Event::MEM_ACCESS,
    Event::STALL_FRONTEND,
    Event::STALL_BACKEND,
    Event::L2D_CACHE,
    Event::CPU_CYCLES,
];
const COUNTERS: u64 = 6;

fn random_group(rng: &mut XorShift, max: usize, pool: &[Event]) -> Vec<Event> {
    (0..1 + rng.below(max))
        .map(|_| pool[rng.below(pool.len())])
        .collect()
}

#[test]
fn the_estimate_is_exact_for_uniform_event_streams() {
    let mut rng = XorShift(0x5EED_0F0F_F1CE);
    let mut scaled_somewhere = 0;
    for case in 0..300 {
        let cpu = EmulatedPmu::neoverse_v1_like();
        let mut pmu = Pmu::new(&cpu).unwrap();
        let mut mux = Multiplexer::<_, 40, 12>::new(&mut pmu);
        let rates: Vec<u64> = POOL.iter().map(|_| rng.below(20) as u64).collect();
        for _ in 0..1 + rng.below(10) {
            let kind = if rng.below(6) == 0 {
                GroupKind::Pinned
            } else {
                GroupKind::Flexible
            };
            let group = random_group(&mut rng, 4, &POOL);
            match mux.add_group(&group, kind) {
                Ok(_)
                | Err(MuxError::GroupTooLarge { .. })
                | Err(MuxError::PinnedDoNotFit { .. }) => {}
                Err(e) => panic!("case {case}: {e}"),
            }
        }
        let start = rng.below(1000) as u64;
        let mut now = start;
        mux.start(now).unwrap();
        for _ in 0..1 + rng.below(30) {
            let dt = 1 + rng.below(50) as u64;
            for (event, rate) in POOL.iter().zip(&rates) {
                cpu.count(event.number(), rate * dt);
            }
            now += dt;
            mux.rotate(now).unwrap();
        }
        mux.stop(now).unwrap();
        for reading in mux.read(now).unwrap().iter() {
            let rate = rates[POOL.iter().position(|e| *e == reading.event).unwrap()];
            assert_eq!(reading.enabled, now - start, "case {case}");
            assert!(reading.running <= reading.enabled, "case {case}");
            assert_eq!(
                reading.raw,
                rate * reading.running,
                "case {case}: {reading:?}"
            );
            if reading.running == 0 {
                assert_eq!(reading.estimate(), None, "case {case}: <not counted>");
            } else {
                assert_eq!(
                    reading.estimate(),
                    Some(rate * reading.enabled),
                    "case {case}: {reading:?}"
                );
                scaled_somewhere += usize::from(reading.is_scaled());
            }
        }
    }
    assert!(
        scaled_somewhere > 100,
        "the cases multiplexed: {scaled_somewhere}"
    );
}

#[test]
fn time_running_adds_up_to_the_counters_times_the_time_enabled() {
    let mut rng = XorShift(0xC0FF_EE00_1234);
    let no_cycles = &POOL[..POOL.len() - 1];
    for case in 0..300 {
        let cpu = EmulatedPmu::neoverse_v1_like();
        let mut pmu = Pmu::new(&cpu).unwrap();
        let mut mux = Multiplexer::<_, 16, 16>::new(&mut pmu);
        // A pinned CPU_CYCLES keeps PMCCNTR busy all the time: one counter more.
        let cycle_counter = rng.below(2) == 0;
        if cycle_counter {
            mux.add_group(&[Event::CPU_CYCLES], GroupKind::Pinned)
                .unwrap();
        }
        let pinned = rng.below(3);
        for _ in 0..pinned {
            mux.add_group(&[no_cycles[rng.below(no_cycles.len())]], GroupKind::Pinned)
                .unwrap();
        }
        // More one-event groups than counters left.
        for _ in 0..(COUNTERS as usize - pinned) + 1 + rng.below(8) {
            mux.add_event(no_cycles[rng.below(no_cycles.len())])
                .unwrap();
        }
        let mut now = rng.below(100) as u64;
        let start = now;
        mux.start(now).unwrap();
        for _ in 0..rng.below(40) {
            now += 1 + rng.below(1000) as u64;
            mux.rotate(now).unwrap();
        }
        now += 1 + rng.below(1000) as u64;
        let readings = mux.read(now).unwrap();
        let total: u64 = readings.iter().map(|r| r.running).sum();
        let counters = COUNTERS + u64::from(cycle_counter);
        assert_eq!(total, counters * (now - start), "case {case}");
    }
}

/// perf's scheduling, as a model: `needs` is the event counters a group takes with PMCCNTR
/// free or not.
struct Model {
    groups: Vec<(Vec<Event>, bool)>,
    order: Vec<usize>,
    on: Vec<bool>,
    running: Vec<u64>,
}

fn needs(events: &[Event], cycle_free: bool) -> usize {
    let cycles = events.iter().filter(|e| **e == Event::CPU_CYCLES).count();
    events.len() - usize::from(cycle_free && cycles > 0)
}

impl Model {
    fn schedule(&mut self) {
        self.on = vec![false; self.groups.len()];
        let (mut cycle_free, mut free) = (true, COUNTERS as usize);
        let mut take = |events: &[Event]| {
            let n = needs(events, cycle_free);
            if n > free {
                return false;
            }
            free -= n;
            cycle_free &= !events.contains(&Event::CPU_CYCLES);
            true
        };
        for (index, (events, pinned)) in self.groups.iter().enumerate() {
            if *pinned {
                assert!(take(events), "the pinned groups fit");
                self.on[index] = true;
            }
        }
        for &index in &self.order {
            if !take(&self.groups[index].0) {
                break;
            }
            self.on[index] = true;
        }
    }
    fn elapse(&mut self, dt: u64) {
        for (running, on) in self.running.iter_mut().zip(&self.on) {
            *running += if *on { dt } else { 0 };
        }
    }
    fn rotate(&mut self) {
        if self.on.iter().all(|on| *on) {
            return;
        }
        let first = self.order.remove(0);
        self.order.push(first);
        self.schedule();
    }
}

#[test]
fn every_group_runs_as_long_as_perfs_rules_give_it() {
    let mut rng = XorShift(0xFEED_BEEF_4242);
    for case in 0..300 {
        let cpu = EmulatedPmu::neoverse_v1_like();
        let mut pmu = Pmu::new(&cpu).unwrap();
        let mut mux = Multiplexer::<_, 48, 12>::new(&mut pmu);
        let mut model = Model {
            groups: Vec::new(),
            order: Vec::new(),
            on: Vec::new(),
            running: Vec::new(),
        };
        for _ in 0..1 + rng.below(12) {
            let pinned = rng.below(5) == 0;
            let kind = if pinned {
                GroupKind::Pinned
            } else {
                GroupKind::Flexible
            };
            let group = random_group(&mut rng, 4, &POOL);
            if mux.add_group(&group, kind).is_ok() {
                if !pinned {
                    model.order.push(model.groups.len());
                }
                model.groups.push((group, pinned));
                model.running.push(0);
            }
        }
        mux.start(0).unwrap();
        model.schedule();
        let mut now = 0;
        for _ in 0..rng.below(30) {
            let dt = rng.below(100) as u64;
            now += dt;
            model.elapse(dt);
            mux.rotate(now).unwrap();
            model.rotate();
        }
        let dt = rng.below(100) as u64;
        now += dt;
        model.elapse(dt);
        mux.stop(now).unwrap();
        let readings = mux.read(now).unwrap();
        for reading in readings.iter() {
            assert_eq!(
                reading.running,
                model.running[reading.group.index()],
                "case {case}: group {} of {:?}",
                reading.group.index(),
                model.groups
            );
        }
    }
}
