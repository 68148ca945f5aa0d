//! Host tests of `ProbePoint`: notification, listener kinds, errors, and adding/removing
//! listeners from inside a notification (the semantics documented on `ProbePoint`); batches
//! (`notify_all`: each listener hears the whole batch before the next, the batch counting as
//! one notification for adding and removing, `MutListener` taking it with one borrow).

use std::cell::{Cell, RefCell};

use pmprobe::probe::{Listener, ListenerMut, ListenerRef, MutListener, ProbeError, ProbePoint};

thread_local! {
    /// Which listener ran, in order, with which argument.
    static LOG: RefCell<Vec<(&'static str, u32)>> = const { RefCell::new(Vec::new()) };
    /// A point that callbacks can reach without a reference.
    static POINT: ProbePoint<'static, u32, 3> = const { ProbePoint::new() };
}

fn log(name: &'static str, arg: u32) {
    LOG.with(|log| log.borrow_mut().push((name, arg)));
}

fn take_log() -> Vec<(&'static str, u32)> {
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

fn listener_a(arg: &u32) {
    log("a", *arg);
}

fn listener_b(arg: &u32) {
    log("b", *arg);
}

fn listener_c(arg: &u32) {
    log("c", *arg);
}

/// Counts notifications and sums their arguments.
#[derive(Default)]
struct Counter {
    calls: Cell<u32>,
    sum: Cell<u64>,
}

impl Listener<u32> for Counter {
    fn notify(&self, arg: &u32) {
        self.calls.set(self.calls.get() + 1);
        self.sum.set(self.sum.get() + u64::from(*arg));
    }
}

impl Listener<&'static str> for Counter {
    fn notify(&self, arg: &&'static str) {
        self.calls.set(self.calls.get() + 1);
        self.sum.set(self.sum.get() + arg.len() as u64);
    }
}

#[test]
fn empty_point_has_no_listeners_and_notify_calls_nothing() {
    let point: ProbePoint<u32, 4> = ProbePoint::new();
    assert!(!point.has_listeners());
    assert_eq!(point.listener_count(), 0);
    assert_eq!(point.capacity(), 4);
    point.notify(&1);
    assert!(take_log().is_empty());
}

#[test]
fn function_listeners_run_in_attachment_order_with_the_argument() {
    let point: ProbePoint<u32, 4> = ProbePoint::new();
    point.add_fn(listener_b).unwrap();
    point.add_fn(listener_a).unwrap();
    assert!(point.has_listeners());
    assert_eq!(point.listener_count(), 2);
    point.notify(&7);
    point.notify(&8);
    assert_eq!(take_log(), [("b", 7), ("a", 7), ("b", 8), ("a", 8)]);
}

#[test]
fn one_object_listens_to_several_points_of_several_types() {
    let counter = Counter::default();
    let first: ProbePoint<u32, 2> = ProbePoint::new();
    let second: ProbePoint<u32, 2> = ProbePoint::new();
    let names: ProbePoint<&'static str, 2> = ProbePoint::new();
    first.add_object(&counter).unwrap();
    second.add_object(&counter).unwrap();
    names.add_object(&counter).unwrap();
    first.notify(&10);
    second.notify(&5);
    names.notify(&"four");
    assert_eq!(counter.calls.get(), 3);
    assert_eq!(counter.sum.get(), 19);
}

#[test]
fn function_and_object_listeners_mix_on_one_point() {
    let counter = Counter::default();
    let point: ProbePoint<u32, 4> = ProbePoint::new();
    point.add_fn(listener_a).unwrap();
    point.add_object(&counter).unwrap();
    point.notify(&3);
    assert_eq!(take_log(), [("a", 3)]);
    assert_eq!(counter.calls.get(), 1);
    assert!(point.is_attached(ListenerRef::Object(&counter)));
    assert!(point.is_attached(ListenerRef::Function(listener_a)));
    assert!(!point.is_attached(ListenerRef::Function(listener_b)));
}

#[test]
fn exceeding_the_capacity_is_an_error_and_changes_nothing() {
    let point: ProbePoint<u32, 2> = ProbePoint::new();
    point.add_fn(listener_a).unwrap();
    point.add_fn(listener_b).unwrap();
    assert_eq!(
        point.add_fn(listener_c),
        Err(ProbeError::CapacityExceeded { capacity: 2 })
    );
    point.notify(&1);
    assert_eq!(take_log(), [("a", 1), ("b", 1)]);
}

#[test]
fn attaching_the_same_listener_twice_is_an_error() {
    let counter = Counter::default();
    let point: ProbePoint<u32, 4> = ProbePoint::new();
    point.add_fn(listener_a).unwrap();
    point.add_object(&counter).unwrap();
    assert_eq!(point.add_fn(listener_a), Err(ProbeError::DuplicateListener));
    assert_eq!(
        point.add_object(&counter),
        Err(ProbeError::DuplicateListener)
    );
    assert_eq!(point.listener_count(), 2);
    point.notify(&1);
    assert_eq!(take_log(), [("a", 1)]);
    assert_eq!(counter.calls.get(), 1);
}

#[test]
fn removing_a_listener_that_is_not_attached_is_an_error() {
    let counter = Counter::default();
    let other = Counter::default();
    let point: ProbePoint<u32, 4> = ProbePoint::new();
    assert_eq!(point.remove_fn(listener_a), Err(ProbeError::NotAttached));
    point.add_object(&counter).unwrap();
    assert_eq!(point.remove_object(&other), Err(ProbeError::NotAttached));
    point.remove_object(&counter).unwrap();
    assert_eq!(point.remove_object(&counter), Err(ProbeError::NotAttached));
    assert!(!point.has_listeners());
}

#[test]
fn removal_keeps_the_order_of_the_others_and_frees_capacity() {
    let point: ProbePoint<u32, 3> = ProbePoint::new();
    point.add_fn(listener_a).unwrap();
    point.add_fn(listener_b).unwrap();
    point.add_fn(listener_c).unwrap();
    point.remove_fn(listener_b).unwrap();
    point.add_fn(listener_b).unwrap();
    point.notify(&2);
    assert_eq!(take_log(), [("a", 2), ("c", 2), ("b", 2)]);
    point.clear();
    assert!(!point.has_listeners());
    point.notify(&3);
    assert!(take_log().is_empty());
}

// --- adding and removing from inside a notification -------------------------------------

fn removes_itself(arg: &u32) {
    log("self", *arg);
    POINT.with(|point| point.remove_fn(removes_itself)).unwrap();
}

#[test]
fn a_listener_removing_itself_runs_once() {
    POINT.with(|point| {
        point.add_fn(listener_a).unwrap();
        point.add_fn(removes_itself).unwrap();
        point.add_fn(listener_b).unwrap();
        point.notify(&1);
        point.notify(&2);
        assert_eq!(point.listener_count(), 2);
    });
    assert_eq!(
        take_log(),
        [("a", 1), ("self", 1), ("b", 1), ("a", 2), ("b", 2)]
    );
}

fn removes_b(arg: &u32) {
    log("remover", *arg);
    POINT.with(|point| point.remove_fn(listener_b)).unwrap();
}

#[test]
fn a_listener_removed_by_an_earlier_one_is_not_called_in_the_same_notify() {
    POINT.with(|point| {
        point.add_fn(removes_b).unwrap();
        point.add_fn(listener_b).unwrap();
        point.add_fn(listener_c).unwrap();
        point.notify(&1);
    });
    assert_eq!(take_log(), [("remover", 1), ("c", 1)]);
}

fn removes_a(arg: &u32) {
    log("remover", *arg);
    // Only the first notification finds `a` attached.
    let _ = POINT.with(|point| point.remove_fn(listener_a));
}

#[test]
fn removing_an_already_called_listener_affects_the_next_notify() {
    POINT.with(|point| {
        point.add_fn(listener_a).unwrap();
        point.add_fn(removes_a).unwrap();
        point.notify(&1);
        point.notify(&2);
    });
    assert_eq!(take_log(), [("a", 1), ("remover", 1), ("remover", 2)]);
}

fn adds_c(arg: &u32) {
    log("adder", *arg);
    let _ = POINT.with(|point| point.add_fn(listener_c));
}

#[test]
fn a_listener_added_during_notify_runs_from_the_next_notify() {
    POINT.with(|point| {
        point.add_fn(adds_c).unwrap();
        point.notify(&1);
        assert_eq!(point.listener_count(), 2);
        point.notify(&2);
    });
    assert_eq!(take_log(), [("adder", 1), ("adder", 2), ("c", 2)]);
}

fn replaces_itself_with_c(arg: &u32) {
    log("replacer", *arg);
    POINT.with(|point| {
        point.remove_fn(replaces_itself_with_c).unwrap();
        let result = point.add_fn(listener_c);
        LOG.with(|log| {
            log.borrow_mut().push(if result.is_ok() {
                ("added", 0)
            } else {
                ("full", 0)
            })
        });
    });
}

#[test]
fn a_hole_left_during_notify_is_reclaimed_when_it_returns() {
    POINT.with(|point| {
        point.add_fn(listener_a).unwrap();
        point.add_fn(replaces_itself_with_c).unwrap();
        point.add_fn(listener_b).unwrap();
        // All three slots are in use; the hole of the removed listener stays until the
        // notification returns, so adding `c` inside it fails with CapacityExceeded.
        point.notify(&1);
        assert_eq!(point.listener_count(), 2);
        assert_eq!(point.add_fn(listener_c), Ok(()));
        point.notify(&2);
    });
    assert_eq!(
        take_log(),
        [
            ("a", 1),
            ("replacer", 1),
            ("full", 0),
            ("b", 1),
            ("a", 2),
            ("b", 2),
            ("c", 2)
        ]
    );
}

fn notifies_again_once(arg: &u32) {
    log("nester", *arg);
    if *arg == 1 {
        POINT.with(|point| {
            point.remove_fn(notifies_again_once).unwrap();
            point.notify(&10);
        });
    }
}

#[test]
fn nested_notification_follows_the_same_rules() {
    POINT.with(|point| {
        point.add_fn(notifies_again_once).unwrap();
        point.add_fn(listener_a).unwrap();
        point.notify(&1);
        assert_eq!(point.listener_count(), 1);
    });
    // The nested notify sees `nester` removed; the outer one continues with `a`.
    assert_eq!(take_log(), [("nester", 1), ("a", 10), ("a", 1)]);
}

/// An object listener that detaches itself from the point it holds.
struct OneShot<'a> {
    point: Cell<Option<&'a ProbePoint<'a, u32, 2>>>,
    me: Cell<Option<&'a dyn Listener<u32>>>,
    calls: Cell<u32>,
}

impl Listener<u32> for OneShot<'_> {
    fn notify(&self, _arg: &u32) {
        self.calls.set(self.calls.get() + 1);
        if let (Some(point), Some(me)) = (self.point.get(), self.me.get()) {
            point.remove_object(me).unwrap();
        }
    }
}

#[test]
fn an_object_listener_can_detach_itself() {
    let point: ProbePoint<u32, 2> = ProbePoint::new();
    let one_shot = OneShot {
        point: Cell::new(None),
        me: Cell::new(None),
        calls: Cell::new(0),
    };
    one_shot.point.set(Some(&point));
    one_shot.me.set(Some(&one_shot));
    point.add_object(&one_shot).unwrap();
    point.notify(&1);
    point.notify(&2);
    assert_eq!(one_shot.calls.get(), 1);
    assert!(!point.has_listeners());
}

// --- batches: `notify_all` --------------------------------------------------------------

/// An object that keeps `Listener::notify_all`'s default (one `notify` per argument).
#[derive(Default)]
struct Sum(Cell<u64>, Cell<u32>);

impl Listener<u32> for Sum {
    fn notify(&self, arg: &u32) {
        self.0.set(self.0.get() + u64::from(*arg));
        self.1.set(self.1.get() + 1);
    }
}

#[test]
fn each_listener_hears_the_whole_batch_before_the_next() {
    let sum = Sum::default();
    let point: ProbePoint<u32, 4> = ProbePoint::new();
    point.add_fn(listener_a).unwrap();
    point.add_object(&sum).unwrap();
    point.add_fn(listener_b).unwrap();
    point.notify_all(&[1, 2, 3]);
    assert_eq!(
        take_log(),
        [("a", 1), ("a", 2), ("a", 3), ("b", 1), ("b", 2), ("b", 3)]
    );
    assert_eq!((sum.0.get(), sum.1.get()), (6, 3));
}

/// Logs each batch it gets as one entry (its length).
struct Batches;

impl Listener<u32> for Batches {
    fn notify(&self, arg: &u32) {
        log("one", *arg);
    }
    fn notify_all(&self, args: &[u32]) {
        log("batch", args.len() as u32);
    }
}

#[test]
fn an_object_gets_a_batch_in_one_call_and_an_empty_batch_reaches_nobody() {
    let point: ProbePoint<u32, 2> = ProbePoint::new();
    point.add_object(&Batches).unwrap();
    point.notify_all(&[]);
    point.notify_all(&[7, 8]);
    point.notify(&9);
    assert_eq!(take_log(), [("batch", 2), ("one", 9)]);
}

#[test]
fn a_listener_added_during_a_batch_hears_from_the_next_batch() {
    POINT.with(|point| {
        point.add_fn(adds_c).unwrap();
        point.notify_all(&[1, 2]);
        assert_eq!(point.listener_count(), 2);
        point.notify_all(&[3]);
        point.clear();
    });
    assert_eq!(
        take_log(),
        [("adder", 1), ("adder", 2), ("adder", 3), ("c", 3)]
    );
}

#[test]
fn a_listener_removed_during_a_batch_is_not_called_from_then_on() {
    POINT.with(|point| {
        point.add_fn(removes_a).unwrap();
        point.add_fn(listener_a).unwrap();
        point.add_fn(listener_b).unwrap();
        point.notify_all(&[1, 2]);
        assert_eq!(point.listener_count(), 2);
        point.clear();
    });
    assert_eq!(
        take_log(),
        [("remover", 1), ("remover", 2), ("b", 1), ("b", 2)]
    );
}

/// Records the batches it gets; the first one it gets notifies its own point again.
struct Nester<'p> {
    point: Cell<Option<&'p ProbePoint<'p, u32, 2>>>,
    batches: Vec<Vec<u32>>,
}

impl ListenerMut<u32> for Nester<'_> {
    fn notify_mut(&mut self, arg: &u32) {
        self.batches.push(vec![*arg]);
    }
    fn notify_mut_all(&mut self, args: &[u32]) {
        self.batches.push(args.to_vec());
        if let Some(point) = self.point.take() {
            // Re-entrant: this listener is busy, so the nested batch is not delivered.
            point.notify_all(&[40, 41, 42]);
        }
    }
}

#[test]
fn a_mut_listener_takes_a_batch_in_one_borrow_and_counts_a_reentrant_batch_as_dropped() {
    let point: ProbePoint<u32, 2> = ProbePoint::new();
    let nester = MutListener::new(Nester {
        point: Cell::new(None),
        batches: Vec::new(),
    });
    nester.with(|inner| inner.point.set(Some(&point)));
    point.add_object(&nester).unwrap();
    point.notify_all(&[1, 2]);
    point.notify_all(&[3]);
    point.notify(&4);
    assert_eq!(nester.reentrant_drops(), 3);
    let batches = nester.with(|inner| inner.batches.clone()).unwrap();
    assert_eq!(batches, [vec![1, 2], vec![3], vec![4]]);
}
