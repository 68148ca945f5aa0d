//! [`IrqMutex`]: sharing a value (a probe point) between the main program and the interrupt
//! handlers **of the same core**.

use crate::arch::interrupts::{CriticalSection, free};

/// A value shared between the main program and interrupt handlers, reachable only inside a
/// critical section.
///
/// # Mechanism
/// A [`ProbePoint`](crate::probe::ProbePoint) keeps its listener list in `Cell`s and is therefore not
/// `Sync`. [`IrqMutex`] wraps it and hands out `&T` only inside a [`free`] critical section
/// (the crate's one interrupt-masking primitive, [`crate::arch::interrupts`]), during which IRQs
/// and FIQs are masked. An interrupt handler cannot start while the main program holds the
/// reference, and the main program does not run while a handler holds it, so the `Cell`s are
/// never accessed from two contexts at once. Critical sections nest: the previous `DAIF` value
/// is saved and restored, so one taken inside a handler (where the core already masked IRQs)
/// leaves them masked. Nothing safe can unmask interrupts inside a critical section: the
/// operations that unmask are `unsafe` with exactly that contract.
///
/// `IrqMutex<T>` is `Sync` only when `T: Send` and only on bare-metal AArch64
/// (`target_os = "none"`); on a hosted target it stays `!Sync` and the ordinary single-thread
/// borrow rules make it sound. A point becomes `Send` only if its listener objects are `Sync`,
/// so an interrupt-shared point is declared as
/// `ProbePoint<'static, Arg, N, dyn Listener<Arg> + Sync>`: listener objects that the main
/// program also reads outside a critical section must use atomics, not `Cell`.
///
/// # Core-local
/// Masking interrupts excludes the handlers of the core that masks them, not other cores. An
/// `IrqMutex` is therefore for data that one core shares with its own interrupt handlers: a
/// core's probe points, its PMU overflow handler. It must not be reached from two cores at
/// once. The type cannot check this (a check would cost an atomic access on every lock, against
/// the three instructions below), and a `static IrqMutex` is reachable from every core, so
/// keeping each one to one core is the program's part: one per core, indexed by the core's
/// number, or one that only a given core's code names. Data shared between cores needs a lock
/// that also excludes the other cores: [`IrqSpinMutex`](super::IrqSpinMutex).
///
/// # Cost
/// [`ProbePoint::notify`](crate::probe::ProbePoint::notify) itself stays one load and one branch when
/// empty; the critical section adds three instructions around it (`mrs`, `msr daifset`, `msr`).
#[derive(Default)]
pub struct IrqMutex<T> {
    inner: T,
}

// SAFETY: for the contexts of one core (its main program and its interrupt handlers), `&T` is
// handed out only for the lifetime of a `CriticalSection`, i.e. while IRQs and FIQs are masked,
// so no two of them hold it at the same time; the value effectively moves between contexts,
// which `T: Send` permits. This is the documented contract of the type: an `IrqMutex` is
// core-local, and data that several cores reach goes into an `IrqSpinMutex` instead. The impl is
// absent on hosted targets, where real threads exist.
#[cfg(all(target_arch = "aarch64", target_os = "none"))]
unsafe impl<T: Send> Sync for IrqMutex<T> {}

impl<T> IrqMutex<T> {
    /// Wraps `inner`.
    pub const fn new(inner: T) -> Self {
        Self { inner }
    }

    /// The value, for as long as the critical section lasts.
    pub fn borrow<'cs>(&'cs self, _proof: CriticalSection<'cs>) -> &'cs T {
        &self.inner
    }

    /// Runs `f` on the value inside a critical section.
    #[inline(always)]
    pub fn lock<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        free(|cs| f(self.borrow(cs)))
    }

    /// Exclusive access needs no critical section.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// Unwraps the value.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

/// Formats the value inside a critical section: an interrupt handler may be changing it.
impl<T: core::fmt::Debug> core::fmt::Debug for IrqMutex<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        free(|cs| f.debug_tuple("IrqMutex").field(self.borrow(cs)).finish())
    }
}
