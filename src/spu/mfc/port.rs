//! What the MFC reaches: the main memory an SPU is attached to, and its local store.

use core::fmt;

use crate::spu::main_memory::{NoMemory, SharedMemory};

/// The local store as the MFC moves data in and out of it (the SPU's `LocalStore`
/// implements it; a write to code makes its decodes stale as any store does).
pub trait LocalStoreBytes {
    /// Copies `out.len()` bytes from `lsa`.
    fn read_bytes(&self, lsa: u32, out: &mut [u8]);
    /// Writes `data` at `lsa`.
    fn write_bytes(&mut self, lsa: u32, data: &[u8]);
}

/// The main memory an SPU's MFC reaches: none (every DMA is outside it) until one is
/// attached. A reference, so that eight SPUs share one memory; a `None` reference is
/// all-zero bits, so a reset SPU still is.
#[derive(Clone, Copy, Default)]
pub struct MemoryPort(Option<&'static dyn SharedMemory>);

impl MemoryPort {
    /// No memory.
    pub const fn none() -> Self {
        MemoryPort(None)
    }

    /// Attached to `memory`.
    pub const fn to(memory: &'static dyn SharedMemory) -> Self {
        MemoryPort(Some(memory))
    }

    /// The memory (an empty one when none is attached).
    pub fn memory(&self) -> &dyn SharedMemory {
        match self.0 {
            Some(memory) => memory,
            None => &NoMemory,
        }
    }

    /// Whether a memory is attached.
    pub fn is_attached(&self) -> bool {
        self.0.is_some()
    }
}

impl PartialEq for MemoryPort {
    /// The same memory, by address.
    fn eq(&self, other: &Self) -> bool {
        match (self.0, other.0) {
            (Some(a), Some(b)) => core::ptr::addr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for MemoryPort {}

impl fmt::Debug for MemoryPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(memory) => write!(f, "MemoryPort({:p})", memory),
            None => f.write_str("MemoryPort(none)"),
        }
    }
}
