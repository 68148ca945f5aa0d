//! Listener kinds that need no heap.
#![forbid(unsafe_code)]

use core::cell::{Cell, RefCell};

/// A caller-owned object that receives a probe point's notifications.
///
/// `notify` takes `&self`: one object may listen to several points at once and a point only
/// keeps a shared reference, so state that changes on notification lives behind interior
/// mutability (`Cell`, atomics) on the listener side. For listeners that want `&mut self`, wrap
/// them in a [`MutListener`].
///
/// To listen to points of different argument types, implement `Listener<A>` and `Listener<B>`.
pub trait Listener<Arg> {
    /// Called once per [`ProbePoint::notify`](super::ProbePoint::notify) while attached.
    fn notify(&self, arg: &Arg);

    /// Several notifications in one call, oldest first ([`ProbePoint::notify_all`](super::ProbePoint::notify_all)):
    /// the same as `notify` for each of `args` in turn, which is what the default does.
    /// Override it when a batch costs less than its notifications one by one (the memory
    /// trace recorder copies the records in one go).
    fn notify_all(&self, args: &[Arg]) {
        for arg in args {
            self.notify(arg);
        }
    }
}

/// How a [`ProbePoint`](super::ProbePoint) refers to a listener.
///
/// Both kinds are a pointer or two wide and `Copy`, so a point stores them in a fixed array.
/// `L` is the object type; the default `dyn Listener<Arg>` takes any listener object. Points
/// shared with an interrupt handler use `dyn Listener<Arg> + Sync` (see [`sync`](crate::sync)).
pub enum ListenerRef<'a, Arg, L: ?Sized + 'a = dyn Listener<Arg> + 'a> {
    /// A plain function. Identity (for duplicate detection and removal) is the function's
    /// address; two functions the linker merged into one count as the same listener.
    Function(fn(&Arg)),
    /// A caller-owned object. Identity is the object's address.
    Object(&'a L),
}

impl<'a, Arg, L: ?Sized + 'a> Clone for ListenerRef<'a, Arg, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<'a, Arg, L: ?Sized + 'a> Copy for ListenerRef<'a, Arg, L> {}

impl<'a, Arg, L: ?Sized + 'a> core::fmt::Debug for ListenerRef<'a, Arg, L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Function(function) => write!(f, "Function({:#x})", *function as usize),
            Self::Object(object) => write!(f, "Object({:p})", *object as *const L),
        }
    }
}

impl<'a, Arg, L: ?Sized + 'a> ListenerRef<'a, Arg, L> {
    /// Whether both refer to the same function or the same object.
    pub fn same_as(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Function(a), Self::Function(b)) => *a as usize == *b as usize,
            (Self::Object(a), Self::Object(b)) => core::ptr::addr_eq(*a, *b),
            _ => false,
        }
    }
}

impl<'a, Arg, L: ?Sized + Listener<Arg> + 'a> ListenerRef<'a, Arg, L> {
    /// Delivers one notification.
    #[inline]
    pub fn call(&self, arg: &Arg) {
        match self {
            Self::Function(function) => function(arg),
            Self::Object(object) => object.notify(arg),
        }
    }

    /// Delivers several notifications, oldest first (an object gets them in one
    /// [`Listener::notify_all`] call).
    #[inline]
    pub fn call_all(&self, args: &[Arg]) {
        match self {
            Self::Function(function) => args.iter().for_each(function),
            Self::Object(object) => object.notify_all(args),
        }
    }
}

/// A listener that wants `&mut self`; attach it through a [`MutListener`].
pub trait ListenerMut<Arg> {
    /// Called once per notification.
    fn notify_mut(&mut self, arg: &Arg);

    /// Several notifications in one call, oldest first: the same as `notify_mut` for each of
    /// `args` in turn (the default). See [`Listener::notify_all`].
    fn notify_mut_all(&mut self, args: &[Arg]) {
        for arg in args {
            self.notify_mut(arg);
        }
    }
}

/// Adapts a [`ListenerMut`] into a [`Listener`] with a `RefCell`.
///
/// The only way the inner borrow can fail is re-entrance: the listener's own callback causes a
/// notification that reaches this same object again. Such a nested notification is not
/// delivered; it is counted in [`MutListener::reentrant_drops`] so it never goes unnoticed.
pub struct MutListener<T> {
    inner: RefCell<T>,
    reentrant_drops: Cell<u64>,
}

impl<T> MutListener<T> {
    /// Wraps `inner`.
    pub const fn new(inner: T) -> Self {
        Self {
            inner: RefCell::new(inner),
            reentrant_drops: Cell::new(0),
        }
    }

    /// Runs `f` on the inner listener (e.g. to read its statistics). Returns `None` only when
    /// called from inside the inner listener's own callback.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        self.inner
            .try_borrow_mut()
            .ok()
            .map(|mut inner| f(&mut inner))
    }

    /// Nested notifications that could not be delivered (see the type's documentation).
    pub fn reentrant_drops(&self) -> u64 {
        self.reentrant_drops.get()
    }

    /// Unwraps the inner listener.
    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

impl<Arg, T: ListenerMut<Arg>> Listener<Arg> for MutListener<T> {
    fn notify(&self, arg: &Arg) {
        match self.inner.try_borrow_mut() {
            Ok(mut inner) => inner.notify_mut(arg),
            Err(_) => self
                .reentrant_drops
                .set(self.reentrant_drops.get().saturating_add(1)),
        }
    }

    /// One borrow for the whole batch; a re-entrant batch counts each of its notifications as
    /// dropped.
    fn notify_all(&self, args: &[Arg]) {
        match self.inner.try_borrow_mut() {
            Ok(mut inner) => inner.notify_mut_all(args),
            Err(_) => self.reentrant_drops.set(
                self.reentrant_drops
                    .get()
                    .saturating_add(u64::try_from(args.len()).unwrap_or(u64::MAX)),
            ),
        }
    }
}
