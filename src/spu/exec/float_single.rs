//! SPU single-precision floating point (the FP6/FP7 "SP" model of the SPU ISA).
//!
//! The SPU's SP arithmetic is *not* IEEE 754:
//! - rounding is always toward zero (truncation);
//! - an operand with exponent field 0 is zero (denormals are not supported), and a result
//!   below the smallest normal magnitude is `+0`; every zero result is `+0`;
//! - exponent field 255 is an ordinary exponent ("extended range"): there are no infinities
//!   or NaNs, values reach `(2 - 2^-23) × 2^128`, and a result beyond that saturates to the
//!   largest magnitude with the correct sign (`0x7fff_ffff` / `0xffff_ffff`);
//! - `fma`-style operations are fused: the product is not rounded before the addition.
//!
//! Values are handled as raw `u32` bit patterns so extended-range values are never
//! reinterpreted by the host FPU.

use super::float_exact::Exact;
#[cfg(test)]
use super::float_single_host::SP_MAX;

/// Decodes an SP bit pattern into an exact value (exponent field 0 reads as zero).
pub(crate) fn unpack(bits: u32) -> Exact {
    let exponent_field = (bits >> 23) & 0xff;
    if exponent_field == 0 {
        return Exact::ZERO;
    }
    Exact {
        negative: bits >> 31 != 0,
        exponent: exponent_field as i32 - 127 - 23,
        mantissa: u128::from((bits & 0x007f_ffff) | 0x0080_0000),
    }
}

/// Rounds an exact value toward zero into the extended-range SP format (the general model the
/// tests compare the fast paths with).
#[cfg(test)]
pub(crate) fn pack_truncating(value: Exact) -> u32 {
    let Some(msb) = value.msb() else {
        return 0;
    };
    let sign = if value.negative { 0x8000_0000 } else { 0 };
    let unbiased = i64::from(value.exponent) + i64::from(msb);
    let biased = unbiased + 127;
    if biased > 255 {
        return sign | SP_MAX;
    }
    if biased < 1 {
        return 0;
    }
    let fraction = if msb >= 23 {
        (value.mantissa >> (msb - 23)) as u32
    } else {
        (value.mantissa << (23 - msb)) as u32
    } & 0x007f_ffff;
    sign | ((biased as u32) << 23) | fraction
}

/// Ordering key: zero for any exponent-0 value, else the sign-magnitude value as an integer.
fn key(bits: u32) -> i64 {
    let magnitude = i64::from(bits & 0x7fff_ffff);
    if (bits >> 23) & 0xff == 0 {
        0
    } else if bits >> 31 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// `a == b` (`fceq`): +0, -0 and denormal encodings are all equal to zero.
pub fn equal(a: u32, b: u32) -> bool {
    key(a) == key(b)
}

/// `|a| == |b|` (`fcmeq`).
pub fn magnitude_equal(a: u32, b: u32) -> bool {
    key(a).abs() == key(b).abs()
}

/// `a > b` (`fcgt`).
pub fn greater(a: u32, b: u32) -> bool {
    key(a) > key(b)
}

/// `|a| > |b|` (`fcmgt`).
pub fn magnitude_greater(a: u32, b: u32) -> bool {
    key(a).abs() > key(b).abs()
}

/// Scaled magnitude of `value × 2^scale` truncated to an integer, or `None` when it exceeds
/// 2^64 (which saturates every destination).
fn scaled_integer(value: Exact, scale: i32) -> Option<u128> {
    let exponent = i64::from(value.exponent) + i64::from(scale);
    if value.mantissa == 0 {
        return Some(0);
    }
    if exponent >= 64 {
        None
    } else if exponent >= 0 {
        let shifted = value.mantissa << exponent;
        if shifted >> 64 != 0 {
            None
        } else {
            Some(shifted)
        }
    } else if exponent <= -128 {
        Some(0)
    } else {
        Some(value.mantissa >> (-exponent))
    }
}

/// `cflts rt,ra,scale`: `a × 2^(173 - i8)` truncated toward zero to a saturated `i32`.
pub fn to_signed_fixed(a: u32, i8_field: u8) -> u32 {
    let value = unpack(a);
    let scale = 173 - i32::from(i8_field);
    match (scaled_integer(value, scale), value.negative) {
        (None, false) => i32::MAX as u32,
        (None, true) => i32::MIN as u32,
        (Some(magnitude), false) => magnitude.min(i32::MAX as u128) as u32,
        (Some(magnitude), true) => {
            if magnitude >= 1u128 << 31 {
                i32::MIN as u32
            } else {
                (magnitude as i32).wrapping_neg() as u32
            }
        }
    }
}

/// `cfltu rt,ra,scale`: `a × 2^(173 - i8)` truncated to a saturated `u32` (negatives → 0).
pub fn to_unsigned_fixed(a: u32, i8_field: u8) -> u32 {
    let value = unpack(a);
    if value.negative {
        return 0;
    }
    match scaled_integer(value, 173 - i32::from(i8_field)) {
        None => u32::MAX,
        Some(magnitude) => magnitude.min(u128::from(u32::MAX)) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spu::exec::float_single_lanes as lanes;

    use crate::spu::exec::Quadword;

    fn splat(word: u32) -> Quadword {
        Quadword::from_words([word; 4])
    }

    // Word 0 of an operation on registers holding `a`, `b`, `c` in every lane.
    fn add(a: u32, b: u32) -> u32 {
        lanes::add(splat(a), splat(b)).words()[0]
    }
    fn mul(a: u32, b: u32) -> u32 {
        lanes::mul(splat(a), splat(b)).words()[0]
    }

    #[test]
    fn one_plus_one_is_two() {
        assert_eq!(add(0x3f80_0000, 0x3f80_0000), 0x4000_0000);
    }

    // The 128-bit general model ([`Exact`]) with the formulas these operations used before
    // the binary64 arithmetic: the reference it must match bit for bit.
    fn reference_add(a: u32, b: u32) -> u32 {
        pack_truncating(unpack(a).add(unpack(b)))
    }
    fn reference_sub(a: u32, b: u32) -> u32 {
        pack_truncating(unpack(a).add(unpack(b).negate()))
    }
    fn reference_mul(a: u32, b: u32) -> u32 {
        pack_truncating(unpack(a).mul(unpack(b)))
    }
    fn reference_mul_add(a: u32, b: u32, c: u32) -> u32 {
        pack_truncating(unpack(a).mul(unpack(b)).add(unpack(c)))
    }
    fn reference_mul_sub(a: u32, b: u32, c: u32) -> u32 {
        pack_truncating(unpack(a).mul(unpack(b)).add(unpack(c).negate()))
    }
    fn reference_negative_mul_sub(a: u32, b: u32, c: u32) -> u32 {
        pack_truncating(unpack(c).add(unpack(a).mul(unpack(b)).negate()))
    }
    fn reference_from_signed_fixed(a: u32, i8_field: u8) -> u32 {
        let signed = a as i32;
        pack_truncating(Exact {
            negative: signed < 0,
            exponent: i32::from(i8_field) - 155,
            mantissa: u128::from(signed.unsigned_abs()),
        })
    }
    fn reference_from_unsigned_fixed(a: u32, i8_field: u8) -> u32 {
        pack_truncating(Exact {
            negative: false,
            exponent: i32::from(i8_field) - 155,
            mantissa: u128::from(a),
        })
    }

    /// Random SP patterns biased towards the edges: exponent fields 0, 1, 254, 255 and near
    /// each other (so additions cancel), mantissas all-ones or all-zeros.
    fn operand(state: &mut u64) -> u32 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let random = (*state >> 16) as u32;
        let exponent = match (*state >> 8) & 7 {
            0 => 0,
            1 => 1,
            2 => 254,
            3 => 255,
            4 => 127 + ((*state >> 12) & 3) as u32,
            _ => (random >> 23) & 0xff,
        };
        let mantissa = match (*state >> 4) & 7 {
            0 => 0,
            1 => 0x007f_ffff,
            _ => random & 0x007f_ffff,
        };
        (random & 0x8000_0000) | (exponent << 23) | mantissa
    }

    /// Four operand triples a lane each: every lane of every register-wide operation
    /// against the general model.
    #[test]
    fn binary64_arithmetic_matches_the_general_model() {
        type Reference2 = fn(u32, u32) -> u32;
        type Reference3 = fn(u32, u32, u32) -> u32;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..250_000 {
            let mut next = || core::array::from_fn(|_| operand(&mut state));
            let (a, b, c): ([u32; 4], [u32; 4], [u32; 4]) = (next(), next(), next());
            let (qa, qb, qc) = (
                Quadword::from_words(a),
                Quadword::from_words(b),
                Quadword::from_words(c),
            );
            let two: [(&str, Quadword, Reference2); 3] = [
                ("fa", lanes::add(qa, qb), reference_add),
                ("fs", lanes::sub(qa, qb), reference_sub),
                ("fm", lanes::mul(qa, qb), reference_mul),
            ];
            let three: [(&str, Quadword, Reference3); 3] = [
                ("fma", lanes::mul_add(qa, qb, qc), reference_mul_add),
                ("fms", lanes::mul_sub(qa, qb, qc), reference_mul_sub),
                (
                    "fnms",
                    lanes::negative_mul_sub(qa, qb, qc),
                    reference_negative_mul_sub,
                ),
            ];
            for lane in 0..4 {
                let (a, b, c) = (a[lane], b[lane], c[lane]);
                for (name, result, reference) in two {
                    let got = result.words()[lane];
                    assert_eq!(got, reference(a, b), "{name} {a:#x} {b:#x} (lane {lane})");
                }
                for (name, result, reference) in three {
                    let got = result.words()[lane];
                    let want = reference(a, b, c);
                    assert_eq!(got, want, "{name} {a:#x} {b:#x} {c:#x} (lane {lane})");
                }
            }
        }
    }

    /// Operands of ordinary numbers (the registers the whole-register vector form takes):
    /// exponent fields in one of three bands, so sums are near enough to be exact or just
    /// too far apart, fused sums cancel or round in binary64, and results leave the normal
    /// range at both ends; mantissas random or at their ends. Every lane of every operation
    /// against the general model.
    fn ordinary_operand(state: &mut u64) -> u32 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let random = (*state >> 16) as u32;
        let spread = (random >> 23) % 40;
        let exponent = match (*state >> 8) & 3 {
            0 => 1 + spread,
            1 => 254 - spread,
            _ => 107 + spread,
        };
        let mantissa = match (*state >> 4) & 7 {
            0 => 0,
            1 => 0x007f_ffff,
            2 => 0x007f_ffff & !(random & 0xff),
            _ => random & 0x007f_ffff,
        };
        (random & 0x8000_0000) | (exponent << 23) | mantissa
    }

    #[test]
    fn ordinary_operands_match_the_general_model() {
        let mut state = 0x3c6e_f372_fe94_f82bu64;
        let mut whole_register = 0;
        for round in 0..250_000 {
            // Every fourth round one band only, so that all four lanes take the vector form.
            let band = round % 4;
            let mut next = || {
                core::array::from_fn(|_| {
                    loop {
                        let word = ordinary_operand(&mut state);
                        let exponent = (word >> 23) & 0xff;
                        if band != 0 || (107..=146).contains(&exponent) {
                            break word;
                        }
                    }
                })
            };
            let (a, b, c): ([u32; 4], [u32; 4], [u32; 4]) = (next(), next(), next());
            let (qa, qb, qc) = (
                Quadword::from_words(a),
                Quadword::from_words(b),
                Quadword::from_words(c),
            );
            if lanes::whole::mul_add(qa, qb, qc).is_some() {
                whole_register += 1;
            }
            // Each form once per register (the interpreter's, and the lane-by-lane form on its
            // own, which the vector form now spares these operands), then lane by lane.
            use lanes::lane_by_lane as one_by_one;
            let forms = [
                (
                    "",
                    [
                        lanes::add(qa, qb),
                        lanes::sub(qa, qb),
                        lanes::mul(qa, qb),
                        lanes::mul_add(qa, qb, qc),
                        lanes::mul_sub(qa, qb, qc),
                        lanes::negative_mul_sub(qa, qb, qc),
                    ],
                ),
                (
                    "lane by lane: ",
                    [
                        one_by_one::add(qa, qb),
                        one_by_one::sub(qa, qb),
                        one_by_one::mul(qa, qb),
                        one_by_one::mul_add(qa, qb, qc),
                        one_by_one::mul_sub(qa, qb, qc),
                        one_by_one::negative_mul_sub(qa, qb, qc),
                    ],
                ),
            ];
            for lane in 0..4 {
                let (a, b, c) = (a[lane], b[lane], c[lane]);
                let wants = [
                    ("fa", reference_add(a, b)),
                    ("fs", reference_sub(a, b)),
                    ("fm", reference_mul(a, b)),
                    ("fma", reference_mul_add(a, b, c)),
                    ("fms", reference_mul_sub(a, b, c)),
                    ("fnms", reference_negative_mul_sub(a, b, c)),
                ];
                for (form, results) in forms {
                    for (result, (name, want)) in results.into_iter().zip(wants) {
                        let got = result.words()[lane];
                        assert_eq!(got, want, "{form}{name} {a:#x} {b:#x} {c:#x} (lane {lane})");
                    }
                }
            }
        }
        // On a host with a vector form most one-band rounds take it; elsewhere none can.
        if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) {
            assert!(
                whole_register > 30_000,
                "{whole_register} rounds in the vector form"
            );
        }
    }

    /// Every scale, with words biased towards the ends of both integer ranges and towards
    /// few significant bits (exact conversions) and many (truncated ones).
    #[test]
    fn fixed_point_conversions_match_the_general_model() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for scale in 0..=255u8 {
            for _ in 0..256 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let random = (state >> 16) as u32;
                let words = [
                    random,
                    random >> (state & 31),
                    0x8000_0000 | (random & 0xff),
                    [0, 1, u32::MAX, 0x7fff_ffff][(state >> 40) as usize & 3],
                ];
                let signed = lanes::from_signed_fixed(Quadword::from_words(words), scale);
                let unsigned = lanes::from_unsigned_fixed(Quadword::from_words(words), scale);
                for (lane, word) in words.into_iter().enumerate() {
                    let want = reference_from_signed_fixed(word, scale);
                    assert_eq!(signed.words()[lane], want, "csflt {word:#x}, {scale}");
                    let want = reference_from_unsigned_fixed(word, scale);
                    assert_eq!(unsigned.words()[lane], want, "cuflt {word:#x}, {scale}");
                }
            }
        }
    }

    #[test]
    fn truncates_instead_of_rounding() {
        // 1 + 2^-24 + 2^-24... : 1.0 + 0x33ffffff (just under 2^-23) stays 1.0 when truncated.
        assert_eq!(add(0x3f80_0000, 0x33ff_ffff), 0x3f80_0000);
        // 1/3 × 3 truncates to the value just below 1.0.
        assert_eq!(mul(0x3eaa_aaab, 0x4040_0000), 0x3f80_0000);
        assert_eq!(mul(0x3eaa_aaaa, 0x4040_0000), 0x3f7f_ffff);
    }
}
