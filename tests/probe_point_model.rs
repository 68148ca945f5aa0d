//! `ProbePoint` against a model of its documented semantics, over many pseudo-random
//! sequences: a point of capacity 10 (two runs of four slots and two more, so every part of the
//! notify loop is reached) and twelve listeners, half plain functions and half objects, that
//! add, remove, clear or notify again from inside their callback.
//!
//! The model is the documentation written as code: a notification calls the listeners attached
//! when it started, in attachment order, each only while still attached; additions during a
//! notification wait for the next one; a removal during a notification leaves a hole that
//! still takes capacity until the outermost notification returns.

use std::cell::{Cell, RefCell};

use pmprobe::probe::{Listener, ListenerRef, ProbeError, ProbePoint};

const CAPACITY: usize = 10;
const LISTENERS: u8 = 12;

/// What a listener does when it is called, once (the action is used up).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Action {
    Nothing,
    Add(u8),
    Remove(u8),
    Clear,
    NotifyAgain,
}

thread_local! {
    static POINT: ProbePoint<'static, u64, CAPACITY> = const { ProbePoint::new() };
    /// Listener ids in call order.
    static CALLS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The answers of the adds and removes listeners made, in order.
    static ANSWERS: RefCell<Vec<Result<(), ProbeError>>> = const { RefCell::new(Vec::new()) };
    /// The pending action of each listener.
    static SCRIPT: RefCell<[Action; LISTENERS as usize]> =
        const { RefCell::new([Action::Nothing; LISTENERS as usize]) };
}

/// Runs the pending action of listener `id` on the point.
fn act(id: u8) {
    CALLS.with(|calls| calls.borrow_mut().push(id));
    let action = SCRIPT.with(|script| {
        std::mem::replace(&mut script.borrow_mut()[usize::from(id)], Action::Nothing)
    });
    POINT.with(|point| {
        let answer = match action {
            Action::Nothing => return,
            Action::Add(target) => point.add_listener(listener(target)),
            Action::Remove(target) => point.remove_listener(listener(target)),
            Action::Clear => {
                point.clear();
                return;
            }
            Action::NotifyAgain => {
                point.notify(&0);
                return;
            }
        };
        ANSWERS.with(|answers| answers.borrow_mut().push(answer));
    });
}

fn f0(_: &u64) {
    act(0)
}
fn f1(_: &u64) {
    act(1)
}
fn f2(_: &u64) {
    act(2)
}
fn f3(_: &u64) {
    act(3)
}
fn f4(_: &u64) {
    act(4)
}
fn f5(_: &u64) {
    act(5)
}
const FUNCTIONS: [fn(&u64); 6] = [f0, f1, f2, f3, f4, f5];

struct Actor(u8);
impl Listener<u64> for Actor {
    fn notify(&self, _: &u64) {
        act(self.0)
    }
}
static OBJECTS: [Actor; 6] = [Actor(6), Actor(7), Actor(8), Actor(9), Actor(10), Actor(11)];

/// Ids 0..6 are functions, 6..12 objects.
fn listener(id: u8) -> ListenerRef<'static, u64> {
    let index = usize::from(id % 6);
    if id < 6 {
        ListenerRef::Function(FUNCTIONS[index])
    } else {
        ListenerRef::Object(&OBJECTS[index])
    }
}

/// The documented semantics, on a list of slots where `None` is a hole.
struct Model {
    slots: Vec<Option<u8>>,
    depth: usize,
    script: [Action; LISTENERS as usize],
    calls: Vec<u8>,
    answers: Vec<Result<(), ProbeError>>,
}

impl Model {
    fn new() -> Self {
        Self {
            slots: Vec::new(),
            depth: 0,
            script: [Action::Nothing; LISTENERS as usize],
            calls: Vec::new(),
            answers: Vec::new(),
        }
    }

    fn add(&mut self, id: u8) -> Result<(), ProbeError> {
        if self.slots.contains(&Some(id)) {
            Err(ProbeError::DuplicateListener)
        } else if self.slots.len() == CAPACITY {
            Err(ProbeError::CapacityExceeded { capacity: CAPACITY })
        } else {
            self.slots.push(Some(id));
            Ok(())
        }
    }

    fn remove(&mut self, id: u8) -> Result<(), ProbeError> {
        let index = self
            .slots
            .iter()
            .position(|slot| *slot == Some(id))
            .ok_or(ProbeError::NotAttached)?;
        self.slots[index] = None;
        self.reclaim_holes();
        Ok(())
    }

    fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
        self.reclaim_holes();
    }

    fn reclaim_holes(&mut self) {
        if self.depth == 0 {
            self.slots.retain(Option::is_some);
        }
    }

    fn notify(&mut self) {
        let end = self.slots.len();
        self.depth += 1;
        for index in 0..end {
            if let Some(id) = self.slots[index] {
                self.calls.push(id);
                let action = std::mem::replace(&mut self.script[usize::from(id)], Action::Nothing);
                match action {
                    Action::Nothing => {}
                    Action::Add(target) => {
                        let answer = self.add(target);
                        self.answers.push(answer);
                    }
                    Action::Remove(target) => {
                        let answer = self.remove(target);
                        self.answers.push(answer);
                    }
                    Action::Clear => self.clear(),
                    Action::NotifyAgain => self.notify(),
                }
            }
        }
        self.depth -= 1;
        self.reclaim_holes();
    }

    fn attached(&self) -> usize {
        self.slots.iter().flatten().count()
    }
}

/// xorshift64*: deterministic pseudo-random numbers.
struct Random(u64);
impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn id(&mut self) -> u8 {
        self.below(u64::from(LISTENERS)) as u8
    }
}

fn random_action(random: &mut Random) -> Action {
    match random.below(12) {
        0..=2 => Action::Remove(random.id()),
        3..=4 => Action::Add(random.id()),
        5 if random.below(4) == 0 => Action::Clear,
        6 => Action::NotifyAgain,
        _ => Action::Nothing,
    }
}

fn compare(point: &ProbePoint<'static, u64, CAPACITY>, model: &mut Model, at: &str) {
    let calls = CALLS.with(|calls| std::mem::take(&mut *calls.borrow_mut()));
    let answers = ANSWERS.with(|answers| std::mem::take(&mut *answers.borrow_mut()));
    assert_eq!(calls, std::mem::take(&mut model.calls), "{at}: calls");
    assert_eq!(answers, std::mem::take(&mut model.answers), "{at}: answers");
    assert_eq!(point.listener_count(), model.attached(), "{at}: count");
    assert_eq!(point.has_listeners(), model.attached() != 0, "{at}");
    for id in 0..LISTENERS {
        assert_eq!(
            point.is_attached(listener(id)),
            model.slots.contains(&Some(id)),
            "{at}: is_attached({id})"
        );
    }
}

#[test]
fn random_sequences_follow_the_documented_semantics() {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    POINT.with(|point| {
        for sequence in 0..1500 {
            point.clear();
            let mut model = Model::new();
            for step in 0..40 {
                let at = format!("sequence {sequence} step {step}");
                match random.below(10) {
                    0..=3 => {
                        let id = random.id();
                        assert_eq!(point.add_listener(listener(id)), model.add(id), "{at}");
                    }
                    4..=5 => {
                        let id = random.id();
                        assert_eq!(
                            point.remove_listener(listener(id)),
                            model.remove(id),
                            "{at}"
                        );
                    }
                    6 if random.below(8) == 0 => {
                        point.clear();
                        model.clear();
                    }
                    _ => {
                        let mut script = [Action::Nothing; LISTENERS as usize];
                        for action in &mut script {
                            if random.below(3) == 0 {
                                *action = random_action(&mut random);
                            }
                        }
                        SCRIPT.with(|s| *s.borrow_mut() = script);
                        model.script = script;
                        point.notify(&0);
                        model.notify();
                        // Actions of listeners that were not called are dropped on both sides.
                        SCRIPT.with(|s| *s.borrow_mut() = [Action::Nothing; LISTENERS as usize]);
                    }
                }
                compare(point, &mut model, &at);
            }
        }
    });
}

#[test]
fn a_long_mixed_list_is_notified_in_attachment_order() {
    let point: ProbePoint<u64, 16> = ProbePoint::new();
    let order = Cell::new(0u64);
    struct Step<'o>(u64, &'o Cell<u64>);
    impl Listener<u64> for Step<'_> {
        fn notify(&self, arg: &u64) {
            // Each step appends its digit: the final number spells the call order.
            self.1.set(self.1.get() * 16 + self.0 + arg);
        }
    }
    let steps: Vec<Step> = (1..=13).map(|digit| Step(digit, &order)).collect();
    for step in &steps {
        point.add_object(step).unwrap();
    }
    point.notify(&0);
    assert_eq!(order.get(), 0x1_2345_6789_ABCD);
}
