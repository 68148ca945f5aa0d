//! Fixed-point element operations (FX2, FXB and the FP7 integer multiplies), as pure
//! functions on quadwords. Immediates arrive as the decoder gives them: I10/I16 already
//! sign-extended, I18 zero-extended.

use super::quadword::Quadword;
use super::vector_lanes;

const TRUE_WORD: u32 = u32::MAX;

fn mask32(condition: bool) -> u32 {
    if condition { TRUE_WORD } else { 0 }
}
fn mask16(condition: bool) -> u16 {
    if condition { u16::MAX } else { 0 }
}
fn mask8(condition: bool) -> u8 {
    if condition { u8::MAX } else { 0 }
}

/// Word, halfword or byte element width for the generic helpers below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// 8-bit elements.
    Byte,
    /// 16-bit elements.
    Halfword,
    /// 32-bit elements.
    Word,
}

/// Element-wise comparison kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// `ceq*`.
    Equal,
    /// `cgt*` (signed).
    Greater,
    /// `clgt*` (unsigned).
    LogicalGreater,
}

/// `ceq/cgt/clgt` and their `b`/`h` forms: all-ones where the comparison holds.
// Always inlined: every caller passes constant width/kind, leaving a few lane operations.
#[inline(always)]
pub fn compare(a: Quadword, b: Quadword, width: Width, kind: Compare) -> Quadword {
    use vector_lanes as lanes;
    match (width, kind) {
        (Width::Word, Compare::Equal) => lanes::words_equal(a, b),
        (Width::Word, Compare::Greater) => lanes::words_greater(a, b),
        (Width::Word, Compare::LogicalGreater) => lanes::words_greater_unsigned(a, b),
        (Width::Halfword, Compare::Equal) => lanes::halfwords_equal(a, b),
        (Width::Halfword, Compare::Greater) => lanes::halfwords_greater(a, b),
        (Width::Halfword, Compare::LogicalGreater) => lanes::halfwords_greater_unsigned(a, b),
        (Width::Byte, Compare::Equal) => lanes::bytes_equal(a, b),
        (Width::Byte, Compare::Greater) => lanes::bytes_greater(a, b),
        (Width::Byte, Compare::LogicalGreater) => lanes::bytes_greater_unsigned(a, b),
    }
}

/// The splat of an I10 immediate for an element width: words and halfwords take the
/// sign-extended value, bytes take its low 8 bits (as the ISA's `*bi` forms do).
// Always inlined: every caller passes constant width/kind, leaving a few lane operations.
#[inline(always)]
pub fn splat_immediate(imm: i32, width: Width) -> Quadword {
    match width {
        Width::Word => vector_lanes::splat_word(imm as u32),
        Width::Halfword => vector_lanes::splat_halfword(imm as u16),
        Width::Byte => vector_lanes::splat_byte(imm as u8),
    }
}

/// `a`/`ah` (and the immediate forms through [`splat_immediate`]).
// Always inlined: every caller passes a constant width, leaving a few lane operations.
#[inline(always)]
pub fn add(a: Quadword, b: Quadword, width: Width) -> Quadword {
    match width {
        Width::Word => vector_lanes::add_words(a, b),
        Width::Halfword => vector_lanes::add_halfwords(a, b),
        Width::Byte => vector_lanes::add_bytes(a, b),
    }
}

/// `sf`/`sfh`: `b - a` (subtract *from*).
// Always inlined: every caller passes a constant width, leaving a few lane operations.
#[inline(always)]
pub fn subtract_from(a: Quadword, b: Quadword, width: Width) -> Quadword {
    match width {
        Width::Word => vector_lanes::subtract_words(b, a),
        Width::Halfword => vector_lanes::subtract_halfwords(b, a),
        Width::Byte => vector_lanes::subtract_bytes(b, a),
    }
}

/// `cg`: carry out of `a + b`, as 0 or 1 per word.
pub fn carry_generate(a: Quadword, b: Quadword) -> Quadword {
    a.zip_words(b, |x, y| u32::from(x.checked_add(y).is_none()))
}

/// `bg`: 1 where `b - a` does not borrow (`b >= a` unsigned), else 0.
pub fn borrow_generate(a: Quadword, b: Quadword) -> Quadword {
    a.zip_words(b, |x, y| u32::from(y >= x))
}

/// `addx`: `a + b + (t & 1)`.
pub fn add_extended(a: Quadword, b: Quadword, t: Quadword) -> Quadword {
    a.zip3_words(b, t, |x, y, c| x.wrapping_add(y).wrapping_add(c & 1))
}

/// `sfx`: `b - a - (1 - (t & 1))`, i.e. `b + !a + (t & 1)`.
pub fn subtract_from_extended(a: Quadword, b: Quadword, t: Quadword) -> Quadword {
    a.zip3_words(b, t, |x, y, c| y.wrapping_add(!x).wrapping_add(c & 1))
}

/// `cgx`: carry out of `a + b + (t & 1)`.
pub fn carry_generate_extended(a: Quadword, b: Quadword, t: Quadword) -> Quadword {
    a.zip3_words(b, t, |x, y, c| {
        let sum = u64::from(x) + u64::from(y) + u64::from(c & 1);
        (sum >> 32) as u32
    })
}

/// `bgx`: carry out of `b + !a + (t & 1)` (1 = no borrow).
pub fn borrow_generate_extended(a: Quadword, b: Quadword, t: Quadword) -> Quadword {
    a.zip3_words(b, t, |x, y, c| {
        let sum = u64::from(y) + u64::from(!x) + u64::from(c & 1);
        (sum >> 32) as u32
    })
}

/// `selb`: bits of `b` where `mask` is 1, of `a` where it is 0.
pub fn select_bits(a: Quadword, b: Quadword, mask: Quadword) -> Quadword {
    vector_lanes::select(a, b, mask)
}

/// `clz`: leading zeros of each word (32 for zero).
pub fn count_leading_zeros(a: Quadword) -> Quadword {
    a.map_words(u32::leading_zeros)
}

/// `cntb`: set bits of each byte.
pub fn count_ones_bytes(a: Quadword) -> Quadword {
    a.map_bytes(|x| x.count_ones() as u8)
}

/// `xsbh`: sign-extends the low byte of each halfword.
pub fn extend_sign_byte_to_halfword(a: Quadword) -> Quadword {
    a.map_halfwords(|x| x as u8 as i8 as i16 as u16)
}

/// `xshw`: sign-extends the low halfword of each word.
pub fn extend_sign_halfword_to_word(a: Quadword) -> Quadword {
    a.map_words(|x| x as u16 as i16 as i32 as u32)
}

/// `xswd`: sign-extends the low word of each doubleword.
pub fn extend_sign_word_to_doubleword(a: Quadword) -> Quadword {
    a.zip_doublewords(Quadword::ZERO, |x, _| x as u32 as i32 as i64 as u64)
}

/// `absdb`: `|a - b|` per unsigned byte.
pub fn absolute_difference_bytes(a: Quadword, b: Quadword) -> Quadword {
    a.zip_bytes(b, |x, y| x.abs_diff(y))
}

/// `avgb`: `(a + b + 1) / 2` per unsigned byte.
pub fn average_bytes(a: Quadword, b: Quadword) -> Quadword {
    a.zip_bytes(b, |x, y| ((u16::from(x) + u16::from(y) + 1) >> 1) as u8)
}

/// `sumb`: per word, the sum of `b`'s four bytes in the left halfword and the sum of `a`'s
/// four bytes in the right halfword.
pub fn sum_bytes(a: Quadword, b: Quadword) -> Quadword {
    fn byte_sum(word: u32) -> u32 {
        word.to_be_bytes().iter().map(|&byte| u32::from(byte)).sum()
    }
    a.zip_words(b, |x, y| (byte_sum(y) << 16) | byte_sum(x))
}

/// Integer multiplies of the FP7 class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Multiply {
    /// `mpy`: signed low halfwords.
    Signed,
    /// `mpyu`: unsigned low halfwords.
    Unsigned,
    /// `mpyh`: (high halfword of a × low halfword of b) << 16.
    High,
    /// `mpyhh`: signed high halfwords.
    HighHigh,
    /// `mpyhhu`: unsigned high halfwords.
    HighHighUnsigned,
    /// `mpys`: signed low halfwords, product >> 16 sign-extended.
    ShiftRight,
}

/// The word-wise 16×16 multiplies (`mpy`, `mpyu`, `mpyh`, `mpyhh`, `mpyhhu`, `mpys`).
#[inline]
pub fn multiply(a: Quadword, b: Quadword, kind: Multiply) -> Quadword {
    a.zip_words(b, |x, y| multiply_word(x, y, kind))
}

/// One word of [`multiply`].
#[inline]
pub fn multiply_word(x: u32, y: u32, kind: Multiply) -> u32 {
    let low_signed = |v: u32| i32::from(v as u16 as i16);
    let high_signed = |v: u32| i32::from((v >> 16) as u16 as i16);
    match kind {
        Multiply::Signed => low_signed(x).wrapping_mul(low_signed(y)) as u32,
        Multiply::Unsigned => (x & 0xffff).wrapping_mul(y & 0xffff),
        Multiply::High => ((x >> 16).wrapping_mul(y & 0xffff)) << 16,
        Multiply::HighHigh => high_signed(x).wrapping_mul(high_signed(y)) as u32,
        Multiply::HighHighUnsigned => (x >> 16).wrapping_mul(y >> 16),
        Multiply::ShiftRight => (low_signed(x).wrapping_mul(low_signed(y)) >> 16) as u32,
    }
}

/// `fsm`: each of the rightmost 4 bits of the preferred word expands to a word mask.
pub fn form_select_mask_words(a: Quadword) -> Quadword {
    let bits = a.preferred_word() & 0xf;
    let mut words = [0u32; 4];
    for (index, word) in words.iter_mut().enumerate() {
        *word = mask32(bits & (0x8 >> index) != 0);
    }
    Quadword::from_words(words)
}

/// `fsmh`: each of the rightmost 8 bits of the preferred word expands to a halfword mask.
pub fn form_select_mask_halfwords(a: Quadword) -> Quadword {
    let bits = a.preferred_word() & 0xff;
    let mut halfwords = [0u16; 8];
    for (index, halfword) in halfwords.iter_mut().enumerate() {
        *halfword = mask16(bits & (0x80 >> index) != 0);
    }
    Quadword::from_halfwords(halfwords)
}

/// `fsmb`/`fsmbi`: each of 16 bits (most significant first) expands to a byte mask.
pub fn form_select_mask_bytes(bits: u16) -> Quadword {
    let mut bytes = [0u8; 16];
    for (index, byte) in bytes.iter_mut().enumerate() {
        *byte = mask8(bits & (0x8000 >> index) != 0);
    }
    Quadword::from_bytes(bytes)
}

/// `gb`: the low bit of each word gathered into the rightmost 4 bits of the preferred word.
pub fn gather_bits_words(a: Quadword) -> Quadword {
    let gathered = a.words().iter().fold(0u32, |acc, &w| (acc << 1) | (w & 1));
    Quadword::from_preferred_word(gathered)
}

/// `gbh`: the low bit of each halfword gathered into the rightmost 8 bits.
pub fn gather_bits_halfwords(a: Quadword) -> Quadword {
    let gathered = a
        .halfwords()
        .iter()
        .fold(0u32, |acc, &h| (acc << 1) | u32::from(h & 1));
    Quadword::from_preferred_word(gathered)
}

/// `gbb`: the low bit of each byte gathered into the rightmost 16 bits.
pub fn gather_bits_bytes(a: Quadword) -> Quadword {
    let gathered = a
        .bytes()
        .iter()
        .fold(0u32, |acc, &b| (acc << 1) | u32::from(b & 1));
    Quadword::from_preferred_word(gathered)
}

/// `orx`: OR of the four words into the preferred slot, other words zero.
pub fn or_across(a: Quadword) -> Quadword {
    let w = a.words();
    Quadword::from_preferred_word(w[0] | w[1] | w[2] | w[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random(state: &mut u64) -> u128 {
        let mut next = || {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            *state
        };
        let value = (u128::from(next()) << 64) | u128::from(next());
        // Bias lanes towards 0, all-ones and the top-bit boundary, where carries happen.
        match next() & 3 {
            0 => value | 0x7f7f_7f7f_7f7f_7f7f_7f7f_7f7f_7f7f_7f7f,
            1 => value & 0x8080_8080_8080_8080_8080_8080_8080_8080,
            _ => value,
        }
    }

    /// The whole-register lane arithmetic against the lane-by-lane definition.
    #[test]
    fn lane_parallel_add_and_subtract_match_lane_by_lane() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            let a = Quadword(random(&mut state));
            let b = Quadword(random(&mut state));
            assert_eq!(
                add(a, b, Width::Halfword),
                a.zip_halfwords(b, u16::wrapping_add)
            );
            assert_eq!(add(a, b, Width::Byte), a.zip_bytes(b, u8::wrapping_add));
            assert_eq!(
                subtract_from(a, b, Width::Halfword),
                a.zip_halfwords(b, |x, y| y.wrapping_sub(x))
            );
            assert_eq!(
                subtract_from(a, b, Width::Byte),
                a.zip_bytes(b, |x, y| y.wrapping_sub(x))
            );
        }
    }
}
