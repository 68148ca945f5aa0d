//! Interval mode (`perf stat -I`): the ring keeps its readings in order and counts the ones it
//! drops; the timer is due once per period; intervals computed from cumulative readings add
//! up to the totals even when readings were dropped.

use pmprobe::pmu::{
    EmulatedPmu, Event, GroupKind, IntervalDeltas, IntervalReading, IntervalRing, IntervalTimer,
    Multiplexer, Pmu, Readings, ZeroInterval,
};

#[test]
fn a_full_ring_drops_new_readings_and_counts_them() {
    let mut ring = IntervalRing::<3, 2>::new();
    assert_eq!(ring.capacity(), 3);
    for time in 0..5 {
        let kept = ring.push(IntervalReading {
            time,
            readings: Readings::new(),
        });
        assert_eq!(kept, time < 3);
    }
    assert_eq!((ring.len(), ring.dropped()), (3, 2));
    assert_eq!(ring.pop().map(|r| r.time), Some(0));
    assert!(ring.push(IntervalReading {
        time: 9,
        readings: Readings::new()
    }));
    let order: Vec<u64> = core::iter::from_fn(|| ring.pop().map(|r| r.time)).collect();
    assert_eq!(order, [1, 2, 9]);
    assert!(ring.is_empty());
    assert_eq!(ring.dropped(), 2, "the count of drops stays");
}

#[test]
fn the_timer_is_due_once_per_period() {
    assert_eq!(IntervalTimer::new(0, 0), Err(ZeroInterval));
    let mut timer = IntervalTimer::new(50, 10).unwrap();
    let due: Vec<u64> = (50..100).filter(|&now| timer.poll(now)).collect();
    assert_eq!(due, [60, 70, 80, 90]);
    // Polled late, one reading; the next is due at the next multiple of the period.
    assert!(timer.poll(125));
    assert_eq!(timer.next_due(), 130);
    assert!(!timer.poll(129));
}

#[test]
fn intervals_add_up_to_the_totals_even_across_dropped_readings() {
    let cpu = EmulatedPmu::neoverse_v1_like();
    let mut pmu = Pmu::new(&cpu).unwrap();
    let mut mux = Multiplexer::<_, 8, 3>::new(&mut pmu);
    mux.add_group(&[Event::CPU_CYCLES, Event::INST_RETIRED], GroupKind::Pinned)
        .unwrap();
    mux.add_group(&[Event::LD_RETIRED; 5], GroupKind::Flexible)
        .unwrap();
    mux.add_group(&[Event::ST_RETIRED; 1], GroupKind::Flexible)
        .unwrap();
    // A small ring that the reader empties only every fourth reading: some are dropped.
    let mut ring = IntervalRing::<2, 8>::new();
    let mut deltas = IntervalDeltas::new(1000);
    let mut timer = IntervalTimer::new(1000, 25).unwrap();
    let mut sums = [0u64; 8];
    let mut times = 0;
    let mut drain = |ring: &mut IntervalRing<2, 8>, sums: &mut [u64; 8], times: &mut u64| {
        while let Some(reading) = ring.pop() {
            let (since_start, interval) = deltas.next(&reading);
            *times = since_start;
            for (sum, reading) in sums.iter_mut().zip(interval.iter()) {
                *sum += reading.raw;
            }
        }
    };
    mux.start(1000).unwrap();
    for step in 1..=40u64 {
        let now = 1000 + step * 10;
        cpu.tick_cycles(10);
        cpu.count(Event::INST_RETIRED.number(), 7);
        cpu.count(Event::LD_RETIRED.number(), 3);
        cpu.count(Event::ST_RETIRED.number(), 2);
        mux.rotate(now).unwrap();
        if timer.poll(now) {
            let readings = mux.read(now).unwrap();
            ring.push(IntervalReading {
                time: now,
                readings,
            });
        }
        if step % 8 == 0 {
            drain(&mut ring, &mut sums, &mut times);
        }
    }
    mux.stop(1400).unwrap();
    // The last, partial interval at the end, as perf prints one when the workload exits.
    let last = mux.read(1400).unwrap();
    assert!(ring.push(IntervalReading {
        time: 1400,
        readings: last.clone()
    }));
    drain(&mut ring, &mut sums, &mut times);
    assert!(ring.dropped() > 0, "the test drops readings");
    assert_eq!(times, 400);
    for (sum, reading) in sums.iter().zip(last.iter()) {
        assert_eq!(*sum, reading.raw, "{reading:?}");
    }
    assert_eq!(last.exact(Event::INST_RETIRED), Some(7 * 40));
}
