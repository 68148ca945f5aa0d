//! Host tests of `ProbePoint`: notification, listener kinds, errors, and adding/removing
//! listeners from inside a notification (the semantics documented on `ProbePoint`).

use std::cell::{Cell, RefCell};

use pmprobe::probe::{Listener, ListenerRef, ProbeError, ProbePoint};

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
