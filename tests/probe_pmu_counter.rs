//! Host tests of the PMU event counter with a test-local fake sink: gem5's default wiring
//! (from the issue), attachment that follows what the sink counts, and user mappings.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use pmprobe::probe::listeners::{PmuCounterError, PmuEventCounter, PmuEventSink, SyncReport};
use pmprobe::probe::{Manager, ManagerError, ProbePoint};

/// Counts whatever it is told to count, per event number.
#[derive(Default)]
struct FakePmu {
    counting: BTreeSet<u16>,
    counts: BTreeMap<u16, u64>,
    calls_for_uncounted: u32,
}

impl PmuEventSink for FakePmu {
    fn count_event(&mut self, event: u16, n: u64) {
        if !self.counting.contains(&event) {
            self.calls_for_uncounted += 1;
        }
        *self.counts.entry(event).or_default() += n;
    }
    fn is_counting(&self, event: u16) -> bool {
        self.counting.contains(&event)
    }
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

type Point = ProbePoint<'static, u64, 4>;

struct Producer {
    insts: Point,
    cycles: Point,
    loads: Point,
    stores: Point,
    branches: Point,
    mispredicts: Point,
}

fn producer() -> &'static Producer {
    leak(Producer {
        insts: Point::new(),
        cycles: Point::new(),
        loads: Point::new(),
        stores: Point::new(),
        branches: Point::new(),
        mispredicts: Point::new(),
    })
}

fn manager(p: &'static Producer) -> Manager<'static, 8> {
    let mut manager = Manager::new();
    manager.register("RetiredInsts", &p.insts).unwrap();
    manager.register("ActiveCycles", &p.cycles).unwrap();
    manager.register("RetiredLoads", &p.loads).unwrap();
    manager.register("RetiredStores", &p.stores).unwrap();
    manager.register("RetiredBranches", &p.branches).unwrap();
    manager
        .register("BranchMispredicts", &p.mispredicts)
        .unwrap();
    manager
}

#[test]
fn the_default_wiring_is_gem5s() {
    let sink = leak(RefCell::new(FakePmu::default()));
    let counter: PmuEventCounter<'_, FakePmu, 8> =
        PmuEventCounter::with_gem5_defaults(sink).unwrap();
    let events = |point: &str| counter.feed(point).map(|feed| feed.events().to_vec());
    assert_eq!(events("RetiredInsts"), Some(vec![0x08]));
    assert_eq!(events("ActiveCycles"), Some(vec![0x11]));
    assert_eq!(events("Cycles"), Some(vec![0x11]));
    assert_eq!(events("RetiredLoads"), Some(vec![0x06, 0x13]));
    assert_eq!(events("RetiredStores"), Some(vec![0x07, 0x13]));
    assert_eq!(events("RetiredBranches"), Some(vec![0x21]));
    assert_eq!(events("BranchMispredicts"), Some(vec![0x10, 0x22]));
    assert!(counter.feeds().iter().all(|feed| !feed.is_attached()));
}

#[test]
fn feeds_attach_only_while_the_sink_counts_one_of_their_events() {
    let p = producer();
    let manager = manager(p);
    let sink = leak(RefCell::new(FakePmu::default()));
    let counter: &'static PmuEventCounter<'static, FakePmu, 8> =
        leak(PmuEventCounter::with_gem5_defaults(sink).unwrap());

    // Nothing counted: nothing attached (the "Cycles" alias is not wanted, so its absence
    // from the manager is no error).
    assert_eq!(
        counter.sync_attachments(&manager),
        Ok(SyncReport::default())
    );
    assert!(!p.insts.has_listeners());

    sink.borrow_mut().counting.insert(0x08);
    let report = counter.sync_attachments(&manager).unwrap();
    assert_eq!(report.attached, 1);
    assert!(p.insts.has_listeners());
    assert!(!p.loads.has_listeners());
    p.insts.notify(&5);
    p.insts.notify(&2);
    p.loads.notify(&100);
    assert_eq!(sink.borrow().counts.get(&0x08), Some(&7));
    assert_eq!(sink.borrow().counts.get(&0x06), None);

    // MEM_ACCESS (0x13) is fed by both loads and stores.
    sink.borrow_mut().counting.insert(0x13);
    let report = counter.sync_attachments(&manager).unwrap();
    assert_eq!(report.attached, 2);
    p.loads.notify(&3);
    p.stores.notify(&4);
    assert_eq!(sink.borrow().counts.get(&0x13), Some(&7));
    // 0x06 and 0x07 are not counted, so they are not fed either.
    assert_eq!(sink.borrow().counts.get(&0x06), None);
    assert_eq!(sink.borrow().counts.get(&0x07), None);
    assert_eq!(sink.borrow().calls_for_uncounted, 0);

    sink.borrow_mut().counting.remove(&0x08);
    let report = counter.sync_attachments(&manager).unwrap();
    assert_eq!(
        report,
        SyncReport {
            attached: 0,
            detached: 1,
            failed: 0
        }
    );
    assert!(!p.insts.has_listeners());
    assert!(!counter.feed("RetiredInsts").unwrap().is_attached());
    p.insts.notify(&9);
    assert_eq!(sink.borrow().counts.get(&0x08), Some(&7));
}

#[test]
fn one_point_feeds_several_events_and_an_event_is_fed_by_several_points() {
    let p = producer();
    let manager = manager(p);
    let sink = leak(RefCell::new(FakePmu::default()));
    let counter: &'static PmuEventCounter<'static, FakePmu, 8> =
        leak(PmuEventCounter::with_gem5_defaults(sink).unwrap());
    sink.borrow_mut()
        .counting
        .extend([0x10, 0x22, 0x06, 0x07, 0x13]);
    counter.sync_attachments(&manager).unwrap();
    p.mispredicts.notify(&2);
    p.loads.notify(&10);
    p.stores.notify(&1);
    let counts = &sink.borrow().counts;
    assert_eq!(counts.get(&0x10), Some(&2));
    assert_eq!(counts.get(&0x22), Some(&2));
    assert_eq!(counts.get(&0x06), Some(&10));
    assert_eq!(counts.get(&0x07), Some(&1));
    assert_eq!(counts.get(&0x13), Some(&11));
}

#[test]
fn a_wanted_point_that_is_not_registered_is_reported() {
    let p = producer();
    let manager = manager(p);
    let sink = leak(RefCell::new(FakePmu::default()));
    let counter: &'static PmuEventCounter<'static, FakePmu, 8> =
        leak(PmuEventCounter::with_gem5_defaults(sink).unwrap());
    // CPU_CYCLES is fed by "ActiveCycles" (registered) and "Cycles" (not registered).
    sink.borrow_mut().counting.insert(0x11);
    assert_eq!(
        counter.sync_attachments(&manager),
        Err(PmuCounterError::Sync {
            report: SyncReport {
                attached: 1,
                detached: 0,
                failed: 1
            },
            error: ManagerError::UnknownPoint("Cycles"),
        })
    );
    assert!(p.cycles.has_listeners());
}

#[test]
fn user_mappings_extend_and_are_checked() {
    let p = producer();
    let mut manager = manager(p);
    let refills: &'static Point = leak(Point::new());
    manager.register("L1DRefills", refills).unwrap();
    let sink = leak(RefCell::new(FakePmu::default()));
    let mut counter: PmuEventCounter<'static, FakePmu, 2> = PmuEventCounter::new(sink);
    counter.map("L1DRefills", 0x03).unwrap();
    counter.map("L1DRefills", 0x04).unwrap();
    assert_eq!(
        counter.map("L1DRefills", 0x03),
        Err(PmuCounterError::DuplicateMapping {
            point: "L1DRefills",
            event: 0x03
        })
    );
    counter.map("L1DRefills", 0x05).unwrap();
    counter.map("L1DRefills", 0x06).unwrap();
    assert_eq!(
        counter.map("L1DRefills", 0x07),
        Err(PmuCounterError::TooManyEvents {
            point: "L1DRefills"
        })
    );
    counter.map("RetiredInsts", 0x08).unwrap();
    assert_eq!(
        counter.map("Other", 0x01),
        Err(PmuCounterError::TooManyPoints { capacity: 2 })
    );
    assert_eq!(
        PmuEventCounter::<'static, FakePmu, 6>::with_gem5_defaults(sink).err(),
        Some(PmuCounterError::TooManyPoints { capacity: 6 })
    );

    let counter = leak(counter);
    sink.borrow_mut().counting.insert(0x03);
    counter.sync_attachments(&manager).unwrap();
    refills.notify(&4);
    assert_eq!(sink.borrow().counts.get(&0x03), Some(&4));
    assert!(!p.insts.has_listeners());
}
