//! Probe points whose listeners are fixed at compile time.
//!
//! A [`ProbePoint`](super::ProbePoint) keeps its listeners in a runtime list: it can attach and
//! detach them at any moment, and pays one indirect call per listener for it. When the set of
//! listeners is known when the program is built, its types can be part of the point's type
//! instead, in the manner of Linux static calls: [`StaticProbePoint`] calls each listener
//! directly, so the compiler inlines the listener bodies into the producer.
//!
//! A set of listeners is itself a [`Listener`]: tuples of listeners (up to twelve), arrays and
//! slices of one listener type, references to listeners and `Option`s of listeners all
//! implement it by notifying their members in order. `()` is the empty set and costs nothing.
//! Because a set is a `Listener`, it can also be attached to a runtime `ProbePoint` as one
//! listener: one indirect call for the whole set.
#![forbid(unsafe_code)]

use core::marker::PhantomData;

use super::Listener;

/// A probe point whose listeners are fixed when it is built.
///
/// A [`ProbePoint`](super::ProbePoint) keeps its listeners in a runtime list: it attaches and
/// detaches them at any moment and pays one indirect call per listener for it. When the set of
/// listeners is known when the program is built, their types can be part of the point's type
/// instead, in the manner of Linux static calls: a `StaticProbePoint` calls each listener
/// directly and the compiler inlines their bodies into the producer.
///
/// `S` is the listener set: a tuple, an array, an `Option` or a reference of listeners, or any
/// single [`Listener`]: all of these implement `Listener` by notifying their members in order,
/// and `()` is the empty set. Notification calls `S::notify`, which the compiler sees through:
/// no indirect call, no list walk, and for `()` no instruction at all. Because a set is a
/// `Listener`, it can also be attached to a runtime `ProbePoint` as one listener: one indirect
/// call for the whole set.
///
/// # Example
/// ```
/// use core::cell::Cell;
/// use pmprobe::probe::{Listener, StaticProbePoint};
///
/// struct Total(Cell<u64>);
/// impl Listener<u64> for Total {
///     fn notify(&self, n: &u64) {
///         self.0.set(self.0.get() + n);
///     }
/// }
/// struct Peak(Cell<u64>);
/// impl Listener<u64> for Peak {
///     fn notify(&self, n: &u64) {
///         self.0.set(self.0.get().max(*n));
///     }
/// }
///
/// let (total, peak) = (Total(Cell::new(0)), Peak(Cell::new(0)));
/// let retired: StaticProbePoint<u64, _> = StaticProbePoint::new((&total, &peak));
/// retired.notify(&3);
/// retired.notify(&4);
/// assert_eq!((total.0.get(), peak.0.get()), (7, 4));
/// ```
///
/// A listener of another argument type does not compile:
/// ```compile_fail
/// use pmprobe::probe::StaticProbePoint;
/// fn takes_u32(_: &u32) {}
/// let point: StaticProbePoint<u64, _> = StaticProbePoint::new(takes_u32 as fn(&u32));
/// ```
pub struct StaticProbePoint<Arg, S> {
    listeners: S,
    // `fn(&Arg)`: the point is typed by its argument without owning one (and stays `Send` and
    // `Sync` as far as `S` is).
    _argument: PhantomData<fn(&Arg)>,
}

impl<Arg, S: Listener<Arg>> StaticProbePoint<Arg, S> {
    /// A point that notifies `listeners`.
    pub const fn new(listeners: S) -> Self {
        Self {
            listeners,
            _argument: PhantomData,
        }
    }

    /// Calls every listener of the set with `arg`, in order.
    #[inline(always)]
    pub fn notify(&self, arg: &Arg) {
        self.listeners.notify(arg);
    }

    /// The listener set.
    pub const fn listeners(&self) -> &S {
        &self.listeners
    }

    /// Gives the listener set back.
    pub fn into_listeners(self) -> S {
        self.listeners
    }
}

impl<Arg, S: Listener<Arg>> Listener<Arg> for StaticProbePoint<Arg, S> {
    #[inline(always)]
    fn notify(&self, arg: &Arg) {
        self.listeners.notify(arg);
    }
}

impl<Arg, L: ?Sized + Listener<Arg>> Listener<Arg> for &L {
    #[inline(always)]
    fn notify(&self, arg: &Arg) {
        (**self).notify(arg);
    }
    #[inline(always)]
    fn notify_all(&self, args: &[Arg]) {
        (**self).notify_all(args);
    }
}

/// A plain function is a listener of its argument type.
impl<Arg> Listener<Arg> for fn(&Arg) {
    #[inline(always)]
    fn notify(&self, arg: &Arg) {
        self(arg);
    }
}

/// An optional listener: notified when present, one test when absent.
impl<Arg, L: Listener<Arg>> Listener<Arg> for Option<L> {
    #[inline(always)]
    fn notify(&self, arg: &Arg) {
        if let Some(listener) = self {
            listener.notify(arg);
        }
    }
}

impl<Arg, L: Listener<Arg>, const K: usize> Listener<Arg> for [L; K] {
    #[inline(always)]
    fn notify(&self, arg: &Arg) {
        for listener in self {
            listener.notify(arg);
        }
    }
}

impl<Arg, L: Listener<Arg>> Listener<Arg> for [L] {
    #[inline(always)]
    fn notify(&self, arg: &Arg) {
        for listener in self {
            listener.notify(arg);
        }
    }
}

/// `Listener` for tuples: each member in order.
macro_rules! tuple_listeners {
    ($( ($($member:ident $index:tt),*) )*) => {$(
        impl<Arg, $($member: Listener<Arg>),*> Listener<Arg> for ($($member,)*) {
            #[inline(always)]
            #[allow(unused_variables)] // `arg` is unused by the empty tuple.
            fn notify(&self, arg: &Arg) {
                $(self.$index.notify(arg);)*
            }
        }
    )*};
}

tuple_listeners! {
    ()
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11)
}
