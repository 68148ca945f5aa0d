//! [`Held`]: an optional value whose empty state is all-zero bits.
//!
//! An `Option` of a type with a niche (an enum, a `bool`) stores `None` in the niche, as a
//! non-zero bit pattern; an SPU whose reset state holds one is no longer all-zero bits and a
//! `static` arena of them would move from `.bss` into the firmware image. `Held` stores a flag
//! beside the value instead.

/// An optional `T`, as a flag and a value.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held<T> {
    present: bool,
    value: T,
}

impl<T: Copy> Held<T> {
    /// Nothing held; `zero` is `T`'s all-zero value (kept, unused, in the empty slot).
    pub const fn none(zero: T) -> Self {
        Held {
            present: false,
            value: zero,
        }
    }

    /// The value, if one is held.
    pub fn get(&self) -> Option<T> {
        self.present.then_some(self.value)
    }

    /// Holds `value`.
    pub fn set(&mut self, value: T) {
        self.present = true;
        self.value = value;
    }

    /// Holds nothing.
    pub fn clear(&mut self) {
        self.present = false;
    }

    /// Whether a value is held.
    #[inline]
    pub fn is_some(&self) -> bool {
        self.present
    }
}

impl<T: Copy + PartialEq> PartialEq for Held<T> {
    /// Equal when both hold nothing or both hold equal values.
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: Copy + Eq> Eq for Held<T> {}
