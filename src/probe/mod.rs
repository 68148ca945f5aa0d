//! A gem5-style probe framework: typed probe points, heap-free listener lists, a named registry,
//! a PC event queue and built-in listeners.
//!
//! # Overview
//!
//! - [`ProbePoint`] is a notification source typed by its argument. A producer calls
//!   [`ProbePoint::notify`]; with nobody listening that is one load and one branch.
//!   [`ProbePoint::has_listeners`] lets a producer skip building an expensive argument.
//! - A listener is a [`ListenerRef`]: either a plain `fn(&Arg)` or a reference to a caller-owned
//!   object implementing [`Listener`]. The argument type is part of both, so a listener of the
//!   wrong type cannot attach (a compile error; through the [`Manager`] a typed error).
//! - [`StaticProbePoint`] is the compile-time counterpart: its listeners' types are part of its
//!   type (a tuple, an array, ...), so notification is direct calls the compiler inlines.
//! - [`Manager`] registers points under names and connects listeners by name. Names are resolved
//!   at connection time only; the notify path never sees a string.
//! - [`PcEventQueue`] keeps events keyed by program counter, sorted, with binary-search lookup.
//! - [`crate::sync`] makes a point shareable between the main program and an interrupt handler.
//! - [`listeners`] holds the built-in listeners: a PMU event feeder, a stack distance
//!   calculator and a memory trace recorder.
//!
//! # Example
//! A producer registers its points; a consumer connects by name; the producer notifies
//! through its own reference, never by name.
//! ```
//! use core::sync::atomic::{AtomicU64, Ordering};
//! use pmprobe::probe::{Listener, Manager, ProbePoint};
//!
//! struct Retired(AtomicU64);
//! impl Listener<u64> for Retired {
//!     fn notify(&self, n: &u64) {
//!         self.0.store(self.0.load(Ordering::Relaxed) + n, Ordering::Relaxed);
//!     }
//! }
//! static RETIRED: Retired = Retired(AtomicU64::new(0));
//!
//! let insts: ProbePoint<'static, u64, 4> = ProbePoint::new();
//! let mut manager: Manager<8> = Manager::new();
//! manager.register("RetiredInsts", &insts)?;
//! manager.connect_object("RetiredInsts", &RETIRED)?;
//! insts.notify(&3);
//! assert_eq!(RETIRED.0.load(Ordering::Relaxed), 3);
//! # Ok::<(), pmprobe::probe::ManagerError<'static>>(())
//! ```
//!
//! Every failure is a typed error ([`ProbeError`], [`ManagerError`], ...); nothing is dropped
//! silently. The one deliberate panic is [`PanicPcEvent`].

mod error;
mod listener;
pub mod listeners;
mod manager;
mod pc_event;
mod point;
mod static_point;

pub use error::ProbeError;
pub use listener::{Listener, ListenerMut, ListenerRef, MutListener};
pub use manager::{AnyPoint, Manager, ManagerError};
pub use pc_event::{
    BreakPcEvent, PanicPcEvent, PcEvent, PcEventAction, PcEventError, PcEventQueue,
    ScheduledPcEvent,
};
pub use point::ProbePoint;
pub use static_point::StaticProbePoint;
