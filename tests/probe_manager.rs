//! Host tests of the named registry: registration, typed lookup, connection by name, and the
//! errors the issue asks for (unknown, duplicate, wrong argument type, early connection).

use std::cell::Cell;

use pmprobe::probe::{Listener, ListenerRef, Manager, ManagerError, ProbeError, ProbePoint};

#[derive(Default)]
struct Sum(Cell<u64>);

impl Listener<u64> for Sum {
    fn notify(&self, n: &u64) {
        self.0.set(self.0.get() + n);
    }
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn ignore_u64(_: &u64) {}
fn ignore_u32(_: &u32) {}

#[test]
fn a_listener_connected_by_name_receives_the_points_notifications() {
    let insts: ProbePoint<'static, u64, 4> = ProbePoint::new();
    let cycles: ProbePoint<'static, u64, 4> = ProbePoint::new();
    let mut manager: Manager<4> = Manager::new();
    manager.register("RetiredInsts", &insts).unwrap();
    manager.register("Cycles", &cycles).unwrap();
    assert_eq!(manager.len(), 2);
    assert_eq!(
        manager.names().collect::<Vec<_>>(),
        ["RetiredInsts", "Cycles"]
    );

    let sum = leak(Sum::default());
    manager.connect_object("RetiredInsts", sum).unwrap();
    insts.notify(&5);
    cycles.notify(&100);
    assert_eq!(sum.0.get(), 5);

    manager.disconnect_object("RetiredInsts", sum).unwrap();
    insts.notify(&5);
    assert_eq!(sum.0.get(), 5);
    assert!(!insts.has_listeners());
}

#[test]
fn typed_lookup_returns_the_registered_point() {
    let insts: ProbePoint<'static, u64, 4> = ProbePoint::new();
    let mut manager: Manager<2> = Manager::new();
    manager.register("RetiredInsts", &insts).unwrap();
    let found: &ProbePoint<'static, u64, 4> = manager.point("RetiredInsts").unwrap();
    assert!(std::ptr::eq(found, &insts));
}

#[test]
fn unknown_names_are_errors_naming_the_point() {
    let manager: Manager<2> = Manager::new();
    let name = String::from("Missing");
    assert_eq!(
        manager.connect(&name, ListenerRef::<u64>::Function(ignore_u64)),
        Err(ManagerError::UnknownPoint("Missing"))
    );
    let lookup: Result<&ProbePoint<'static, u64, 4>, _> = manager.point("Nope");
    assert_eq!(lookup.err(), Some(ManagerError::UnknownPoint("Nope")));
    let error = manager
        .disconnect("Gone", ListenerRef::<u64>::Function(ignore_u64))
        .unwrap_err();
    assert_eq!(error.to_string(), "no probe point named \"Gone\"");
}

#[test]
fn a_connection_before_registration_is_an_error_and_can_be_retried() {
    let insts: ProbePoint<'static, u64, 4> = ProbePoint::new();
    let mut manager: Manager<2> = Manager::new();
    let sum = leak(Sum::default());
    assert_eq!(
        manager.connect_object("RetiredInsts", sum),
        Err(ManagerError::UnknownPoint("RetiredInsts"))
    );
    manager.register("RetiredInsts", &insts).unwrap();
    // Nothing was kept pending behind the caller's back.
    assert!(!insts.has_listeners());
    manager
        .connect("RetiredInsts", ListenerRef::<u64>::Object(sum))
        .unwrap();
    insts.notify(&2);
    assert_eq!(sum.0.get(), 2);
}

#[test]
fn duplicate_point_names_are_rejected() {
    let first: ProbePoint<'static, u64, 1> = ProbePoint::new();
    let second: ProbePoint<'static, u32, 1> = ProbePoint::new();
    let mut manager: Manager<4> = Manager::new();
    manager.register("Commit", &first).unwrap();
    assert_eq!(
        manager.register("Commit", &second),
        Err(ManagerError::DuplicatePoint("Commit"))
    );
    assert_eq!(manager.len(), 1);
}

#[test]
fn the_manager_capacity_is_enforced() {
    let a: ProbePoint<'static, u64, 1> = ProbePoint::new();
    let b: ProbePoint<'static, u64, 1> = ProbePoint::new();
    let mut manager: Manager<1> = Manager::new();
    manager.register("A", &a).unwrap();
    assert_eq!(
        manager.register("B", &b),
        Err(ManagerError::TooManyPoints { capacity: 1 })
    );
    manager.unregister("A").unwrap();
    manager.register("B", &b).unwrap();
    assert_eq!(
        manager.unregister("A"),
        Err(ManagerError::UnknownPoint("A"))
    );
}

#[test]
fn a_listener_of_the_wrong_argument_type_cannot_connect() {
    let insts: ProbePoint<'static, u64, 4> = ProbePoint::new();
    let mut manager: Manager<2> = Manager::new();
    manager.register("RetiredInsts", &insts).unwrap();
    assert_eq!(
        manager.connect("RetiredInsts", ListenerRef::<u32>::Function(ignore_u32)),
        Err(ManagerError::WrongArgumentType("RetiredInsts"))
    );
    let lookup: Result<&ProbePoint<'static, u32, 4>, _> = manager.point("RetiredInsts");
    assert_eq!(
        lookup.err(),
        Some(ManagerError::WrongArgumentType("RetiredInsts"))
    );
    assert!(!insts.has_listeners());
}

#[test]
fn a_handle_of_the_wrong_capacity_or_listener_type_is_an_error() {
    let insts: ProbePoint<'static, u64, 4> = ProbePoint::new();
    let shared: ProbePoint<'static, u64, 4, dyn Listener<u64> + Sync> = ProbePoint::new();
    let mut manager: Manager<2> = Manager::new();
    manager.register("RetiredInsts", &insts).unwrap();
    manager.register("Shared", &shared).unwrap();
    let lookup: Result<&ProbePoint<'static, u64, 8>, _> = manager.point("RetiredInsts");
    assert_eq!(
        lookup.err(),
        Some(ManagerError::WrongPointType("RetiredInsts"))
    );
    // `Sum` is not Sync, so it can only be offered as a plain `dyn Listener<u64>`, which the
    // interrupt-shareable point does not take.
    let sum = leak(Sum::default());
    assert_eq!(
        manager.connect("Shared", ListenerRef::<u64>::Object(sum)),
        Err(ManagerError::WrongPointType("Shared"))
    );
    // A concrete listener type is not the point's listener type either.
    assert_eq!(
        manager.connect("RetiredInsts", ListenerRef::Object(sum)),
        Err(ManagerError::WrongPointType("RetiredInsts"))
    );
}

#[test]
fn point_errors_come_back_with_the_point_name() {
    let insts: ProbePoint<'static, u64, 1> = ProbePoint::new();
    let mut manager: Manager<2> = Manager::new();
    manager.register("RetiredInsts", &insts).unwrap();
    manager.connect_fn("RetiredInsts", ignore_u64).unwrap();
    assert_eq!(
        manager.connect_fn("RetiredInsts", ignore_u64),
        Err(ManagerError::Point {
            name: "RetiredInsts",
            error: ProbeError::DuplicateListener
        })
    );
    let sum = leak(Sum::default());
    assert_eq!(
        manager.connect_object("RetiredInsts", sum),
        Err(ManagerError::Point {
            name: "RetiredInsts",
            error: ProbeError::CapacityExceeded { capacity: 1 }
        })
    );
    assert_eq!(
        manager.disconnect_object("RetiredInsts", sum),
        Err(ManagerError::Point {
            name: "RetiredInsts",
            error: ProbeError::NotAttached
        })
    );
}
