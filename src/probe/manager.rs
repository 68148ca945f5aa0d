//! The registry of named probe points of one producing component.
#![forbid(unsafe_code)]

use core::any::{Any, TypeId};
use core::fmt;

use super::{Listener, ListenerRef, ProbeError, ProbePoint};

/// Why a [`Manager`] operation failed. Names are those passed in by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ManagerError<'n> {
    /// No point is registered under this name. This is also the answer to a connection made
    /// before its point registers: connections are never kept pending or dropped silently.
    UnknownPoint(&'n str),
    /// A point is already registered under this name.
    DuplicatePoint(&'n str),
    /// The point with this name carries another argument type than the listener or handle.
    WrongArgumentType(&'n str),
    /// The point with this name has the right argument type but another listener object type
    /// (e.g. it requires `dyn Listener<Arg> + Sync`) or, for a typed handle, another capacity.
    WrongPointType(&'n str),
    /// The manager already holds its maximum number of points.
    TooManyPoints {
        /// The manager's fixed point capacity.
        capacity: usize,
    },
    /// The point refused the listener.
    Point {
        /// The point's name.
        name: &'n str,
        /// What the point said.
        error: ProbeError,
    },
}

impl fmt::Display for ManagerError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownPoint(name) => write!(f, "no probe point named \"{name}\""),
            Self::DuplicatePoint(name) => {
                write!(f, "a probe point named \"{name}\" is already registered")
            }
            Self::WrongArgumentType(name) => {
                write!(f, "probe point \"{name}\" has another argument type")
            }
            Self::WrongPointType(name) => write!(
                f,
                "probe point \"{name}\" has another listener type or capacity"
            ),
            Self::TooManyPoints { capacity } => {
                write!(f, "probe manager is full ({capacity} points)")
            }
            Self::Point { name, error } => write!(f, "probe point \"{name}\": {error}"),
        }
    }
}

impl core::error::Error for ManagerError<'_> {}

/// A type-erased probe point as the [`Manager`] stores it.
///
/// Implemented for every `ProbePoint<'static, Arg, N, L>`; the `'static` is what lets
/// [`core::any::Any`] check types, so points in a manager take `'static` listener objects
/// (statics, or objects the program never frees).
pub trait AnyPoint {
    /// `TypeId` of the argument type.
    fn arg_type(&self) -> TypeId;
    /// The concrete point, for checked downcasting.
    fn as_any(&self) -> &dyn Any;
    /// Attaches `listener` if it is a `ListenerRef<'static, Arg, L>` of this point's types.
    /// `Ok(None)` means the listener has another type.
    fn connect_any(&self, listener: &dyn Any) -> Result<Option<()>, ProbeError>;
    /// Detaches `listener`; `Ok(None)` means the listener has another type.
    fn disconnect_any(&self, listener: &dyn Any) -> Result<Option<()>, ProbeError>;
}

impl<Arg: 'static, const N: usize, L: ?Sized + Listener<Arg> + 'static> AnyPoint
    for ProbePoint<'static, Arg, N, L>
{
    fn arg_type(&self) -> TypeId {
        TypeId::of::<Arg>()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn connect_any(&self, listener: &dyn Any) -> Result<Option<()>, ProbeError> {
        match listener.downcast_ref::<ListenerRef<'static, Arg, L>>() {
            Some(listener) => self.add_listener(*listener).map(Some),
            None => Ok(None),
        }
    }

    fn disconnect_any(&self, listener: &dyn Any) -> Result<Option<()>, ProbeError> {
        match listener.downcast_ref::<ListenerRef<'static, Arg, L>>() {
            Some(listener) => self.remove_listener(*listener).map(Some),
            None => Ok(None),
        }
    }
}

#[derive(Clone, Copy)]
struct Entry<'p> {
    name: &'static str,
    point: &'p dyn AnyPoint,
}

/// Registers up to `POINTS` probe points under names and connects listeners by name.
///
/// Names are looked up (a linear scan) only by [`point`](Self::point),
/// [`connect`](Self::connect) and [`disconnect`](Self::disconnect); a producer keeps its
/// `&ProbePoint` and notifies it directly.
///
/// A connection to a name that is not registered yet fails with
/// [`ManagerError::UnknownPoint`]: the caller learns about it and can retry after the producer
/// registered its points (gem5 drops such a listener silently).
pub struct Manager<'p, const POINTS: usize> {
    entries: [Option<Entry<'p>>; POINTS],
}

impl<const POINTS: usize> Default for Manager<'_, POINTS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'p, const POINTS: usize> Manager<'p, POINTS> {
    /// An empty manager.
    pub const fn new() -> Self {
        Self {
            entries: [None; POINTS],
        }
    }

    /// Number of registered points.
    pub fn len(&self) -> usize {
        self.entries.iter().flatten().count()
    }

    /// Whether no point is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Names of the registered points, in registration order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries.iter().flatten().map(|entry| entry.name)
    }

    /// Registers `point` under `name`.
    pub fn register<Arg: 'static, const N: usize, L: ?Sized + Listener<Arg> + 'static>(
        &mut self,
        name: &'static str,
        point: &'p ProbePoint<'static, Arg, N, L>,
    ) -> Result<(), ManagerError<'static>> {
        if self.find(name).is_some() {
            return Err(ManagerError::DuplicatePoint(name));
        }
        let free = self
            .entries
            .iter_mut()
            .find(|entry| entry.is_none())
            .ok_or(ManagerError::TooManyPoints { capacity: POINTS })?;
        *free = Some(Entry { name, point });
        Ok(())
    }

    /// Removes the point registered under `name` (its listeners stay attached to it).
    pub fn unregister<'n>(&mut self, name: &'n str) -> Result<(), ManagerError<'n>> {
        let entry = self
            .entries
            .iter_mut()
            .find(|entry| entry.is_some_and(|entry| entry.name == name))
            .ok_or(ManagerError::UnknownPoint(name))?;
        *entry = None;
        Ok(())
    }

    /// The typed point registered under `name`. Let inference pick the type:
    /// `let p: &ProbePoint<'static, u64, 4> = manager.point("RetiredInsts")?;`
    pub fn point<'n, Arg: 'static, const N: usize, L: ?Sized + Listener<Arg> + 'static>(
        &self,
        name: &'n str,
    ) -> Result<&'p ProbePoint<'static, Arg, N, L>, ManagerError<'n>> {
        let point = self.typed_entry::<Arg>(name)?;
        point
            .as_any()
            .downcast_ref::<ProbePoint<'static, Arg, N, L>>()
            .ok_or(ManagerError::WrongPointType(name))
    }

    /// Attaches `listener` to the point registered under `name`.
    ///
    /// The listener's object type `L` must be the point's: write
    /// `ListenerRef::<Arg>::Object(&x)` for the default `dyn Listener<Arg>` (or use
    /// [`connect_object`](Self::connect_object)); `ListenerRef::Object(&x)` alone infers the
    /// concrete type of `x` and fails with [`ManagerError::WrongPointType`].
    pub fn connect<'n, Arg: 'static, L: ?Sized + Listener<Arg> + 'static>(
        &self,
        name: &'n str,
        listener: ListenerRef<'static, Arg, L>,
    ) -> Result<(), ManagerError<'n>> {
        let point = self.typed_entry::<Arg>(name)?;
        match point.connect_any(&listener) {
            Ok(Some(())) => Ok(()),
            Ok(None) => Err(ManagerError::WrongPointType(name)),
            Err(error) => Err(ManagerError::Point { name, error }),
        }
    }

    /// Attaches a plain function to the point registered under `name`.
    pub fn connect_fn<'n, Arg: 'static>(
        &self,
        name: &'n str,
        function: fn(&Arg),
    ) -> Result<(), ManagerError<'n>> {
        self.connect::<Arg, dyn Listener<Arg>>(name, ListenerRef::Function(function))
    }

    /// Attaches a listener object to the point registered under `name` (a point with the
    /// default listener type `dyn Listener<Arg>`).
    pub fn connect_object<'n, Arg: 'static>(
        &self,
        name: &'n str,
        object: &'static dyn Listener<Arg>,
    ) -> Result<(), ManagerError<'n>> {
        self.connect(name, ListenerRef::Object(object))
    }

    /// Detaches a plain function from the point registered under `name`.
    pub fn disconnect_fn<'n, Arg: 'static>(
        &self,
        name: &'n str,
        function: fn(&Arg),
    ) -> Result<(), ManagerError<'n>> {
        self.disconnect::<Arg, dyn Listener<Arg>>(name, ListenerRef::Function(function))
    }

    /// Detaches a listener object from the point registered under `name`.
    pub fn disconnect_object<'n, Arg: 'static>(
        &self,
        name: &'n str,
        object: &'static dyn Listener<Arg>,
    ) -> Result<(), ManagerError<'n>> {
        self.disconnect(name, ListenerRef::Object(object))
    }

    /// Detaches `listener` from the point registered under `name`.
    pub fn disconnect<'n, Arg: 'static, L: ?Sized + Listener<Arg> + 'static>(
        &self,
        name: &'n str,
        listener: ListenerRef<'static, Arg, L>,
    ) -> Result<(), ManagerError<'n>> {
        let point = self.typed_entry::<Arg>(name)?;
        match point.disconnect_any(&listener) {
            Ok(Some(())) => Ok(()),
            Ok(None) => Err(ManagerError::WrongPointType(name)),
            Err(error) => Err(ManagerError::Point { name, error }),
        }
    }

    fn find(&self, name: &str) -> Option<&'p dyn AnyPoint> {
        self.entries
            .iter()
            .flatten()
            .find(|entry| entry.name == name)
            .map(|entry| entry.point)
    }

    fn typed_entry<'n, Arg: 'static>(
        &self,
        name: &'n str,
    ) -> Result<&'p dyn AnyPoint, ManagerError<'n>> {
        let point = self.find(name).ok_or(ManagerError::UnknownPoint(name))?;
        if point.arg_type() != TypeId::of::<Arg>() {
            return Err(ManagerError::WrongArgumentType(name));
        }
        Ok(point)
    }
}
