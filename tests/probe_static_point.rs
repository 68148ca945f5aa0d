//! Host tests of `StaticProbePoint` and the listener sets it notifies: tuples, arrays, slices,
//! options, references and plain functions, alone, nested, and attached to a runtime
//! `ProbePoint` as one listener.

use std::cell::{Cell, RefCell};

use pmprobe::probe::{Listener, ProbePoint, StaticProbePoint};

/// Appends its name and the argument to a shared log.
struct Named<'l> {
    name: &'static str,
    log: &'l RefCell<Vec<(&'static str, u64)>>,
}

impl Listener<u64> for Named<'_> {
    fn notify(&self, arg: &u64) {
        self.log.borrow_mut().push((self.name, *arg));
    }
}

/// Keeps the largest argument (a second listener type, to mix types in one set).
struct Peak(Cell<u64>);

impl Listener<u64> for Peak {
    fn notify(&self, arg: &u64) {
        self.0.set(self.0.get().max(*arg));
    }
}

thread_local! {
    static FUNCTION_CALLS: Cell<u64> = const { Cell::new(0) };
}

fn count_call(arg: &u64) {
    FUNCTION_CALLS.with(|calls| calls.set(calls.get() + arg));
}

fn names(log: &RefCell<Vec<(&'static str, u64)>>) -> Vec<(&'static str, u64)> {
    std::mem::take(&mut *log.borrow_mut())
}

#[test]
fn a_tuple_notifies_its_members_in_order_with_the_argument() {
    let log = RefCell::new(Vec::new());
    let a = Named {
        name: "a",
        log: &log,
    };
    let b = Named {
        name: "b",
        log: &log,
    };
    let peak = Peak(Cell::new(0));
    let point: StaticProbePoint<u64, _> = StaticProbePoint::new((&b, &peak, &a));
    point.notify(&5);
    point.notify(&3);
    assert_eq!(names(&log), [("b", 5), ("a", 5), ("b", 3), ("a", 3)]);
    assert_eq!(peak.0.get(), 5);
}

#[test]
fn arrays_slices_options_and_functions_are_sets_too() {
    let log = RefCell::new(Vec::new());
    let members = [
        Named {
            name: "0",
            log: &log,
        },
        Named {
            name: "1",
            log: &log,
        },
        Named {
            name: "2",
            log: &log,
        },
    ];
    let absent: Option<&Peak> = None;
    let peak = Peak(Cell::new(0));
    let present = Some(&peak);
    let function: fn(&u64) = count_call;
    let point: StaticProbePoint<u64, _> =
        StaticProbePoint::new((&members[..2], absent, present, function, [&members[2]]));
    point.notify(&7);
    assert_eq!(names(&log), [("0", 7), ("1", 7), ("2", 7)]);
    assert_eq!(peak.0.get(), 7);
    assert_eq!(FUNCTION_CALLS.with(Cell::get), 7);
}

#[test]
fn nested_sets_keep_their_order() {
    let log = RefCell::new(Vec::new());
    let [a, b, c, d] = ["a", "b", "c", "d"].map(|name| Named { name, log: &log });
    let point: StaticProbePoint<u64, _> = StaticProbePoint::new(((&a, (&b, &c)), &d));
    point.notify(&1);
    assert_eq!(names(&log), [("a", 1), ("b", 1), ("c", 1), ("d", 1)]);
    // The set stays reachable and can be taken back.
    let ((first, _), last) = point.into_listeners();
    assert_eq!((first.name, last.name), ("a", "d"));
}

#[test]
fn a_static_set_attaches_to_a_runtime_point_as_one_listener() {
    let log = RefCell::new(Vec::new());
    let a = Named {
        name: "a",
        log: &log,
    };
    let b = Named {
        name: "b",
        log: &log,
    };
    let c = Named {
        name: "c",
        log: &log,
    };
    let set: StaticProbePoint<u64, _> = StaticProbePoint::new((&a, &b));
    let point: ProbePoint<u64, 4> = ProbePoint::new();
    point.add_object(&set).unwrap();
    point.add_object(&c).unwrap();
    assert_eq!(point.listener_count(), 2);
    point.notify(&9);
    assert_eq!(names(&log), [("a", 9), ("b", 9), ("c", 9)]);
    point.remove_object(&set).unwrap();
    point.notify(&4);
    assert_eq!(names(&log), [("c", 4)]);
}

#[test]
fn the_empty_set_and_an_empty_array_call_nothing() {
    let empty: StaticProbePoint<u64, ()> = StaticProbePoint::new(());
    empty.notify(&1);
    let peak = Peak(Cell::new(0));
    let none: StaticProbePoint<u64, [&Peak; 0]> = StaticProbePoint::new([]);
    none.notify(&1);
    let one: StaticProbePoint<u64, [&Peak; 1]> = StaticProbePoint::new([&peak]);
    one.notify(&2);
    assert_eq!(
        peak.0.get(),
        2,
        "only the non-empty set reached the listener"
    );
}
