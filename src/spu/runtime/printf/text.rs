//! The format text the parser reads: bytes, or a NUL-terminated string in the local store.

use crate::spu::exec::{LS_SIZE, LocalStore};

/// Text the format parser reads byte by byte: a format string in the local store, or bytes.
pub trait Text {
    /// The byte at `index`, or `None` past the end of the text.
    fn at(&self, index: usize) -> Option<u8>;
}

impl Text for [u8] {
    fn at(&self, index: usize) -> Option<u8> {
        self.get(index).copied()
    }
}

/// A NUL-terminated string in the local store, from `start` up to its NUL or the end of the
/// local store (no wrap-around: an unterminated string ends there).
#[derive(Clone, Copy)]
pub struct LsString<'a> {
    local_store: &'a LocalStore,
    start: u32,
}

impl<'a> LsString<'a> {
    /// The string at LS address `start` (wrapped into the local store).
    pub fn new(local_store: &'a LocalStore, start: u32) -> Self {
        LsString {
            local_store,
            start: start % LS_SIZE,
        }
    }

    /// The string's bytes, without the NUL.
    pub fn bytes(self) -> impl Iterator<Item = u8> + 'a {
        (self.start..LS_SIZE)
            .map(move |address| self.local_store.load_byte(address))
            .take_while(|&byte| byte != 0)
    }
}

impl Text for LsString<'_> {
    fn at(&self, index: usize) -> Option<u8> {
        let address = u32::try_from(index).ok()?.checked_add(self.start)?;
        if address >= LS_SIZE {
            return None;
        }
        Some(self.local_store.load_byte(address)).filter(|&byte| byte != 0)
    }
}
