//! The 128-bit SPU quadword and its element views.
//!
//! The SPU numbers bytes, halfwords, words and doublewords from the most significant end
//! (big-endian): byte 0 is the leftmost byte and word 0 is the *preferred slot*. A quadword is
//! stored here as a `u128` whose most significant byte is byte 0, so element `i` of width `w`
//! bits sits at bit offset `128 - w * (i + 1)`.

/// One 128-bit SPU register value or local-store quadword.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Quadword(pub u128);

impl Quadword {
    /// All bits zero.
    pub const ZERO: Quadword = Quadword(0);

    /// Builds a quadword from its 16 bytes, byte 0 first.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Quadword(u128::from_be_bytes(bytes))
    }

    /// The 16 bytes, byte 0 first.
    pub const fn bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// Builds a quadword from four words, word 0 (the preferred slot) first.
    pub const fn from_words(words: [u32; 4]) -> Self {
        Quadword(
            ((words[0] as u128) << 96)
                | ((words[1] as u128) << 64)
                | ((words[2] as u128) << 32)
                | (words[3] as u128),
        )
    }

    /// The four words, word 0 (the preferred slot) first.
    pub const fn words(self) -> [u32; 4] {
        [
            (self.0 >> 96) as u32,
            (self.0 >> 64) as u32,
            (self.0 >> 32) as u32,
            self.0 as u32,
        ]
    }

    /// The four words in the order the host's memory holds the `u128` (word 3 first on a
    /// little-endian host), for lane-wise operations that treat every word alike and put
    /// them back with [`from_words_in_host_order`](Self::from_words_in_host_order): the
    /// compiler then moves the value as it is instead of shifting words out and in.
    #[inline(always)]
    pub fn words_in_host_order(self) -> [u32; 4] {
        let bytes = self.0.to_ne_bytes();
        core::array::from_fn(|word| {
            let at = word * 4;
            u32::from_ne_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        })
    }

    /// The inverse of [`words_in_host_order`](Self::words_in_host_order).
    #[inline(always)]
    pub fn from_words_in_host_order(words: [u32; 4]) -> Self {
        let mut bytes = [0u8; 16];
        for (word, chunk) in words.iter().zip(bytes.chunks_exact_mut(4)) {
            chunk.copy_from_slice(&word.to_ne_bytes());
        }
        Quadword(u128::from_ne_bytes(bytes))
    }

    /// Builds a quadword from eight halfwords, halfword 0 first.
    #[inline]
    pub fn from_halfwords(halfwords: [u16; 8]) -> Self {
        let mut value = 0u128;
        for halfword in halfwords {
            value = (value << 16) | u128::from(halfword);
        }
        Quadword(value)
    }

    /// The eight halfwords, halfword 0 first.
    #[inline]
    pub fn halfwords(self) -> [u16; 8] {
        let mut out = [0u16; 8];
        for (index, slot) in out.iter_mut().enumerate() {
            *slot = (self.0 >> (112 - 16 * index)) as u16;
        }
        out
    }

    /// Builds a quadword from two doublewords, doubleword 0 first.
    pub const fn from_doublewords(doublewords: [u64; 2]) -> Self {
        Quadword(((doublewords[0] as u128) << 64) | (doublewords[1] as u128))
    }

    /// The two doublewords, doubleword 0 first.
    pub const fn doublewords(self) -> [u64; 2] {
        [(self.0 >> 64) as u64, self.0 as u64]
    }

    /// The preferred-slot word (word 0), used by scalar operations such as addresses.
    pub const fn preferred_word(self) -> u32 {
        (self.0 >> 96) as u32
    }

    /// The preferred-slot halfword (halfword 1, bytes 2-3), tested by `brhz`/`brhnz`.
    pub const fn preferred_halfword(self) -> u16 {
        (self.0 >> 96) as u16
    }

    /// A quadword with `word` in the preferred slot and zeros elsewhere.
    pub const fn from_preferred_word(word: u32) -> Self {
        Quadword((word as u128) << 96)
    }

    /// The same word in all four slots.
    pub const fn splat_word(word: u32) -> Self {
        Quadword::from_words([word; 4])
    }

    /// The same halfword in all eight slots.
    #[inline]
    pub fn splat_halfword(halfword: u16) -> Self {
        Quadword::from_halfwords([halfword; 8])
    }

    /// The same byte in all sixteen slots.
    pub const fn splat_byte(byte: u8) -> Self {
        Quadword::from_bytes([byte; 16])
    }

    /// Applies `f` to every word. (Lane-wise operations take the lanes in the host's order,
    /// [`words_in_host_order`](Self::words_in_host_order): the compiler keeps the value in a
    /// vector register, where shifting words out and in split it into halves, whose two
    /// stores the next instruction's vector load of the register then waited for.)
    #[inline]
    pub fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        let w = self.words_in_host_order();
        Quadword::from_words_in_host_order([f(w[0]), f(w[1]), f(w[2]), f(w[3])])
    }

    /// Applies `f` to every pair of corresponding words.
    #[inline]
    pub fn zip_words(self, other: Quadword, mut f: impl FnMut(u32, u32) -> u32) -> Self {
        let a = self.words_in_host_order();
        let b = other.words_in_host_order();
        Quadword::from_words_in_host_order([
            f(a[0], b[0]),
            f(a[1], b[1]),
            f(a[2], b[2]),
            f(a[3], b[3]),
        ])
    }

    /// Applies `f` to every triple of corresponding words.
    #[inline]
    pub fn zip3_words(
        self,
        second: Quadword,
        third: Quadword,
        mut f: impl FnMut(u32, u32, u32) -> u32,
    ) -> Self {
        let a = self.words_in_host_order();
        let b = second.words_in_host_order();
        let c = third.words_in_host_order();
        Quadword::from_words_in_host_order([
            f(a[0], b[0], c[0]),
            f(a[1], b[1], c[1]),
            f(a[2], b[2], c[2]),
            f(a[3], b[3], c[3]),
        ])
    }

    /// The eight halfwords in the host's order (see [`map_words`](Self::map_words)).
    #[inline(always)]
    fn halfwords_in_host_order(self) -> [u16; 8] {
        let bytes = self.0.to_ne_bytes();
        core::array::from_fn(|lane| u16::from_ne_bytes([bytes[2 * lane], bytes[2 * lane + 1]]))
    }

    /// The inverse of [`halfwords_in_host_order`](Self::halfwords_in_host_order).
    #[inline(always)]
    fn from_halfwords_in_host_order(halfwords: [u16; 8]) -> Self {
        let mut bytes = [0u8; 16];
        for (halfword, chunk) in halfwords.iter().zip(bytes.chunks_exact_mut(2)) {
            chunk.copy_from_slice(&halfword.to_ne_bytes());
        }
        Quadword(u128::from_ne_bytes(bytes))
    }

    /// Applies `f` to every halfword.
    #[inline]
    pub fn map_halfwords(self, mut f: impl FnMut(u16) -> u16) -> Self {
        let mut h = self.halfwords_in_host_order();
        for lane in h.iter_mut() {
            *lane = f(*lane);
        }
        Quadword::from_halfwords_in_host_order(h)
    }

    /// Applies `f` to every pair of corresponding halfwords.
    #[inline]
    pub fn zip_halfwords(self, other: Quadword, mut f: impl FnMut(u16, u16) -> u16) -> Self {
        let mut a = self.halfwords_in_host_order();
        let b = other.halfwords_in_host_order();
        for (lane, rhs) in a.iter_mut().zip(b) {
            *lane = f(*lane, rhs);
        }
        Quadword::from_halfwords_in_host_order(a)
    }

    /// Applies `f` to every byte.
    #[inline]
    pub fn map_bytes(self, mut f: impl FnMut(u8) -> u8) -> Self {
        let mut b = self.0.to_ne_bytes();
        for lane in b.iter_mut() {
            *lane = f(*lane);
        }
        Quadword(u128::from_ne_bytes(b))
    }

    /// Applies `f` to every pair of corresponding bytes.
    #[inline]
    pub fn zip_bytes(self, other: Quadword, mut f: impl FnMut(u8, u8) -> u8) -> Self {
        let mut a = self.0.to_ne_bytes();
        let b = other.0.to_ne_bytes();
        for (lane, rhs) in a.iter_mut().zip(b) {
            *lane = f(*lane, rhs);
        }
        Quadword(u128::from_ne_bytes(a))
    }

    /// Applies `f` to every pair of corresponding doublewords.
    #[inline]
    pub fn zip_doublewords(self, other: Quadword, mut f: impl FnMut(u64, u64) -> u64) -> Self {
        let a = self.doublewords();
        let b = other.doublewords();
        Quadword::from_doublewords([f(a[0], b[0]), f(a[1], b[1])])
    }
}

impl core::fmt::Display for Quadword {
    /// Four words in hexadecimal, preferred slot first: `00000001 00000000 00000000 00000000`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let w = self.words();
        write!(f, "{:08x} {:08x} {:08x} {:08x}", w[0], w[1], w[2], w[3])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_order_is_big_endian() {
        let q = Quadword::from_bytes([
            0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
            0x0e, 0x0f,
        ]);
        assert_eq!(
            q.words(),
            [0x0001_0203, 0x0405_0607, 0x0809_0a0b, 0x0c0d_0e0f]
        );
        assert_eq!(q.halfwords()[0], 0x0001);
        assert_eq!(q.halfwords()[7], 0x0e0f);
        assert_eq!(
            q.doublewords(),
            [0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f]
        );
        assert_eq!(q.preferred_word(), 0x0001_0203);
        assert_eq!(q.preferred_halfword(), 0x0203);
    }

    #[test]
    fn round_trips() {
        let words = [1, 2, 0xdead_beef, 4];
        assert_eq!(Quadword::from_words(words).words(), words);
        let halves = [1, 2, 3, 4, 5, 6, 7, 0xffff];
        assert_eq!(Quadword::from_halfwords(halves).halfwords(), halves);
        assert_eq!(Quadword::from_preferred_word(7).words(), [7, 0, 0, 0]);
    }
}
