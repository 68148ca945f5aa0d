//! The multiplexer against perf's rules, case by case. Each expectation is worked out by hand
//! from the rule it names (Linux `kernel/events/core.c`: `merge_sched_in`/`group_can_go_on`
//! schedule flexible groups in order while they fit and stop at the first that does not;
//! `perf_rotate_context` moves the first one to the end when one had to wait; pinned groups
//! stay on; arm_pmuv3's `armv8pmu_get_event_idx` puts CPU_CYCLES on PMCCNTR while it is
//! free; perf's `perf_counts_values__scale` makes the estimate).

use pmprobe::pmu::{
    Counter, EmulatedPmu, Error, Event, GroupId, GroupKind, Multiplexer, MuxError, Pmu,
};

use GroupKind::{Flexible, Pinned};

/// Non-cycle events the Neoverse-V1-like preset implements, for groups of any size.
const E: [Event; 8] = [
    Event::INST_RETIRED,
    Event::LD_RETIRED,
    Event::ST_RETIRED,
    Event::BR_RETIRED,
    Event::BR_MIS_PRED,
    Event::L1D_CACHE,
    Event::L1D_CACHE_REFILL,
    Event::MEM_ACCESS,
];

#[test]
fn typed_errors_for_groups_that_cannot_be_scheduled() {
    let cpu = EmulatedPmu::neoverse_v1_like(); // PMCR.N = 6
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 16, 4>::new(&mut pmu);
    assert_eq!(mux.add_group(&[], Flexible), Err(MuxError::EmptyGroup));
    // Seven events that are not CPU_CYCLES need seven event counters; there are six.
    assert_eq!(
        mux.add_group(&E[..7], Flexible),
        Err(MuxError::GroupTooLarge {
            needs: 7,
            available: 6
        })
    );
    // CPU_CYCLES goes on PMCCNTR: with it, seven events need only six event counters.
    let mut seven = E[..6].to_vec();
    seven.push(Event::CPU_CYCLES);
    assert!(mux.add_group(&seven, Flexible).is_ok());
    // Pinned: two event counters for good; the six-counter group above no longer fits.
    assert_eq!(
        mux.add_group(&[Event::INST_RETIRED, Event::LD_RETIRED], Pinned),
        Err(MuxError::GroupTooLarge {
            needs: 6,
            available: 4
        })
    );
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 16, 4>::new(&mut pmu);
    mux.add_group(&E[..4], Pinned).unwrap();
    assert_eq!(
        mux.add_group(&E[4..7], Pinned),
        Err(MuxError::PinnedDoNotFit {
            needs: 7,
            available: 6
        })
    );
    assert_eq!(
        mux.add_group(&E[4..7], Flexible),
        Err(MuxError::GroupTooLarge {
            needs: 3,
            available: 2
        })
    );
}

#[test]
fn capacity_time_and_state_errors() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 3, 2>::new(&mut pmu);
    mux.add_group(&E[..2], Flexible).unwrap();
    assert_eq!(
        mux.add_group(&E[2..4], Flexible),
        Err(MuxError::TooManyEvents { capacity: 3 })
    );
    mux.add_event(E[2]).unwrap();
    let mut pmu2 = Pmu::new(&cpu).unwrap();
    let mut small = Multiplexer::<_, 8, 1>::new(&mut pmu2);
    small.add_event(E[0]).unwrap();
    assert_eq!(
        small.add_event(E[1]),
        Err(MuxError::TooManyGroups { capacity: 1 })
    );
    assert_eq!(mux.rotate(5), Err(MuxError::NotRunning));
    assert_eq!(mux.stop(5), Err(MuxError::NotRunning));
    mux.start(10).unwrap();
    assert_eq!(mux.start(10), Err(MuxError::Running));
    assert_eq!(mux.add_event(E[3]), Err(MuxError::Running));
    assert_eq!(
        mux.rotate(9),
        Err(MuxError::ClockWentBack { last: 10, now: 9 })
    );
    assert_eq!(
        mux.read(3).map(|_| ()),
        Err(MuxError::ClockWentBack { last: 10, now: 3 })
    );
    mux.stop(20).unwrap();
    assert!(!mux.is_running());
}

#[test]
fn events_the_pmu_does_not_implement_are_refused_by_name() {
    // QEMU's cortex-a57 PMU counts SW_INCR, INST_RETIRED and CPU_CYCLES only.
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 4, 2>::new(&mut pmu);
    assert_eq!(
        mux.add_group(&[Event::INST_RETIRED, Event::L1D_CACHE], Flexible),
        Err(MuxError::Pmu(Error::EventNotImplemented(Event::L1D_CACHE)))
    );
    assert_eq!(mux.groups(), 0, "nothing of a refused group is kept");
}

#[test]
fn cpu_cycles_takes_pmccntr_while_it_is_free() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 8, 2>::new(&mut pmu);
    let pinned = mux
        .add_group(&[Event::CPU_CYCLES, Event::INST_RETIRED], Pinned)
        .unwrap();
    let stalls = mux
        .add_group(&[Event::CPU_CYCLES, Event::STALL_FRONTEND], Flexible)
        .unwrap();
    mux.start(0).unwrap();
    assert_eq!(mux.counter_of(pinned, 0), Some(Counter::Cycle));
    assert_eq!(mux.counter_of(pinned, 1), Some(Counter::Event(0)));
    // The second CPU_CYCLES finds PMCCNTR taken: the next event counter.
    assert_eq!(mux.counter_of(stalls, 0), Some(Counter::Event(1)));
    assert_eq!(mux.counter_of(stalls, 1), Some(Counter::Event(2)));
    cpu.tick_cycles(40);
    let readings = mux.read(40).unwrap();
    assert_eq!(readings.as_slice()[0].raw, 40);
    assert_eq!(readings.as_slice()[2].raw, 40);
}

#[test]
fn flexible_groups_stop_at_the_first_that_does_not_fit_and_rotate_first_to_last() {
    // Six counters, groups of 4, 3 and 2 in that order. `group_can_go_on`: a group goes on
    // only if every group before it did, so:
    //   order [A, B, C]: A (4) on; B (3) does not fit beside it; C waits although 2 are free;
    //   order [B, C, A]: B (3) and C (2) on; A does not fit;
    //   order [C, A, B]: C (2) and A (4) on; B does not fit.
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 9, 3>::new(&mut pmu);
    let a = mux.add_group(&E[0..4], Flexible).unwrap();
    let b = mux.add_group(&E[4..7], Flexible).unwrap();
    let c = mux.add_group(&E[6..8], Flexible).unwrap();
    let on = |mux: &Multiplexer<'_, _, 9, 3>| [a, b, c].map(|group| mux.is_scheduled(group));
    mux.start(0).unwrap();
    assert_eq!(on(&mux), [true, false, false]);
    mux.rotate(10).unwrap();
    assert_eq!(on(&mux), [false, true, true]);
    mux.rotate(30).unwrap();
    assert_eq!(on(&mux), [true, false, true]);
    mux.rotate(60).unwrap();
    assert_eq!(on(&mux), [true, false, false]);
    mux.stop(100).unwrap();
    // Running: A 0-10, 30-60, 60-100 = 80; B 10-30 = 20; C 10-30, 30-60 = 50. Enabled: 100.
    let readings = mux.read(100).unwrap();
    let running = |group: GroupId| {
        readings
            .iter()
            .find(|r| r.group == group)
            .map(|r| (r.running, r.enabled))
    };
    assert_eq!(running(a), Some((80, 100)));
    assert_eq!(running(b), Some((20, 100)));
    assert_eq!(running(c), Some((50, 100)));
}

#[test]
fn with_every_group_on_rotation_changes_nothing_and_counts_are_exact() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 4, 2>::new(&mut pmu);
    mux.add_group(&E[0..2], Flexible).unwrap();
    mux.add_group(&E[2..4], Flexible).unwrap();
    mux.start(0).unwrap();
    for time in 1..=10 {
        cpu.count(Event::LD_RETIRED.number(), 3);
        mux.rotate(time * 7).unwrap();
    }
    mux.stop(70).unwrap();
    let readings = mux.read(70).unwrap();
    let loads = readings.find(Event::LD_RETIRED).unwrap();
    assert_eq!((loads.raw, loads.enabled, loads.running), (30, 70, 70));
    assert!(!loads.is_scaled());
    assert_eq!(loads.estimate(), Some(30));
    assert_eq!(readings.exact(Event::LD_RETIRED), Some(30));
}

#[test]
fn counts_add_up_over_the_turns_and_the_estimate_scales_them() {
    // Pinned INST_RETIRED and two flexible groups of 5 on 6 counters: one flexible group at a
    // time, turns of 10, 20 and 30 time units.
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 11, 3>::new(&mut pmu);
    mux.add_group(&[Event::INST_RETIRED], Pinned).unwrap();
    let loads = mux
        .add_group(&[E[1], E[2], E[3], E[4], E[5]], Flexible)
        .unwrap();
    let cache = mux
        .add_group(&[E[6], E[7], E[1], E[2], E[3]], Flexible)
        .unwrap();
    mux.start(0).unwrap();
    assert!(mux.is_scheduled(loads) && !mux.is_scheduled(cache));
    cpu.count(Event::L1D_CACHE.number(), 100); // L1D_CACHE is in `loads` only
    cpu.count(Event::INST_RETIRED.number(), 10);
    mux.rotate(10).unwrap();
    cpu.count(Event::L1D_CACHE.number(), 1000); // its group is off: not counted
    cpu.count(Event::INST_RETIRED.number(), 20);
    mux.rotate(30).unwrap();
    cpu.count(Event::L1D_CACHE.number(), 300);
    cpu.count(Event::INST_RETIRED.number(), 30);
    // A read while running includes what the counters on now have counted.
    let live = mux.read(45).unwrap();
    let l1d = live.find(Event::L1D_CACHE).unwrap();
    assert_eq!((l1d.raw, l1d.enabled, l1d.running), (400, 45, 25));
    mux.stop(60).unwrap();
    let readings = mux.read(60).unwrap();
    let l1d = readings.find(Event::L1D_CACHE).unwrap();
    assert_eq!((l1d.raw, l1d.enabled, l1d.running), (400, 60, 40));
    assert_eq!(l1d.estimate(), Some(600)); // 400 × 60 / 40
    assert!((l1d.running_percent() - 200.0 / 3.0).abs() < 1e-9);
    let inst = readings.find(Event::INST_RETIRED).unwrap();
    assert_eq!((inst.raw, inst.running), (60, 60));
    // LD_RETIRED is in both groups: each reading covers its own group's turns.
    let in_cache = readings.find_in(Event::LD_RETIRED, cache).unwrap();
    assert_eq!(in_cache.running, 20);
}

#[test]
fn counters_programmed_by_others_are_left_alone() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    pmu.program_on(Counter::Event(0), Event::SW_INCR, false)
        .unwrap();
    pmu.program_on(Counter::Cycle, Event::CPU_CYCLES, false)
        .unwrap();
    {
        let mut mux = Multiplexer::<_, 8, 2>::new(&mut pmu);
        let group = mux
            .add_group(&[Event::CPU_CYCLES, Event::INST_RETIRED], Pinned)
            .unwrap();
        mux.start(0).unwrap();
        // PMCCNTR and PMEVCNTR0 are taken: CPU_CYCLES and INST_RETIRED get 1 and 2.
        assert_eq!(mux.counter_of(group, 0), Some(Counter::Event(1)));
        assert_eq!(mux.counter_of(group, 1), Some(Counter::Event(2)));
        mux.stop(1).unwrap();
    }
    assert_eq!(pmu.event_of(Counter::Event(0)), Some(Event::SW_INCR));
    assert_eq!(pmu.event_of(Counter::Cycle), Some(Event::CPU_CYCLES));
    assert_eq!(pmu.event_of(Counter::Event(1)), None, "freed at stop");
    assert_eq!(pmu.event_of(Counter::Event(2)), None, "freed at stop");
}

#[test]
fn pinned_groups_that_others_crowd_out_are_refused_at_start() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    for n in 0..4 {
        pmu.program_on(Counter::Event(n), Event::SW_INCR, false)
            .unwrap();
    }
    let mut mux = Multiplexer::<_, 8, 2>::new(&mut pmu);
    mux.add_group(&E[..3], Pinned).unwrap();
    assert_eq!(
        mux.start(0),
        Err(MuxError::PinnedDoNotFit {
            needs: 3,
            available: 2
        })
    );
    assert!(!mux.is_running());
}

#[test]
fn a_32_bit_counter_keeps_counting_past_its_wrap_across_turns() {
    // QEMU's cortex-a57 preset has 32-bit event counters: the driver's software extension
    // keeps the count when a rotation reads it after a wrap.
    let cpu = EmulatedPmu::qemu_cortex_a57();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 12, 2>::new(&mut pmu);
    mux.add_group(&[Event::INST_RETIRED; 6], Flexible).unwrap();
    mux.add_group(&[Event::INST_RETIRED; 6], Flexible).unwrap();
    mux.start(0).unwrap();
    cpu.count(Event::INST_RETIRED.number(), 3 << 31);
    mux.rotate(1).unwrap();
    mux.rotate(2).unwrap();
    cpu.count(Event::INST_RETIRED.number(), 5);
    mux.stop(3).unwrap();
    let readings = mux.read(3).unwrap();
    let first = readings.as_slice()[0];
    assert_eq!(
        (first.raw, first.running, first.enabled),
        ((3 << 31) + 5, 2, 3)
    );
}
