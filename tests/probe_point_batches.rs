//! `ProbePoint::notify_all`: a batch of arguments, each listener hearing the whole batch in
//! one call before the next listener hears any of it, with `notify`'s rules for adding and
//! removing listeners (the batch counting as one notification), and `MutListener` taking a
//! batch with one borrow.

use std::cell::{Cell, RefCell};

use pmprobe::probe::{Listener, ListenerMut, MutListener, ProbePoint};

thread_local! {
    /// Which listener heard what, in order.
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

fn adds_c(arg: &u32) {
    log("adder", *arg);
    let _ = POINT.with(|point| point.add_fn(listener_c));
}

fn removes_b(arg: &u32) {
    log("remover", *arg);
    let _ = POINT.with(|point| point.remove_fn(listener_b));
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
        point.add_fn(removes_b).unwrap();
        point.add_fn(listener_b).unwrap();
        point.add_fn(listener_a).unwrap();
        point.notify_all(&[1, 2]);
        assert_eq!(point.listener_count(), 2);
        point.clear();
    });
    assert_eq!(
        take_log(),
        [("remover", 1), ("remover", 2), ("a", 1), ("a", 2)]
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
