//! The lane operations written on the `u128` and its lanes, for hosts without SSE2 (and the
//! tests, which hold both to the same definitions).

use super::super::quadword::Quadword;

/// The top bit of every halfword / byte lane.
const HALFWORD_TOP_BITS: u128 = 0x8000_8000_8000_8000_8000_8000_8000_8000;
const BYTE_TOP_BITS: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;

/// Lane-wise wrapping `x + y` on all lanes at once: the lanes' top bits are left out of
/// the 128-bit addition, so no carry crosses a lane boundary, and then added back
/// without carry.
#[inline(always)]
fn lanes_add(x: u128, y: u128, top_bits: u128) -> u128 {
    ((x & !top_bits) + (y & !top_bits)) ^ ((x ^ y) & top_bits)
}

/// Lane-wise wrapping `x - y` on all lanes at once: every lane of `x` gets its top bit
/// set and every lane of `y` its top bit cleared, so no lane borrows from its
/// neighbour; the top bits are then corrected (true top bit = x ^ y ^ borrow-in,
/// computed = 1 ^ borrow-in).
#[inline(always)]
fn lanes_subtract(x: u128, y: u128, top_bits: u128) -> u128 {
    ((x | top_bits) - (y & !top_bits)) ^ ((x ^ !y) & top_bits)
}

#[inline(always)]
fn mask32(condition: bool) -> u32 {
    if condition { u32::MAX } else { 0 }
}

#[inline(always)]
fn mask16(condition: bool) -> u16 {
    if condition { u16::MAX } else { 0 }
}

#[inline(always)]
fn mask8(condition: bool) -> u8 {
    if condition { u8::MAX } else { 0 }
}

#[inline(always)]
pub fn add_words(a: Quadword, b: Quadword) -> Quadword {
    a.zip_words(b, u32::wrapping_add)
}

#[inline(always)]
pub fn add_halfwords(a: Quadword, b: Quadword) -> Quadword {
    Quadword(lanes_add(a.0, b.0, HALFWORD_TOP_BITS))
}

#[inline(always)]
pub fn add_bytes(a: Quadword, b: Quadword) -> Quadword {
    Quadword(lanes_add(a.0, b.0, BYTE_TOP_BITS))
}

#[inline(always)]
pub fn subtract_words(a: Quadword, b: Quadword) -> Quadword {
    a.zip_words(b, u32::wrapping_sub)
}

#[inline(always)]
pub fn subtract_bytes(a: Quadword, b: Quadword) -> Quadword {
    Quadword(lanes_subtract(a.0, b.0, BYTE_TOP_BITS))
}

#[inline(always)]
pub fn subtract_halfwords(a: Quadword, b: Quadword) -> Quadword {
    Quadword(lanes_subtract(a.0, b.0, HALFWORD_TOP_BITS))
}

#[inline(always)]
pub fn words_equal(a: Quadword, b: Quadword) -> Quadword {
    a.zip_words(b, |x, y| mask32(x == y))
}

#[inline(always)]
pub fn halfwords_equal(a: Quadword, b: Quadword) -> Quadword {
    a.zip_halfwords(b, |x, y| mask16(x == y))
}

#[inline(always)]
pub fn bytes_equal(a: Quadword, b: Quadword) -> Quadword {
    a.zip_bytes(b, |x, y| mask8(x == y))
}

#[inline(always)]
pub fn words_greater(a: Quadword, b: Quadword) -> Quadword {
    a.zip_words(b, |x, y| mask32(x as i32 > y as i32))
}

#[inline(always)]
pub fn halfwords_greater(a: Quadword, b: Quadword) -> Quadword {
    a.zip_halfwords(b, |x, y| mask16(x as i16 > y as i16))
}

#[inline(always)]
pub fn bytes_greater(a: Quadword, b: Quadword) -> Quadword {
    a.zip_bytes(b, |x, y| mask8(x as i8 > y as i8))
}

#[inline(always)]
pub fn words_greater_unsigned(a: Quadword, b: Quadword) -> Quadword {
    a.zip_words(b, |x, y| mask32(x > y))
}

#[inline(always)]
pub fn halfwords_greater_unsigned(a: Quadword, b: Quadword) -> Quadword {
    a.zip_halfwords(b, |x, y| mask16(x > y))
}

#[inline(always)]
pub fn bytes_greater_unsigned(a: Quadword, b: Quadword) -> Quadword {
    a.zip_bytes(b, |x, y| mask8(x > y))
}

#[inline(always)]
pub fn shift_words_left(a: Quadword, shift: u32) -> Quadword {
    a.map_words(|w| w.checked_shl(shift).unwrap_or(0))
}

#[inline(always)]
pub fn shift_halfwords_left(a: Quadword, shift: u32) -> Quadword {
    a.map_halfwords(|h| h.checked_shl(shift).unwrap_or(0))
}

#[inline(always)]
pub fn shift_words_right(a: Quadword, shift: u32) -> Quadword {
    a.map_words(|w| w.checked_shr(shift).unwrap_or(0))
}

#[inline(always)]
pub fn shift_halfwords_right(a: Quadword, shift: u32) -> Quadword {
    a.map_halfwords(|h| h.checked_shr(shift).unwrap_or(0))
}

#[inline(always)]
pub fn shift_words_right_arithmetic(a: Quadword, shift: u32) -> Quadword {
    a.map_words(|w| ((w as i32) >> shift.min(31)) as u32)
}

#[inline(always)]
pub fn shift_halfwords_right_arithmetic(a: Quadword, shift: u32) -> Quadword {
    a.map_halfwords(|h| ((h as i16) >> shift.min(15)) as u16)
}

#[inline(always)]
pub fn rotate_words(a: Quadword, rotation: u32) -> Quadword {
    a.map_words(|w| w.rotate_left(rotation))
}

#[inline(always)]
pub fn rotate_halfwords(a: Quadword, rotation: u32) -> Quadword {
    a.map_halfwords(|h| h.rotate_left(rotation))
}

#[inline(always)]
pub fn splat_word(word: u32) -> Quadword {
    Quadword::splat_word(word)
}

#[inline(always)]
pub fn splat_halfword(halfword: u16) -> Quadword {
    Quadword::splat_halfword(halfword)
}

#[inline(always)]
pub fn splat_byte(byte: u8) -> Quadword {
    Quadword::splat_byte(byte)
}

#[inline(always)]
pub fn copy(from: &Quadword, to: &mut Quadword) {
    *to = *from;
}

#[inline(always)]
pub fn and(a: Quadword, b: Quadword) -> Quadword {
    Quadword(a.0 & b.0)
}

#[inline(always)]
pub fn or(a: Quadword, b: Quadword) -> Quadword {
    Quadword(a.0 | b.0)
}

#[inline(always)]
pub fn xor(a: Quadword, b: Quadword) -> Quadword {
    Quadword(a.0 ^ b.0)
}

#[inline(always)]
pub fn and_not(a: Quadword, b: Quadword) -> Quadword {
    Quadword(a.0 & !b.0)
}

#[inline(always)]
pub fn or_not(a: Quadword, b: Quadword) -> Quadword {
    Quadword(a.0 | !b.0)
}

#[inline(always)]
pub fn nand(a: Quadword, b: Quadword) -> Quadword {
    Quadword(!(a.0 & b.0))
}

#[inline(always)]
pub fn nor(a: Quadword, b: Quadword) -> Quadword {
    Quadword(!(a.0 | b.0))
}

#[inline(always)]
pub fn eqv(a: Quadword, b: Quadword) -> Quadword {
    Quadword(!(a.0 ^ b.0))
}

#[inline(always)]
pub fn select(a: Quadword, b: Quadword, mask: Quadword) -> Quadword {
    Quadword((mask.0 & b.0) | (!mask.0 & a.0))
}
