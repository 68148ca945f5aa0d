//! A slot for one value whose empty state is all-zero bits.
//!
//! `Option<T>` of a type with a niche (an enum, a reference, a `bool`) writes `None` into that
//! niche, often as non-zero bytes, which puts a static of it in `.data`: the image then carries
//! those bytes. A one-element `heapless::Vec` is a length and uninitialised storage, so empty it
//! is zero bits, so per-core statics of them (the debug monitors here, the demo's results)
//! land in `.bss` like the SPU arena.

/// At most one `T`; empty when created.
pub struct ZeroSlot<T>(heapless::Vec<T, 1>);

impl<T> ZeroSlot<T> {
    /// An empty slot (all-zero bits).
    pub const fn new() -> Self {
        Self(heapless::Vec::new())
    }

    /// Puts `value` in the slot, replacing what it held.
    pub fn set(&mut self, value: T) {
        self.0.clear();
        // Cannot be refused: the slot was just emptied and holds one value.
        let _ = self.0.push(value);
    }

    /// The value, if one was set.
    pub fn get(&self) -> Option<&T> {
        self.0.first()
    }

    /// The value, mutably, if one was set.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.0.first_mut()
    }

    /// Whether no value was set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T> Default for ZeroSlot<T> {
    fn default() -> Self {
        Self::new()
    }
}
