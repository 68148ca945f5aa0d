//! The lane operations as SSE2's instructions (see the parent module).

use super::super::quadword::Quadword;
use safe_arch::{
    add_i8_m128i, add_i16_m128i, add_i32_m128i, bitand_m128i, bitandnot_m128i, bitor_m128i,
    bitxor_m128i, cmp_eq_mask_i8_m128i, cmp_eq_mask_i16_m128i, cmp_eq_mask_i32_m128i,
    cmp_gt_mask_i8_m128i, cmp_gt_mask_i16_m128i, cmp_gt_mask_i32_m128i, load_m128i, m128i,
    set_splat_i8_m128i, set_splat_i16_m128i, set_splat_i32_m128i, shl_all_u16_m128i,
    shl_all_u32_m128i, shr_all_i16_m128i, shr_all_i32_m128i, shr_all_u16_m128i, shr_all_u32_m128i,
    store_m128i, sub_i8_m128i, sub_i16_m128i, sub_i32_m128i,
};

#[inline(always)]
fn vector(value: Quadword) -> m128i {
    m128i::from(value.0)
}

#[inline(always)]
fn quadword(value: m128i) -> Quadword {
    Quadword(u128::from(value))
}

/// A shift count as SSE2's shifts take it (the low 64 bits).
#[inline(always)]
fn count(count: u32) -> m128i {
    m128i::from(u128::from(count))
}

/// All ones.
#[inline(always)]
fn ones() -> m128i {
    set_splat_i32_m128i(-1)
}

/// `a` with the top bit of every lane flipped: unsigned order becomes signed order.
#[inline(always)]
fn biased(a: Quadword, top_bits: m128i) -> m128i {
    bitxor_m128i(vector(a), top_bits)
}

/// Wrapping `a + b` per word.
#[inline(always)]
pub fn add_words(a: Quadword, b: Quadword) -> Quadword {
    quadword(add_i32_m128i(vector(a), vector(b)))
}

/// Wrapping `a + b` per halfword.
#[inline(always)]
pub fn add_halfwords(a: Quadword, b: Quadword) -> Quadword {
    quadword(add_i16_m128i(vector(a), vector(b)))
}

/// Wrapping `a + b` per byte.
#[inline(always)]
pub fn add_bytes(a: Quadword, b: Quadword) -> Quadword {
    quadword(add_i8_m128i(vector(a), vector(b)))
}

/// Wrapping `a - b` per word.
#[inline(always)]
pub fn subtract_words(a: Quadword, b: Quadword) -> Quadword {
    quadword(sub_i32_m128i(vector(a), vector(b)))
}

/// Wrapping `a - b` per byte.
#[inline(always)]
pub fn subtract_bytes(a: Quadword, b: Quadword) -> Quadword {
    quadword(sub_i8_m128i(vector(a), vector(b)))
}

/// Wrapping `a - b` per halfword.
#[inline(always)]
pub fn subtract_halfwords(a: Quadword, b: Quadword) -> Quadword {
    quadword(sub_i16_m128i(vector(a), vector(b)))
}

/// All ones in every word where `a == b`.
#[inline(always)]
pub fn words_equal(a: Quadword, b: Quadword) -> Quadword {
    quadword(cmp_eq_mask_i32_m128i(vector(a), vector(b)))
}

/// All ones in every halfword where `a == b`.
#[inline(always)]
pub fn halfwords_equal(a: Quadword, b: Quadword) -> Quadword {
    quadword(cmp_eq_mask_i16_m128i(vector(a), vector(b)))
}

/// All ones in every byte where `a == b`.
#[inline(always)]
pub fn bytes_equal(a: Quadword, b: Quadword) -> Quadword {
    quadword(cmp_eq_mask_i8_m128i(vector(a), vector(b)))
}

/// All ones in every word where `a > b`, signed.
#[inline(always)]
pub fn words_greater(a: Quadword, b: Quadword) -> Quadword {
    quadword(cmp_gt_mask_i32_m128i(vector(a), vector(b)))
}

/// All ones in every halfword where `a > b`, signed.
#[inline(always)]
pub fn halfwords_greater(a: Quadword, b: Quadword) -> Quadword {
    quadword(cmp_gt_mask_i16_m128i(vector(a), vector(b)))
}

/// All ones in every byte where `a > b`, signed.
#[inline(always)]
pub fn bytes_greater(a: Quadword, b: Quadword) -> Quadword {
    quadword(cmp_gt_mask_i8_m128i(vector(a), vector(b)))
}

/// All ones in every word where `a > b`, unsigned.
#[inline(always)]
pub fn words_greater_unsigned(a: Quadword, b: Quadword) -> Quadword {
    let top = set_splat_i32_m128i(i32::MIN);
    quadword(cmp_gt_mask_i32_m128i(biased(a, top), biased(b, top)))
}

/// All ones in every halfword where `a > b`, unsigned.
#[inline(always)]
pub fn halfwords_greater_unsigned(a: Quadword, b: Quadword) -> Quadword {
    let top = set_splat_i16_m128i(i16::MIN);
    quadword(cmp_gt_mask_i16_m128i(biased(a, top), biased(b, top)))
}

/// All ones in every byte where `a > b`, unsigned.
#[inline(always)]
pub fn bytes_greater_unsigned(a: Quadword, b: Quadword) -> Quadword {
    let top = set_splat_i8_m128i(i8::MIN);
    quadword(cmp_gt_mask_i8_m128i(biased(a, top), biased(b, top)))
}

/// Every word shifted left by `shift` (zeros in).
#[inline(always)]
pub fn shift_words_left(a: Quadword, shift: u32) -> Quadword {
    quadword(shl_all_u32_m128i(vector(a), count(shift)))
}

/// Every halfword shifted left by `shift` (zeros in).
#[inline(always)]
pub fn shift_halfwords_left(a: Quadword, shift: u32) -> Quadword {
    quadword(shl_all_u16_m128i(vector(a), count(shift)))
}

/// Every word shifted right by `shift`, zeros in.
#[inline(always)]
pub fn shift_words_right(a: Quadword, shift: u32) -> Quadword {
    quadword(shr_all_u32_m128i(vector(a), count(shift)))
}

/// Every halfword shifted right by `shift`, zeros in.
#[inline(always)]
pub fn shift_halfwords_right(a: Quadword, shift: u32) -> Quadword {
    quadword(shr_all_u16_m128i(vector(a), count(shift)))
}

/// Every word shifted right by `shift`, copies of its sign in.
#[inline(always)]
pub fn shift_words_right_arithmetic(a: Quadword, shift: u32) -> Quadword {
    quadword(shr_all_i32_m128i(vector(a), count(shift)))
}

/// Every halfword shifted right by `shift`, copies of its sign in.
#[inline(always)]
pub fn shift_halfwords_right_arithmetic(a: Quadword, shift: u32) -> Quadword {
    quadword(shr_all_i16_m128i(vector(a), count(shift)))
}

/// Every word rotated left by `rotation` (below 32).
#[inline(always)]
pub fn rotate_words(a: Quadword, rotation: u32) -> Quadword {
    let a = vector(a);
    quadword(bitor_m128i(
        shl_all_u32_m128i(a, count(rotation)),
        shr_all_u32_m128i(a, count(32 - rotation)),
    ))
}

/// Every halfword rotated left by `rotation` (below 16).
#[inline(always)]
pub fn rotate_halfwords(a: Quadword, rotation: u32) -> Quadword {
    let a = vector(a);
    quadword(bitor_m128i(
        shl_all_u16_m128i(a, count(rotation)),
        shr_all_u16_m128i(a, count(16 - rotation)),
    ))
}

/// `word` in every word.
#[inline(always)]
pub fn splat_word(word: u32) -> Quadword {
    quadword(set_splat_i32_m128i(word as i32))
}

/// `halfword` in every halfword.
#[inline(always)]
pub fn splat_halfword(halfword: u16) -> Quadword {
    quadword(set_splat_i16_m128i(halfword as i16))
}

/// `byte` in every byte.
#[inline(always)]
pub fn splat_byte(byte: u8) -> Quadword {
    quadword(set_splat_i8_m128i(byte as i8))
}

/// Copies `from` to `to` with one 128-bit vector load and store. (As a `u128` the
/// compiler copies a quadword in two 64-bit halves, and the next vector load of the
/// copy waits for both stores.)
#[inline(always)]
pub fn copy(from: &Quadword, to: &mut Quadword) {
    store_m128i(
        bytemuck::cast_mut(&mut to.0),
        load_m128i(bytemuck::cast_ref(&from.0)),
    );
}

/// `a & b`.
#[inline(always)]
pub fn and(a: Quadword, b: Quadword) -> Quadword {
    quadword(bitand_m128i(vector(a), vector(b)))
}

/// `a | b`.
#[inline(always)]
pub fn or(a: Quadword, b: Quadword) -> Quadword {
    quadword(bitor_m128i(vector(a), vector(b)))
}

/// `a ^ b`.
#[inline(always)]
pub fn xor(a: Quadword, b: Quadword) -> Quadword {
    quadword(bitxor_m128i(vector(a), vector(b)))
}

/// `a & !b`.
#[inline(always)]
pub fn and_not(a: Quadword, b: Quadword) -> Quadword {
    quadword(bitandnot_m128i(vector(b), vector(a)))
}

/// `a | !b`.
#[inline(always)]
pub fn or_not(a: Quadword, b: Quadword) -> Quadword {
    quadword(bitor_m128i(vector(a), bitxor_m128i(vector(b), ones())))
}

/// `!(a & b)`.
#[inline(always)]
pub fn nand(a: Quadword, b: Quadword) -> Quadword {
    quadword(bitxor_m128i(bitand_m128i(vector(a), vector(b)), ones()))
}

/// `!(a | b)`.
#[inline(always)]
pub fn nor(a: Quadword, b: Quadword) -> Quadword {
    quadword(bitxor_m128i(bitor_m128i(vector(a), vector(b)), ones()))
}

/// `!(a ^ b)`.
#[inline(always)]
pub fn eqv(a: Quadword, b: Quadword) -> Quadword {
    quadword(bitxor_m128i(bitxor_m128i(vector(a), vector(b)), ones()))
}

/// The bits of `b` where `mask` has ones, of `a` where it has zeros.
#[inline(always)]
pub fn select(a: Quadword, b: Quadword, mask: Quadword) -> Quadword {
    let mask = vector(mask);
    quadword(bitor_m128i(
        bitand_m128i(mask, vector(b)),
        bitandnot_m128i(mask, vector(a)),
    ))
}
