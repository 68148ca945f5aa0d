//! Sharing a probe point between the main program and an interrupt handler.
//!
//! # Mechanism
//! The crate runs on a single core. A [`ProbePoint`](super::ProbePoint) keeps its listener list
//! in `Cell`s and is therefore not `Sync`. [`IrqMutex`] wraps it and hands out `&T` only inside
//! a [`free`] critical section, during which IRQs and FIQs are masked (`PSTATE.{I,F}` via the
//! `DAIF` register). An interrupt handler cannot start while the main program holds the
//! reference, and the main program does not run while a handler holds it, so the `Cell`s are
//! never accessed from two contexts at once. Critical sections nest: the previous `DAIF` value
//! is saved and restored, so one taken inside a handler (where the core already masked IRQs)
//! leaves them masked.
//!
//! `IrqMutex<T>` is `Sync` only when `T: Send` and only on bare-metal AArch64
//! (`target_os = "none"`), where the single-core assumption holds; on a hosted target it stays
//! `!Sync` and the ordinary single-thread borrow rules make it sound. A point becomes `Send`
//! only if its listener objects are `Sync`, so an interrupt-shared point is declared as
//! `ProbePoint<'static, Arg, N, dyn Listener<Arg> + Sync>`: listener objects that the main
//! program also reads outside a critical section must use atomics, not `Cell`.
//!
//! # Cost
//! [`ProbePoint::notify`](super::ProbePoint::notify) itself stays one load and one branch when
//! empty; the critical section adds three instructions around it (`mrs`, `msr daifset`, `msr`).
//!
//! # Why the assembly lives here
//! `aarch64-cpu` offers `DAIF` accessors, but they are declared `nomem`, so the compiler may
//! move memory accesses across them, which would defeat a critical section. The two
//! instructions below are written without `nomem` so that they are compiler barriers too. They
//! are the only `unsafe` code in the probe module.
//!
//! **Single core only**: masking interrupts does not exclude other cores.

use core::marker::PhantomData;

/// Proof that interrupts are masked; only [`free`] creates one.
#[derive(Clone, Copy, Debug)]
pub struct CriticalSection<'cs> {
    _scope: PhantomData<&'cs ()>,
}

/// Runs `f` with IRQs and FIQs masked, restoring the previous mask afterwards.
///
/// On hosted targets this is a plain call (there is no interrupt to mask).
#[inline(always)]
pub fn free<R>(f: impl FnOnce(CriticalSection<'_>) -> R) -> R {
    let saved = arch::mask_interrupts();
    let result = f(CriticalSection {
        _scope: PhantomData,
    });
    arch::restore_interrupts(saved);
    result
}

/// A value shared between the main program and interrupt handlers, reachable only inside a
/// critical section. See the [module documentation](self) for why this is sound.
#[derive(Debug, Default)]
pub struct IrqMutex<T> {
    inner: T,
}

// SAFETY: on a single-core bare-metal AArch64 system the only concurrency is interrupts. `&T`
// is handed out only for the lifetime of a `CriticalSection`, i.e. while IRQs and FIQs are
// masked, so no two contexts hold it at the same time; the value effectively moves between
// contexts, which `T: Send` permits. The impl is absent on hosted targets, where real threads
// exist.
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

#[cfg(all(target_arch = "aarch64", target_os = "none"))]
mod arch {
    // NOTE(unsafe in probe): see the module documentation; the only asm of the probe module.

    /// Masks IRQ and FIQ and returns the previous DAIF value.
    #[inline(always)]
    pub(super) fn mask_interrupts() -> u64 {
        let saved: u64;
        // SAFETY: reading DAIF and setting its I and F bits only masks interrupts at the current
        // exception level; it touches no memory and no other state. The asm is deliberately not
        // `nomem`, so it also acts as a compiler barrier for the critical section.
        unsafe {
            core::arch::asm!(
                "mrs {saved}, daif",
                "msr daifset, #3",
                saved = out(reg) saved,
                options(nostack, preserves_flags),
            );
        }
        saved
    }

    /// Restores a DAIF value returned by [`mask_interrupts`].
    #[inline(always)]
    pub(super) fn restore_interrupts(saved: u64) {
        // SAFETY: writes back the DAIF value read by `mask_interrupts` in the same context,
        // re-enabling exactly the interrupts that were enabled before. Not `nomem`: a compiler
        // barrier that keeps the critical section's memory accesses before it.
        unsafe {
            core::arch::asm!(
                "msr daif, {saved}",
                saved = in(reg) saved,
                options(nostack, preserves_flags),
            );
        }
    }
}

#[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
mod arch {
    /// Hosted targets have no interrupts to mask.
    #[inline(always)]
    pub(super) fn mask_interrupts() -> u64 {
        0
    }

    /// Nothing to restore on hosted targets.
    #[inline(always)]
    pub(super) fn restore_interrupts(_saved: u64) {}
}
