//! [`CoreLock`]: a value the cores share that no interrupt handler touches.

use spin::mutex::TicketMutex;

/// A fair ticket lock across cores that leaves interrupts as they are.
///
/// [`IrqSpinMutex`](pmprobe::sync::IrqSpinMutex) masks IRQs on the holder, so that a
/// handler of the same core cannot wait on a lock its own core holds. The demo holds these
/// locks around whole SPU runs (the arena, each SPU while a core runs it, the listeners a run
/// feeds), and `--profile` samples those runs from interrupts: under a masking lock no sample
/// would ever be taken. No interrupt handler takes these locks, so masking buys nothing here.
///
/// Waiting spins: by construction no core waits on them (each SPU and its listeners are
/// claimed by one core at a time, the arena is the boot core's), so the `wfe` waiting of
/// `IrqSpinMutex` is not needed.
pub struct CoreLock<T> {
    inner: TicketMutex<T>,
}

impl<T> CoreLock<T> {
    /// Wraps `value`, unlocked.
    pub const fn new(value: T) -> Self {
        Self {
            inner: TicketMutex::new(value),
        }
    }

    /// Runs `f` on the value, holding the lock; interrupts stay as they are.
    pub fn lock<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.inner.lock())
    }
}
