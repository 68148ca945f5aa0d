//! The typed probe point.
#![forbid(unsafe_code)]

use core::cell::Cell;

use super::{Listener, ListenerRef, ProbeError};

/// A notification source typed by its argument, with room for `N` listeners.
///
/// All methods take `&self` (the state is in `Cell`s), so listeners may add or remove listeners
/// on the point that is notifying them.
///
/// # Cost when nobody listens
/// [`notify`](Self::notify) first checks a plain listener count, before touching the listener
/// array: one load and one branch, inlined at the call site.
///
/// # Cost per listener
/// With the default `L = dyn Listener<Arg>` any listener type attaches and each one costs an
/// indirect call. A point whose listeners are all of one type can say so, e.g.
/// `ProbePoint<u64, 16, MyCounter>`: the list is still changed at run time, but each call is
/// direct and the compiler inlines the listener's body into the loop. When the listeners
/// themselves are known when the program is built, a [`StaticProbePoint`](super::StaticProbePoint)
/// needs no list at all.
///
/// # Adding and removing listeners during a notification
/// A notification walks the listeners that were attached when it started, in attachment order.
/// - A listener **removed** while a notification runs (by itself or by another listener) is
///   not called any more, from that moment on, including in the notification that is running.
/// - A listener **added** while a notification runs is called from the next notification on.
/// - A removed listener leaves a hole that is reclaimed when the outermost notification
///   returns; until then the hole still occupies capacity, so adding during a notification to a
///   point whose array is in use up to the end fails with [`ProbeError::CapacityExceeded`].
///
/// Nested notification of the same point from a listener is allowed and follows the same rules.
///
/// # Example
/// ```
/// use core::cell::Cell;
/// use pmprobe::probe::{Listener, ProbePoint};
///
/// struct Total(Cell<u64>);
/// impl Listener<u64> for Total {
///     fn notify(&self, n: &u64) {
///         self.0.set(self.0.get() + n);
///     }
/// }
///
/// let total = Total(Cell::new(0));
/// let retired: ProbePoint<u64, 4> = ProbePoint::new();
/// retired.add_object(&total)?;
/// retired.notify(&3);
/// retired.notify(&4);
/// assert_eq!(total.0.get(), 7);
/// # Ok::<(), pmprobe::probe::ProbeError>(())
/// ```
///
/// A listener of another argument type does not attach, it does not compile:
/// ```compile_fail
/// use pmprobe::probe::ProbePoint;
/// fn takes_u32(_: &u32) {}
/// let point: ProbePoint<u64, 4> = ProbePoint::new();
/// point.add_fn(takes_u32).unwrap();
/// ```
///
/// # Interrupts
/// The point is not `Sync`. To notify it from an interrupt handler while the main program
/// attaches and detaches listeners, put it in a [`IrqMutex`](crate::sync::IrqMutex)
/// with `L = dyn Listener<Arg> + Sync`.
pub struct ProbePoint<
    'a,
    Arg,
    const N: usize,
    L: ?Sized + Listener<Arg> + 'a = dyn Listener<Arg> + 'a,
> {
    /// Listeners attached and not removed. Checked first by `notify`.
    active: Cell<usize>,
    /// Slots in use (attached listeners plus holes left by removals during a notification).
    end: Cell<usize>,
    /// How many notifications of this point are running (nested notifications count).
    depth: Cell<usize>,
    slots: [Cell<Option<ListenerRef<'a, Arg, L>>>; N],
}

impl<'a, Arg, const N: usize, L: ?Sized + Listener<Arg> + 'a> Default
    for ProbePoint<'a, Arg, N, L>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, Arg, const N: usize, L: ?Sized + Listener<Arg> + 'a> ProbePoint<'a, Arg, N, L> {
    /// A point with no listeners.
    pub const fn new() -> Self {
        Self {
            active: Cell::new(0),
            end: Cell::new(0),
            depth: Cell::new(0),
            slots: [const { Cell::new(None) }; N],
        }
    }

    /// Whether any listener is attached. A producer can skip building an expensive argument.
    #[inline(always)]
    pub fn has_listeners(&self) -> bool {
        self.active.get() != 0
    }

    /// Number of attached listeners.
    pub fn listener_count(&self) -> usize {
        self.active.get()
    }

    /// The fixed listener capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Calls every attached listener with `arg`, in attachment order.
    #[inline(always)]
    pub fn notify(&self, arg: &Arg) {
        if self.active.get() != 0 {
            self.notify_listeners(arg);
        }
    }

    /// Notifies every attached listener of each of `args`, oldest first, with one call per
    /// listener ([`Listener::notify_all`]): each listener hears the whole batch before the
    /// next one hears any of it. The rules for adding and removing listeners are
    /// [`notify`](Self::notify)'s, with the batch as one notification. An empty batch
    /// notifies nobody.
    #[inline(always)]
    pub fn notify_all(&self, args: &[Arg]) {
        if self.active.get() != 0 && !args.is_empty() {
            self.notify_listeners_all(args);
        }
    }

    fn notify_listeners_all(&self, args: &[Arg]) {
        let end = self.end.get();
        let depth = self.depth.get();
        self.depth.set(depth.wrapping_add(1));
        for slot in self.slots.iter().take(end) {
            if let Some(listener) = slot.get() {
                listener.call_all(args);
            }
        }
        self.depth.set(depth);
        if depth == 0 && self.end.get() != self.active.get() {
            self.compact();
        }
    }

    fn notify_listeners(&self, arg: &Arg) {
        // Listeners added from now on land at or after `end` and wait for the next notify.
        let end = self.end.get();
        let depth = self.depth.get();
        // Nesting is bounded by the stack long before `usize` wraps.
        self.depth.set(depth.wrapping_add(1));
        for slot in self.slots.iter().take(end) {
            // Re-read each slot: a listener called earlier may have removed this one.
            if let Some(listener) = slot.get() {
                listener.call(arg);
            }
        }
        self.depth.set(depth);
        if depth == 0 && self.end.get() != self.active.get() {
            self.compact();
        }
    }

    /// Whether `listener` is attached.
    pub fn is_attached(&self, listener: ListenerRef<'a, Arg, L>) -> bool {
        self.position(&listener).is_some()
    }

    /// Attaches `listener` (see the type's documentation for additions during a notification).
    pub fn add_listener(&self, listener: ListenerRef<'a, Arg, L>) -> Result<(), ProbeError> {
        if self.position(&listener).is_some() {
            return Err(ProbeError::DuplicateListener);
        }
        let end = self.end.get();
        let slot = self
            .slots
            .get(end)
            .ok_or(ProbeError::CapacityExceeded { capacity: N })?;
        slot.set(Some(listener));
        self.end.set(end + 1);
        self.active.set(self.active.get() + 1);
        Ok(())
    }

    /// Attaches a plain function.
    pub fn add_fn(&self, function: fn(&Arg)) -> Result<(), ProbeError> {
        self.add_listener(ListenerRef::Function(function))
    }

    /// Attaches a caller-owned listener object.
    pub fn add_object(&self, object: &'a L) -> Result<(), ProbeError> {
        self.add_listener(ListenerRef::Object(object))
    }

    /// Detaches `listener`. It is not called again, even by a notification that is running.
    pub fn remove_listener(&self, listener: ListenerRef<'a, Arg, L>) -> Result<(), ProbeError> {
        let index = self.position(&listener).ok_or(ProbeError::NotAttached)?;
        if let Some(slot) = self.slots.get(index) {
            slot.set(None);
        }
        self.active.set(self.active.get().saturating_sub(1));
        if self.depth.get() == 0 {
            self.compact();
        }
        Ok(())
    }

    /// Detaches a plain function.
    pub fn remove_fn(&self, function: fn(&Arg)) -> Result<(), ProbeError> {
        self.remove_listener(ListenerRef::Function(function))
    }

    /// Detaches a listener object.
    pub fn remove_object(&self, object: &'a L) -> Result<(), ProbeError> {
        self.remove_listener(ListenerRef::Object(object))
    }

    /// Detaches every listener.
    pub fn clear(&self) {
        for slot in &self.slots {
            slot.set(None);
        }
        self.active.set(0);
        if self.depth.get() == 0 {
            self.end.set(0);
        }
    }

    fn position(&self, listener: &ListenerRef<'a, Arg, L>) -> Option<usize> {
        self.slots.iter().take(self.end.get()).position(|slot| {
            slot.get()
                .is_some_and(|attached| attached.same_as(listener))
        })
    }

    /// Closes the holes left by removals, keeping attachment order. Out of line: it runs only
    /// after removals, and inlined into every notification it would only make it bigger.
    #[cold]
    #[inline(never)]
    fn compact(&self) {
        let mut kept = 0;
        for index in 0..self.end.get() {
            let (Some(from), Some(to)) = (self.slots.get(index), self.slots.get(kept)) else {
                break;
            };
            if let Some(listener) = from.take() {
                to.set(Some(listener));
                kept += 1;
            }
        }
        self.end.set(kept);
    }
}
