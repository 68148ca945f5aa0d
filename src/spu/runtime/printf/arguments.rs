//! Where printf's variadic arguments come from: the PS3 SDK's quadword block or libspe2's
//! `va_list` walk.

use crate::spu::exec::{LS_SIZE, LocalStore};

/// Where the variadic arguments come from, one at a time, in the caller's convention.
pub trait PrintfArguments {
    /// The next `int`-sized argument (`%d`, `%c`, `%s`'s pointer, a `*` width).
    fn next_int(&mut self) -> u32;
    /// The next 8-byte argument (`%ll…`, a `double`).
    fn next_long(&mut self) -> u64;
    /// Whether `%l…` reads 8 bytes (the PS3's 64-bit PPU C library) or 4 (libspe2, whose
    /// handler parses `l` as an `int`).
    fn long_is_eight_bytes(&self) -> bool;
}

/// The PS3 SDK's `spu_printf` convention: one quadword per argument, from an LS address on
/// (the format pointer's quadword is the first, then the arguments); an `int` is the
/// quadword's bytes 0..4, an 8-byte argument its bytes 0..8. Past the fifteenth argument the
/// quadwords continue into the caller's stack frame, as the PPU's server reads them.
#[derive(Clone, Copy)]
pub struct QuadwordArguments<'a> {
    local_store: &'a LocalStore,
    next: u32,
}

impl<'a> QuadwordArguments<'a> {
    /// Arguments from the quadword at `address` on.
    pub fn new(local_store: &'a LocalStore, address: u32) -> Self {
        QuadwordArguments {
            local_store,
            next: address,
        }
    }

    fn take(&mut self) -> [u32; 4] {
        let words = self.local_store.load_quadword(self.next).words();
        self.next = self.next.wrapping_add(16) % LS_SIZE;
        words
    }
}

impl PrintfArguments for QuadwordArguments<'_> {
    fn next_int(&mut self) -> u32 {
        self.take()[0]
    }

    fn next_long(&mut self) -> u64 {
        let words = self.take();
        (u64::from(words[0]) << 32) | u64::from(words[1])
    }

    fn long_is_eight_bytes(&self) -> bool {
        true
    }
}

/// An SPU `va_list` as GCC builds it and libspe2's handlers walk it: 16 bytes per argument
/// from `next` on, and when `next` reaches `caller_stack` (the caller's frame: its back chain
/// and link-register quadwords) the walk skips those 32 bytes to the arguments passed on the
/// stack.
#[derive(Clone, Copy)]
pub struct VaListArguments<'a> {
    local_store: &'a LocalStore,
    next: u32,
    caller_stack: u32,
}

impl<'a> VaListArguments<'a> {
    /// The `va_list` stored at LS address `address` (bytes 0..4 the next argument's address,
    /// bytes 16..20 the caller's stack).
    pub fn at(local_store: &'a LocalStore, address: u32) -> Self {
        VaListArguments {
            local_store,
            next: local_store.load_word(address) % LS_SIZE,
            caller_stack: local_store.load_word(address.wrapping_add(16)) % LS_SIZE,
        }
    }

    fn take(&mut self) -> [u32; 4] {
        let words = self.local_store.load_quadword(self.next).words();
        self.next = self.next.wrapping_add(16) % LS_SIZE;
        if self.next == self.caller_stack {
            self.next = self.next.wrapping_add(32) % LS_SIZE;
        }
        words
    }
}

impl PrintfArguments for VaListArguments<'_> {
    fn next_int(&mut self) -> u32 {
        self.take()[0]
    }

    fn next_long(&mut self) -> u64 {
        let words = self.take();
        (u64::from(words[0]) << 32) | u64::from(words[1])
    }

    fn long_is_eight_bytes(&self) -> bool {
        false
    }
}
