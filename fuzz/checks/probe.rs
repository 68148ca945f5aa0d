//! Checks of the `probe` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): arbitrary sequences of operations on probe points, a probe
//! `Manager` and a `PcEventQueue`, within their capacities and beyond, against a simple model
//! (plain `Vec`s).
//!
//! Input: operations of two bytes (operation, argument).
//! - Points `P0`, `P1` (`u64`, 3 listeners) and `P2` (`u32`, for type mismatches); listeners:
//!   three functions, two objects and one object that removes itself when notified (removal
//!   from inside a callback). Add/remove directly or connect/disconnect through a manager of
//!   capacity 2 (register/unregister by name); notify; notify_all with a batch of 0 to 3;
//!   clear; typed look-up.
//!   Expected: the model's answer, typed errors past capacity (`CapacityExceeded`,
//!   `TooManyPoints`), `DuplicateListener`, `NotAttached`, `DuplicatePoint`, `UnknownPoint`,
//!   `WrongArgumentType`, `WrongPointType`; a notification calls exactly the attached
//!   listeners, in attachment order, once each (a batch: each listener the whole batch before
//!   the next).
//! - A PC event queue of capacity 4 with eight events (user events that keep or remove
//!   themselves, break events with and without self-removal) at a few PCs: schedule, remove,
//!   service, equal_range, dump. Expected: the model's entries in (pc, scheduling) order after
//!   every operation, the events run by `service` in that order, `CapacityExceeded` /
//!   `NotScheduled` as the model says.
//!
//! After every operation: listener counts, `has_listeners`, `is_attached` of every listener,
//! the manager's size and names, and the queue's entries equal the model.
use std::cell::RefCell;

use pmprobe::probe::{
    BreakPcEvent, Listener, ListenerRef, Manager, ManagerError, PcEvent, PcEventAction,
    PcEventError, PcEventQueue, ProbeError, ProbePoint,
};

const LISTENER_CAPACITY: usize = 3;
const MANAGER_CAPACITY: usize = 2;
const QUEUE_CAPACITY: usize = 4;
const NAMES: [&str; 3] = ["P0", "P1", "P2"];
const LISTENERS: u8 = 6;
const SELF_REMOVER: u8 = 5;

type Point = ProbePoint<'static, u64, LISTENER_CAPACITY>;

struct Points {
    u64_points: [Point; 2],
    u32_point: ProbePoint<'static, u32, 2>,
}

thread_local! {
    /// The points live for the whole process: listeners and the manager need `'static`.
    static POINTS: &'static Points = Box::leak(Box::new(Points {
        u64_points: [ProbePoint::new(), ProbePoint::new()],
        u32_point: ProbePoint::new(),
    }));
    /// Listener ids in call order.
    static CALLS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn points() -> &'static Points {
    POINTS.with(|p| *p)
}

fn called(id: u8) {
    CALLS.with(|calls| calls.borrow_mut().push(id));
}

fn f0(_: &u64) {
    called(0);
}
fn f1(_: &u64) {
    called(1);
}
fn f2(_: &u64) {
    called(2);
}
fn g0(_: &u32) {}

struct Logger(u8);
impl Listener<u64> for Logger {
    fn notify(&self, _: &u64) {
        called(self.0);
    }
}
static OBJECT3: Logger = Logger(3);
static OBJECT4: Logger = Logger(4);

/// Removes itself from the point that notifies it (the argument is the point's index).
struct SelfRemover;
impl Listener<u64> for SelfRemover {
    fn notify(&self, point: &u64) {
        called(SELF_REMOVER);
        let point = &points().u64_points[*point as usize];
        // In a batch (`notify_all`) it hears the rest of the batch after removing itself.
        if point.is_attached(ListenerRef::Object(&REMOVER)) {
            assert_eq!(point.remove_object(&REMOVER), Ok(()), "self-removal");
        }
    }
}
static REMOVER: SelfRemover = SelfRemover;

fn listener(id: u8) -> ListenerRef<'static, u64> {
    match id {
        0 => ListenerRef::Function(f0),
        1 => ListenerRef::Function(f1),
        2 => ListenerRef::Function(f2),
        3 => ListenerRef::Object(&OBJECT3),
        4 => ListenerRef::Object(&OBJECT4),
        _ => ListenerRef::Object(&REMOVER),
    }
}

/// What adding `id` to a point holding `model` must answer.
fn expected_add(model: &[u8], id: u8) -> Result<(), ProbeError> {
    if model.contains(&id) {
        Err(ProbeError::DuplicateListener)
    } else if model.len() == LISTENER_CAPACITY {
        Err(ProbeError::CapacityExceeded {
            capacity: LISTENER_CAPACITY,
        })
    } else {
        Ok(())
    }
}

fn apply_add(model: &mut Vec<u8>, id: u8) -> Result<(), ProbeError> {
    let expected = expected_add(model, id);
    if expected.is_ok() {
        model.push(id);
    }
    expected
}

fn apply_remove(model: &mut Vec<u8>, id: u8) -> Result<(), ProbeError> {
    match model.iter().position(|&m| m == id) {
        Some(index) => {
            model.remove(index);
            Ok(())
        }
        None => Err(ProbeError::NotAttached),
    }
}

struct Event {
    id: u8,
    pc: u64,
    action: PcEventAction,
    description: String,
}

impl PcEvent<Vec<u8>> for Event {
    fn pc(&self) -> u64 {
        self.pc
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn process(&self, ctx: &mut Vec<u8>) -> PcEventAction {
        ctx.push(self.id);
        self.action
    }
}

fn break_hook_6(ctx: &mut Vec<u8>, _: &BreakPcEvent<'_, Vec<u8>>) {
    ctx.push(6);
}
fn break_hook_7(ctx: &mut Vec<u8>, _: &BreakPcEvent<'_, Vec<u8>>) {
    ctx.push(7);
}

const PCS: [u64; 5] = [0x10, 0x20, 0x30, 0x40, 0x50];

/// Event id -> (pc, removes itself after running).
fn event_spec(id: u8) -> (u64, bool) {
    match id {
        0 => (0x10, false),
        1 => (0x10, true),
        2 => (0x20, false),
        3 => (0x30, false),
        4 => (0x20, true),
        5 => (0x40, false),
        6 => (0x30, true),
        _ => (0x10, false),
    }
}

fn event_id(description: &str) -> u8 {
    description
        .strip_prefix('e')
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("unknown event description {description:?}"))
}

/// The whole model.
#[derive(Default)]
struct Model {
    listeners: [Vec<u8>; 2],
    /// Registered names (by index into NAMES), in slot order of the manager.
    registered: Vec<usize>,
    /// (pc, event id) in queue order.
    queue: Vec<(u64, u8)>,
}

fn check_points(model: &Model) {
    for (index, point) in points().u64_points.iter().enumerate() {
        let expected = &model.listeners[index];
        assert_eq!(point.listener_count(), expected.len(), "P{index} count");
        assert_eq!(point.has_listeners(), !expected.is_empty(), "P{index}");
        for id in 0..LISTENERS {
            assert_eq!(
                point.is_attached(listener(id)),
                expected.contains(&id),
                "P{index} is_attached({id})"
            );
        }
    }
}

fn check_manager(manager: &Manager<'static, MANAGER_CAPACITY>, model: &Model) {
    assert_eq!(manager.len(), model.registered.len(), "manager size");
    let mut names: Vec<&str> = manager.names().collect();
    let mut expected: Vec<&str> = model.registered.iter().map(|&i| NAMES[i]).collect();
    // Compared as sets: `names()` is documented "in registration order", but `register`
    // reuses the first free slot after an `unregister`, so the order is slot order.
    names.sort_unstable();
    expected.sort_unstable();
    assert_eq!(names, expected, "manager names");
}

fn check_queue<const N: usize>(queue: &PcEventQueue<'_, Vec<u8>, N>, model: &Model) {
    let actual: Vec<(u64, u8)> = queue
        .entries()
        .iter()
        .map(|entry| (entry.pc(), event_id(entry.event().description())))
        .collect();
    assert_eq!(actual, model.queue, "queue entries");
    assert_eq!(queue.len(), model.queue.len());
    assert_eq!(queue.is_empty(), model.queue.is_empty());
}

fn register(
    manager: &mut Manager<'static, MANAGER_CAPACITY>,
    name: usize,
) -> Result<(), ManagerError<'static>> {
    let p = points();
    match name {
        0 => manager.register(NAMES[0], &p.u64_points[0]),
        1 => manager.register(NAMES[1], &p.u64_points[1]),
        _ => manager.register(NAMES[2], &p.u32_point),
    }
}

/// What the manager must answer for a connection to `name` with the model's point state
/// `point_result` (the answer of the point itself).
fn expected_by_name(
    model: &Model,
    name: usize,
    point_result: impl FnOnce() -> Result<(), ProbeError>,
) -> Result<(), ManagerError<'static>> {
    if !model.registered.contains(&name) {
        return Err(ManagerError::UnknownPoint(NAMES[name]));
    }
    if name == 2 {
        return Err(ManagerError::WrongArgumentType(NAMES[name]));
    }
    point_result().map_err(|error| ManagerError::Point {
        name: NAMES[name],
        error,
    })
}

fn connect(
    manager: &Manager<'static, MANAGER_CAPACITY>,
    name: &'static str,
    id: u8,
    attach: bool,
) -> Result<(), ManagerError<'static>> {
    match (listener(id), attach) {
        (ListenerRef::Function(f), true) => manager.connect_fn(name, f),
        (ListenerRef::Function(f), false) => manager.disconnect_fn(name, f),
        (ListenerRef::Object(o), true) => manager.connect_object(name, o),
        (ListenerRef::Object(o), false) => manager.disconnect_object(name, o),
    }
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let p = points();
    for point in &p.u64_points {
        point.clear();
    }
    p.u32_point.clear();
    CALLS.with(|calls| calls.borrow_mut().clear());
    let events: Vec<Event> = (0..7)
        .map(|id| {
            let (pc, removes) = event_spec(id);
            Event {
                id,
                pc,
                action: if removes {
                    PcEventAction::Remove
                } else {
                    PcEventAction::Keep
                },
                description: format!("e{id}"),
            }
        })
        .collect();
    let break_once = BreakPcEvent::new(event_spec(6).0, "e6", break_hook_6, true);
    let break_always = BreakPcEvent::new(event_spec(7).0, "e7", break_hook_7, false);
    let event = |id: u8| -> &dyn PcEvent<Vec<u8>> {
        match id {
            6 => &break_once,
            7 => &break_always,
            _ => &events[usize::from(id)],
        }
    };
    let mut queue: PcEventQueue<'_, Vec<u8>, QUEUE_CAPACITY> = PcEventQueue::new();
    let mut manager: Manager<'static, MANAGER_CAPACITY> = Manager::new();
    let mut model = Model::default();

    for (step, op) in data.chunks_exact(2).enumerate() {
        let (code, arg) = (op[0] % 13, op[1]);
        let point_index = usize::from(arg & 1);
        let id = (arg >> 1) % LISTENERS;
        let name = usize::from(arg >> 4) % NAMES.len();
        let at = |what: &str| format!("step {step} op {code} arg {arg:#x}: {what}");
        match code {
            0 => {
                let actual = p.u64_points[point_index].add_listener(listener(id));
                let expected = apply_add(&mut model.listeners[point_index], id);
                assert_eq!(actual, expected, "{}", at("add"));
            }
            1 => {
                let actual = p.u64_points[point_index].remove_listener(listener(id));
                let expected = apply_remove(&mut model.listeners[point_index], id);
                assert_eq!(actual, expected, "{}", at("remove"));
            }
            2 => {
                CALLS.with(|calls| calls.borrow_mut().clear());
                p.u64_points[point_index].notify(&(point_index as u64));
                let calls = CALLS.with(|calls| calls.borrow().clone());
                assert_eq!(calls, model.listeners[point_index], "{}", at("notify"));
                model.listeners[point_index].retain(|&l| l != SELF_REMOVER);
            }
            12 => {
                // A batch of 0 to 3 notifications: each listener attached when it starts hears
                // all of it, in attachment order (the self-remover too, after removing itself).
                let batch = [point_index as u64; 3];
                let batch = &batch[..usize::from((arg >> 1) % 4)];
                CALLS.with(|calls| calls.borrow_mut().clear());
                p.u64_points[point_index].notify_all(batch);
                let calls = CALLS.with(|calls| calls.borrow().clone());
                let expected: Vec<u8> = model.listeners[point_index]
                    .iter()
                    .flat_map(|&l| std::iter::repeat_n(l, batch.len()))
                    .collect();
                assert_eq!(calls, expected, "{}", at("notify_all"));
                if !batch.is_empty() {
                    model.listeners[point_index].retain(|&l| l != SELF_REMOVER);
                }
            }
            3 => {
                let actual = register(&mut manager, name);
                let expected = if model.registered.contains(&name) {
                    Err(ManagerError::DuplicatePoint(NAMES[name]))
                } else if model.registered.len() == MANAGER_CAPACITY {
                    Err(ManagerError::TooManyPoints {
                        capacity: MANAGER_CAPACITY,
                    })
                } else {
                    model.registered.push(name);
                    Ok(())
                };
                assert_eq!(actual, expected, "{}", at("register"));
            }
            4 => {
                let actual = manager.unregister(NAMES[name]);
                let expected = match model.registered.iter().position(|&n| n == name) {
                    Some(index) => {
                        model.registered.remove(index);
                        Ok(())
                    }
                    None => Err(ManagerError::UnknownPoint(NAMES[name])),
                };
                assert_eq!(actual, expected, "{}", at("unregister"));
            }
            5 | 6 => {
                let attach = code == 5;
                let actual = connect(&manager, NAMES[name], id, attach);
                let listeners = &mut model.listeners;
                let registered = model.registered.contains(&name);
                let expected = if !registered {
                    Err(ManagerError::UnknownPoint(NAMES[name]))
                } else if name == 2 {
                    Err(ManagerError::WrongArgumentType(NAMES[name]))
                } else {
                    let list = &mut listeners[name];
                    let result = if attach {
                        apply_add(list, id)
                    } else {
                        apply_remove(list, id)
                    };
                    result.map_err(|error| ManagerError::Point {
                        name: NAMES[name],
                        error,
                    })
                };
                assert_eq!(actual, expected, "{}", at("connect/disconnect by name"));
            }
            7 => {
                if arg & 0x80 != 0 {
                    p.u64_points[point_index].clear();
                    model.listeners[point_index].clear();
                } else {
                    // Typed look-up: the right point, or the typed error.
                    let found: Result<&Point, _> = manager.point(NAMES[name]);
                    let expected = expected_by_name(&model, name, || Ok(()));
                    assert_eq!(found.map(|_| ()), expected, "{}", at("point()"));
                    if let Ok(point) = found {
                        assert!(std::ptr::eq(point, &p.u64_points[name]));
                    }
                    let wrong_capacity: Result<&ProbePoint<'static, u64, 4>, _> =
                        manager.point(NAMES[name]);
                    if expected.is_ok() {
                        assert_eq!(
                            wrong_capacity.map(|_| ()),
                            Err(ManagerError::WrongPointType(NAMES[name]))
                        );
                    }
                    if name == 2 && model.registered.contains(&2) {
                        assert_eq!(manager.connect_fn(NAMES[2], g0), Ok(()));
                        assert_eq!(manager.disconnect_fn(NAMES[2], g0), Ok(()));
                    }
                }
            }
            8 => {
                let event_index = arg % 8;
                let actual = queue.schedule(event(event_index));
                let expected = if model.queue.len() == QUEUE_CAPACITY {
                    Err(PcEventError::CapacityExceeded {
                        capacity: QUEUE_CAPACITY,
                    })
                } else {
                    let pc = event_spec(event_index).0;
                    let at = model.queue.partition_point(|&(q, _)| q <= pc);
                    model.queue.insert(at, (pc, event_index));
                    Ok(())
                };
                assert_eq!(actual, expected, "{}", at("schedule"));
            }
            9 => {
                let event_index = arg % 8;
                let actual = queue.remove(event(event_index));
                let before = model.queue.len();
                model.queue.retain(|&(_, e)| e != event_index);
                let expected = if model.queue.len() == before {
                    Err(PcEventError::NotScheduled)
                } else {
                    Ok(())
                };
                assert_eq!(actual, expected, "{}", at("remove event"));
            }
            10 => {
                let pc = PCS[usize::from(arg) % PCS.len()];
                let mut ran = Vec::new();
                let any = queue.service(pc, &mut ran);
                let expected: Vec<u8> = model
                    .queue
                    .iter()
                    .filter(|&&(q, _)| q == pc)
                    .map(|&(_, e)| e)
                    .collect();
                assert_eq!(any, !expected.is_empty(), "{}", at("service result"));
                assert_eq!(ran, expected, "{}", at("service order"));
                model.queue.retain(|&(q, e)| q != pc || !event_spec(e).1);
            }
            _ => {
                let pc = PCS[usize::from(arg) % PCS.len()];
                let range: Vec<u8> = queue
                    .equal_range(pc)
                    .iter()
                    .map(|entry| event_id(entry.event().description()))
                    .collect();
                let expected: Vec<u8> = model
                    .queue
                    .iter()
                    .filter(|&&(q, _)| q == pc)
                    .map(|&(_, e)| e)
                    .collect();
                assert_eq!(range, expected, "{}", at("equal_range"));
                let mut dump = String::new();
                queue.dump(7, &mut dump).expect("dump to a String");
                let expected_dump: String = model
                    .queue
                    .iter()
                    .map(|&(q, e)| format!("7: event at {q:#x}: e{e}\n"))
                    .collect();
                assert_eq!(dump, expected_dump, "{}", at("dump"));
            }
        }
        check_points(&model);
        check_manager(&manager, &model);
        check_queue(&queue, &model);
    }
}
