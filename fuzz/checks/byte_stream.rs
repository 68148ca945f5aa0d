//! A fuzz input read as a stream of choices: each read takes the next byte, zeros after the
//! end, so every input, however short, describes a whole structure.
// Each check that includes this file uses part of it.
#![allow(dead_code)]

/// The input and how much of it was used.
pub struct ByteStream<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> ByteStream<'a> {
    /// Reads `data` from its start.
    pub fn new(data: &'a [u8]) -> Self {
        ByteStream { data, at: 0 }
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        let byte = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte
    }

    /// A choice among `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    /// A 32-bit value from four bytes.
    pub fn u32(&mut self) -> u32 {
        u32::from_be_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// True once every byte was read.
    pub fn is_done(&self) -> bool {
        self.at >= self.data.len()
    }
}
