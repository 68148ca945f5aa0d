//! The tests' pseudo-random numbers: xorshift64 (13, 7, 17), deterministic from its seed, so
//! a failing case repeats. Each test crate uses some of the helpers.
#![allow(dead_code)]

/// A xorshift64 generator; the seed must not be 0.
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in `min..=max`.
    pub fn range(&mut self, min: i64, max: i64) -> i64 {
        min + (self.next() % ((max - min + 1) as u64)) as i64
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}
