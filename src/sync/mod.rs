//! Sharing data with interrupt handlers and with other cores.
//!
//! | type | excludes | for |
//! |---|---|---|
//! | [`IrqMutex`] | the interrupt handlers of **this core** (IRQs masked) | a core's own probe points, its PMU overflow handler |
//! | [`IrqSpinMutex`] | the interrupt handlers of the holding core **and every other core** (IRQs masked + a ticket lock) | data that several cores reach: a console, a shared queue, a table of results |
//!
//! Both hand out the value only inside a closure, never as a guard: a guard dropped out of order
//! would restore an interrupt mask while another critical section still holds its references
//! (see [`crate::arch::interrupts`]).
//!
//! On a hosted target (unit tests) interrupts do not exist: masking is a no-op, `IrqMutex`
//! stays `!Sync`, and `IrqSpinMutex` is an ordinary ticket lock between threads.

mod irq_mutex;
mod spin_mutex;

pub use crate::arch::interrupts::{CriticalSection, free};
pub use irq_mutex::IrqMutex;
pub use spin_mutex::IrqSpinMutex;
#[allow(unused_imports)] // only the runtime's defmt logger uses them
pub(crate) use spin_mutex::{RawSpinLock, wake_waiters};
