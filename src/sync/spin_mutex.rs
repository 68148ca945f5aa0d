//! [`IrqSpinMutex`]: a value shared between cores and their interrupt handlers.

use core::fmt;

use spin::mutex::TicketMutex;
use spin::relax::RelaxStrategy;

use crate::arch::interrupts::free;

/// How a core waits for its ticket: `wfe` on bare-metal AArch64, a spin hint elsewhere.
pub(crate) struct WaitForEvent;

/// The ticket lock alone, waiting the same way, for a critical section that opens and closes in
/// two calls (the runtime's defmt logger, whose `acquire` and `release` are separate); whoever
/// releases it calls [`wake_waiters`] after.
#[allow(dead_code)] // only the runtime's defmt logger uses it
pub(crate) type RawSpinLock = TicketMutex<(), WaitForEvent>;

impl RelaxStrategy for WaitForEvent {
    #[inline(always)]
    fn relax() {
        #[cfg(all(target_arch = "aarch64", target_os = "none"))]
        aarch64_cpu::asm::wfe();
        #[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
        core::hint::spin_loop();
    }
}

/// Wakes the cores waiting in `wfe`, after the release store is visible to them.
#[inline(always)]
pub(crate) fn wake_waiters() {
    #[cfg(all(target_arch = "aarch64", target_os = "none"))]
    {
        use aarch64_cpu::asm::barrier;
        barrier::dsb(barrier::ISHST);
        aarch64_cpu::asm::sev();
    }
}

/// A value shared between cores and interrupt handlers: IRQs masked on the holding core plus
/// a fair ticket lock across cores.
///
/// ```
/// use pmprobe::sync::IrqSpinMutex;
/// static TOTAL: IrqSpinMutex<u64> = IrqSpinMutex::new(0);
/// // From any core, or from an interrupt handler:
/// TOTAL.lock(|total| *total += 5);
/// assert_eq!(TOTAL.lock(|total| *total), 5);
/// ```
///
/// # Mechanism
/// [`lock`](IrqSpinMutex::lock) first masks IRQs and FIQs on the calling core
/// ([`free`], the crate's one interrupt-masking primitive), then takes a **ticket lock** (the
/// `spin` crate's `TicketMutex`): each caller draws the next ticket and waits until the lock
/// serves it, so cores get the lock in the order they asked for it and none starves. Masking
/// first matters: an interrupt handler of the holding core that wanted the same lock would
/// otherwise wait forever for a holder that cannot run until the handler returns.
///
/// While it waits, a core executes `wfe` (wait for event) rather than spinning flat out, and the
/// holder signals `sev` after a `dsb ishst` when it lets go, once its stores are visible. On a
/// real core the waiters sleep until then; under QEMU, `wfe` hands the host thread to another
/// virtual core, which matters when QEMU runs all of them round-robin in one thread (`-icount`):
/// a flat spin would burn the waiter's whole time slice while the holder cannot run.
///
/// # Rules
/// - The value is reached only inside the closure: there is no guard to drop out of order.
/// - Do not take the same `IrqSpinMutex` again inside its own closure (on the same core that is
///   a deadlock, as with any non-recursive lock). Two locks are taken in one fixed order
///   everywhere.
/// - Keep the closure short where other cores wait: they sleep, but they do not work.
///
/// # On a hosted target
/// There are no interrupts; it is a plain ticket lock between threads, waiting with
/// `core::hint::spin_loop` (the host tests hammer it from four threads).
pub struct IrqSpinMutex<T> {
    inner: TicketMutex<T, WaitForEvent>,
}

impl<T> IrqSpinMutex<T> {
    /// Wraps `value`, unlocked.
    pub const fn new(value: T) -> Self {
        Self {
            inner: TicketMutex::new(value),
        }
    }

    /// Runs `f` on the value with IRQs masked on this core and every other core kept out;
    /// waits for the cores that asked first.
    #[inline]
    pub fn lock<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        free(|_| {
            let result = {
                let mut value = self.inner.lock();
                f(&mut value)
            };
            wake_waiters();
            result
        })
    }

    /// Like [`lock`](Self::lock), but returns `None` at once when another holder has the lock
    /// (or someone is already waiting for it) instead of waiting.
    #[inline]
    pub fn try_lock<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        free(|_| {
            let result = {
                let mut value = self.inner.try_lock()?;
                f(&mut value)
            };
            wake_waiters();
            Some(result)
        })
    }

    /// Exclusive access needs no lock.
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.get_mut()
    }

    /// Unwraps the value.
    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

impl<T: Default> Default for IrqSpinMutex<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

/// Formats the value when the lock is free at that moment, `<locked>` otherwise (waiting could
/// deadlock a holder on this core that is formatting it).
impl<T: fmt::Debug> fmt::Debug for IrqSpinMutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut tuple = f.debug_tuple("IrqSpinMutex");
        match self.try_lock(|value| {
            tuple.field(value);
        }) {
            Some(()) => tuple.finish(),
            None => tuple.field(&format_args!("<locked>")).finish(),
        }
    }
}
