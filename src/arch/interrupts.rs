//! The one DAIF primitive: masking and unmasking interrupts on the current core.
//!
//! Everything in pmprobe that must not be interrupted goes through [`free`]: the probe
//! framework's [`IrqMutex`](crate::sync::IrqMutex), the runtime's defmt logger and its
//! interrupt set-up. A critical section masks **IRQ and FIQ** (`msr daifset, #3`) and restores
//! the previous `DAIF` value when it ends, so critical sections nest, and one taken inside an
//! interrupt handler (where the core already masked IRQs) leaves them masked.
//!
//! # What keeps a critical section whole
//! A critical section is only as strong as the code inside it: one instruction that unmasks
//! interrupts ends it early, while the closure still holds references that an interrupt handler
//! may also reach. So every operation that can *unmask* ([`enable_irq`], [`restore`]) is
//! `unsafe`, with the contract "not inside a critical section"; masking ([`disable_irq`],
//! [`mask`]) is always safe. This is the convention of the `cortex-m` crate's
//! `interrupt::enable`.
//!
//! ```compile_fail,E0133
//! // Unmasking is not a safe operation: it could end a critical section early.
//! pmprobe::arch::interrupts::free(|_cs| pmprobe::arch::interrupts::enable_irq());
//! ```
//!
//! # Core-local
//! Masking interrupts excludes interrupt handlers *of this core* only. A critical section does
//! not exclude other cores; data shared between cores needs a lock on top of it.
//!
//! # Why hand-written assembly
//! `aarch64-cpu` offers `DAIF` accessors, but they are declared `nomem`, so the compiler may
//! move memory accesses across them, which would defeat a critical section. The instructions
//! below are written without `nomem` so that they are compiler barriers too.
//!
//! # Cost
//! [`free`] adds three instructions around its closure (`mrs daif`, `msr daifset`, `msr daif`).
//! On hosted targets (unit tests) there are no interrupts, and every function here is a no-op.
#![allow(unsafe_code)]

use core::marker::PhantomData;

/// Proof that interrupts are masked on this core; only [`free`] creates one.
#[derive(Clone, Copy, Debug)]
pub struct CriticalSection<'cs> {
    _scope: PhantomData<&'cs ()>,
}

/// The `DAIF` value in force before [`mask`], to hand back to [`restore`].
///
/// Not `Copy`: each saved value is restored at most once.
#[derive(Debug)]
#[must_use = "interrupts stay masked until the saved value is restored"]
pub struct SavedMask(u64);

/// Runs `f` with IRQs and FIQs masked on this core, restoring the previous mask afterwards.
#[inline(always)]
pub fn free<R>(f: impl FnOnce(CriticalSection<'_>) -> R) -> R {
    let saved = mask();
    let result = f(CriticalSection {
        _scope: PhantomData,
    });
    // SAFETY: `saved` was taken by the `mask` above in this same scope, and any critical section
    // that encloses this one was in force when it was taken; restoring it re-enables exactly what
    // was enabled when `free` was entered.
    unsafe { restore(saved) };
    result
}

/// Masks IRQ and FIQ on this core and returns the previous `DAIF` value.
///
/// Prefer [`free`]; this split form is for a critical section that opens and closes in two
/// different calls (a logger's acquire and release).
#[inline(always)]
pub fn mask() -> SavedMask {
    SavedMask(imp::mask())
}

/// Restores a `DAIF` value saved by [`mask`].
///
/// # Safety
/// Must not be called inside a critical section that was opened after `saved` was taken: if
/// `saved` had interrupts enabled, they come back on while that critical section still holds
/// its references.
#[inline(always)]
pub unsafe fn restore(saved: SavedMask) {
    imp::restore(saved.0);
}

/// Unmasks IRQs on this core (clears `PSTATE.I`).
///
/// # Safety
/// Must not be called inside a critical section ([`free`], or between [`mask`] and
/// [`restore`]), and only once the exception vectors are installed.
#[inline(always)]
pub unsafe fn enable_irq() {
    imp::enable_irq();
}

/// Masks IRQs on this core (sets `PSTATE.I`). Always safe: masking can only lengthen a critical
/// section.
#[inline(always)]
pub fn disable_irq() {
    imp::disable_irq();
}

/// Whether IRQs are masked on this core (`PSTATE.I`). Always `true` on hosted targets, where no
/// interrupt can arrive.
#[inline(always)]
pub fn irq_masked() -> bool {
    imp::daif() & DAIF_I != 0
}

/// `DAIF.I`, the IRQ mask bit.
const DAIF_I: u64 = 1 << 7;

#[cfg(all(target_arch = "aarch64", target_os = "none"))]
mod imp {
    use core::arch::asm;

    #[inline(always)]
    pub(super) fn mask() -> u64 {
        let saved: u64;
        // SAFETY: reads DAIF and sets its I and F bits: this only masks interrupts at the current
        // exception level and touches no memory. Deliberately not `nomem`: a compiler barrier
        // that keeps the critical section's memory accesses after it.
        unsafe {
            asm!(
                "mrs {saved}, daif",
                "msr daifset, #3",
                saved = out(reg) saved,
                options(nostack, preserves_flags),
            );
        }
        saved
    }

    #[inline(always)]
    pub(super) fn restore(saved: u64) {
        // SAFETY: writes back a DAIF value read from this core by `mask`; the caller guarantees
        // that no critical section opened since then is still running. Not `nomem`: a compiler
        // barrier that keeps the critical section's memory accesses before it.
        unsafe {
            asm!("msr daif, {saved}", saved = in(reg) saved, options(nostack, preserves_flags))
        };
    }

    #[inline(always)]
    pub(super) fn enable_irq() {
        // SAFETY: only clears PSTATE.I; the caller guarantees that no critical section is open
        // and that the vectors are installed. Not `nomem`: interrupts may run from here on, so
        // memory accesses must not move across it.
        unsafe { asm!("msr daifclr, #2", options(nostack, preserves_flags)) };
    }

    #[inline(always)]
    pub(super) fn disable_irq() {
        // SAFETY: only sets PSTATE.I. Not `nomem`: a compiler barrier.
        unsafe { asm!("msr daifset, #2", options(nostack, preserves_flags)) };
    }

    #[inline(always)]
    pub(super) fn daif() -> u64 {
        let daif: u64;
        // SAFETY: reading DAIF has no side effect.
        unsafe {
            asm!("mrs {daif}, daif", daif = out(reg) daif, options(nostack, preserves_flags))
        };
        daif
    }
}

#[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
mod imp {
    #[inline(always)]
    pub(super) fn mask() -> u64 {
        super::DAIF_I
    }

    #[inline(always)]
    pub(super) fn restore(_saved: u64) {}

    #[inline(always)]
    pub(super) fn enable_irq() {}

    #[inline(always)]
    pub(super) fn disable_irq() {}

    #[inline(always)]
    pub(super) fn daif() -> u64 {
        super::DAIF_I
    }
}
