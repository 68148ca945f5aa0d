//! SPU double-precision floating point: IEEE 754 binary64 with round-to-nearest-even.
//!
//! Model choices (the SPU ISA leaves the FPSCR out of this simple model):
//! - the rounding mode is always round-to-nearest-even and no status flag is recorded;
//! - denormal operands and results are handled as IEEE 754 specifies (the Cell BE hardware
//!   flushes DP denormals; PowerXCell 8i does not — this model follows IEEE);
//! - every NaN result is the default quiet NaN `0x7ff8_0000_0000_0000`;
//! - the fused forms (`dfma`, `dfms`, `dfnma`, `dfnms`) round once.
//!
//! Values are `u64` bit patterns; plain add/sub/mul use the host's IEEE operations (which
//! round to nearest even), the fused forms use the exact arithmetic of `float_exact`.

use super::float_exact::Exact;

/// The default NaN every DP operation returns for a NaN result.
pub const DEFAULT_NAN: u64 = 0x7ff8_0000_0000_0000;
/// The default NaN for SP results of `frds`.
pub const DEFAULT_SP_NAN: u32 = 0x7fc0_0000;

const SIGN: u64 = 1 << 63;
const INFINITY: u64 = 0x7ff0_0000_0000_0000;

fn canonical(bits: u64) -> u64 {
    if f64::from_bits(bits).is_nan() {
        DEFAULT_NAN
    } else {
        bits
    }
}

/// `a + b` (`dfa`).
pub fn add(a: u64, b: u64) -> u64 {
    canonical((f64::from_bits(a) + f64::from_bits(b)).to_bits())
}

/// `a - b` (`dfs`).
pub fn sub(a: u64, b: u64) -> u64 {
    canonical((f64::from_bits(a) - f64::from_bits(b)).to_bits())
}

/// `a × b` (`dfm`).
pub fn mul(a: u64, b: u64) -> u64 {
    canonical((f64::from_bits(a) * f64::from_bits(b)).to_bits())
}

fn unpack_finite(bits: u64) -> Exact {
    let exponent_field = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, exponent) = if exponent_field == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exponent_field - 1075)
    };
    Exact {
        negative: bits & SIGN != 0,
        exponent,
        mantissa: u128::from(mantissa),
    }
}

/// Rounds a non-zero exact value to nearest-even binary64 (with gradual underflow).
fn pack_nearest(value: Exact) -> u64 {
    let sign = if value.negative { SIGN } else { 0 };
    let Some(msb) = value.msb() else {
        return 0;
    };
    let unbiased = i64::from(value.exponent) + i64::from(msb);
    // The quantum (weight of the last kept bit): 2^(unbiased - 52) for normals, 2^-1074 below.
    let quantum_exponent = (unbiased - 52).max(-1074);
    let drop = quantum_exponent - i64::from(value.exponent);
    let rounded = if drop <= 0 {
        // Exact: shifting left by at most 52 + ... bits keeps the value below 2^53.
        value.mantissa << (-drop).min(127)
    } else if drop >= 128 {
        0
    } else {
        let drop = drop as u32;
        let kept = value.mantissa >> drop;
        let remainder = value.mantissa & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        if remainder > half || (remainder == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    // `rounded × 2^quantum_exponent`; a carry to 2^53 moves up one binade.
    let (significand, quantum_exponent) = if rounded >> 53 != 0 {
        (rounded >> 1, quantum_exponent + 1)
    } else {
        (rounded, quantum_exponent)
    };
    if significand >> 52 == 0 {
        // Subnormal (or zero): the exponent field is 0 and the quantum is 2^-1074.
        return sign | significand as u64;
    }
    let biased = quantum_exponent + 52 + 1023;
    if biased >= 0x7ff {
        return sign | INFINITY;
    }
    sign | ((biased as u64) << 52) | (significand as u64 & ((1 << 52) - 1))
}

/// `a × b + c` rounded once.
pub fn fused_mul_add(a: u64, b: u64, c: u64) -> u64 {
    let (fa, fb, fc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    if fa.is_nan() || fb.is_nan() || fc.is_nan() {
        return DEFAULT_NAN;
    }
    let product_negative = (a ^ b) & SIGN != 0;
    if fa.is_infinite() || fb.is_infinite() {
        if fa == 0.0 || fb == 0.0 {
            return DEFAULT_NAN;
        }
        if fc.is_infinite() && (c & SIGN != 0) != product_negative {
            return DEFAULT_NAN;
        }
        return if product_negative {
            SIGN | INFINITY
        } else {
            INFINITY
        };
    }
    if fc.is_infinite() {
        return c;
    }
    if fa == 0.0 || fb == 0.0 {
        // The product is an exact signed zero; IEEE zero-sum rules apply.
        if fc == 0.0 {
            let c_negative = c & SIGN != 0;
            return if product_negative && c_negative {
                SIGN
            } else {
                0
            };
        }
        return c;
    }
    let product = unpack_finite(a).mul(unpack_finite(b));
    let sum = product.add(unpack_finite(c));
    if sum.is_zero() {
        return 0;
    }
    pack_nearest(sum)
}

/// Negates a DP result, keeping NaN results at the default NaN.
pub fn negate(bits: u64) -> u64 {
    if f64::from_bits(bits).is_nan() {
        DEFAULT_NAN
    } else {
        bits ^ SIGN
    }
}

/// `dfma`: `a × b + t`.
pub fn dfma(a: u64, b: u64, t: u64) -> u64 {
    fused_mul_add(a, b, t)
}

/// `dfms`: `a × b - t`.
pub fn dfms(a: u64, b: u64, t: u64) -> u64 {
    fused_mul_add(a, b, negate(t))
}

/// `dfnms`: `-(a × b - t)`.
pub fn dfnms(a: u64, b: u64, t: u64) -> u64 {
    negate(fused_mul_add(a, b, negate(t)))
}

/// `dfnma`: `-(a × b + t)`.
pub fn dfnma(a: u64, b: u64, t: u64) -> u64 {
    negate(fused_mul_add(a, b, t))
}

/// `dfceq`: IEEE equality (+0 equals -0, NaN equals nothing).
pub fn equal(a: u64, b: u64) -> bool {
    f64::from_bits(a) == f64::from_bits(b)
}

/// `dfcmeq`: equality of magnitudes.
pub fn magnitude_equal(a: u64, b: u64) -> bool {
    f64::from_bits(a & !SIGN) == f64::from_bits(b & !SIGN)
}

/// `dfcgt`: IEEE `a > b` (false for NaN).
pub fn greater(a: u64, b: u64) -> bool {
    f64::from_bits(a) > f64::from_bits(b)
}

/// `dfcmgt`: `|a| > |b|` (false for NaN).
pub fn magnitude_greater(a: u64, b: u64) -> bool {
    f64::from_bits(a & !SIGN) > f64::from_bits(b & !SIGN)
}

/// `dftsv` class bits of the 7-bit immediate (bit 0x40 is the leftmost bit of I7); the same
/// values as the `SPU_SV_*` constants of the SDK's `spu_intrinsics.h` (`spu_testsv`).
pub mod test_class {
    /// Not a number.
    pub const NAN: u8 = 0x40;
    /// Positive infinity.
    pub const POSITIVE_INFINITY: u8 = 0x20;
    /// Negative infinity.
    pub const NEGATIVE_INFINITY: u8 = 0x10;
    /// Positive zero.
    pub const POSITIVE_ZERO: u8 = 0x08;
    /// Negative zero.
    pub const NEGATIVE_ZERO: u8 = 0x04;
    /// Positive denormal.
    pub const POSITIVE_DENORMAL: u8 = 0x02;
    /// Negative denormal.
    pub const NEGATIVE_DENORMAL: u8 = 0x01;
}

/// `dftsv`: true when `a` belongs to any class selected in `classes` (see [`test_class`]).
pub fn test_special_value(a: u64, classes: u8) -> bool {
    let negative = a & SIGN != 0;
    let exponent = (a >> 52) & 0x7ff;
    let fraction = a & ((1 << 52) - 1);
    let class = match (exponent, fraction == 0, negative) {
        (0x7ff, false, _) => test_class::NAN,
        (0x7ff, true, false) => test_class::POSITIVE_INFINITY,
        (0x7ff, true, true) => test_class::NEGATIVE_INFINITY,
        (0, true, false) => test_class::POSITIVE_ZERO,
        (0, true, true) => test_class::NEGATIVE_ZERO,
        (0, false, false) => test_class::POSITIVE_DENORMAL,
        (0, false, true) => test_class::NEGATIVE_DENORMAL,
        _ => 0,
    };
    class & classes != 0
}

/// `fesd`: extends an IEEE single to double (exact; NaN gives the default NaN).
pub fn extend_single(a: u32) -> u64 {
    canonical(f64::from(f32::from_bits(a)).to_bits())
}

/// `frds`: rounds a double to single, nearest-even (NaN gives the default SP NaN).
pub fn round_to_single(a: u64) -> u32 {
    let value = f64::from_bits(a);
    if value.is_nan() {
        DEFAULT_SP_NAN
    } else {
        (value as f32).to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_rounds_once() {
        // (1 + 2^-52) × (1 - 2^-52) = 1 - 2^-104; plus -1 gives -2^-104 exactly when fused
        // (an unfused multiply would round the product to 1.0 and give 0).
        let a = 1.0f64 + f64::EPSILON;
        let b = 1.0f64 - f64::EPSILON;
        let result = f64::from_bits(fused_mul_add(a.to_bits(), b.to_bits(), (-1.0f64).to_bits()));
        let two_to_minus_104 = f64::from_bits((1023 - 104) << 52);
        assert_eq!(result, -two_to_minus_104);
    }
}
