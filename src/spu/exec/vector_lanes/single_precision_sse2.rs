//! The SPU's single-precision arithmetic on a whole register with SSE2, for ordinary
//! operands: every lane a binary32 normal number (exponent field 1..=254) and every result
//! one too. Anything else (a zero, an extended-range value with exponent field 255, a result
//! beyond binary32's normal range, a sum of values too far apart to be exact) is `None`, for
//! the caller's lane-by-lane form (`float_single_host`).
//!
//! The rules are those of the lane-by-lane form: an ordinary SP value converts to binary64
//! exactly (`cvtps2pd`), a product of two has at most 48 significant bits and is exact, a sum
//! of two at most 28 binades apart is exact, and a fused product-sum gets its binary64
//! rounding error from TwoSum. Truncation is clearing the 29 binary64 fraction bits below
//! the SP fraction, after stepping an on-grid sum one SP place towards zero when its
//! rounding error points that way. A truncated binary64 value inside binary32's normal range
//! converts back (`cvtpd2ps`) without rounding; outside it the conversion gives an infinity,
//! a denormal, zero or (rounding up from just below the range) the smallest normal
//! magnitude, which the result check refuses.
//!
//! Per register this is about forty vector instructions and one predicted branch, where the
//! lane-by-lane form runs four lanes of scalar steps with their branches.

use super::super::quadword::Quadword;
use safe_arch::{
    add_m128d, bitand_m128d, bitand_m128i, bitandnot_m128i, bitor_m128i, bitxor_m128d,
    bitxor_m128i, cast_to_m128_from_m128i, cast_to_m128d_from_m128i, cast_to_m128i_from_m128,
    cast_to_m128i_from_m128d, cmp_eq_mask_i32_m128i, cmp_gt_mask_i32_m128i, cmp_lt_mask_m128d,
    cmp_neq_mask_m128d, convert_to_m128_from_m128d, convert_to_m128d_from_lower2_m128, m128, m128d,
    m128i, move_low_high_m128, move_mask_i8_m128i, mul_m128d, set_splat_i32_m128i, set_splat_m128d,
    shr_all_u32_m128i, sub_i32_m128i, sub_i64_m128i, sub_m128d, unpack_high_i64_m128i,
};

/// The binary64 bits below an SP fraction's last bit (the low 29 of every 64-bit lane).
const BELOW_SP_GRID: u128 = ((1 << 29) - 1) | (((1 << 29) - 1) << 64);

/// One SP place in binary64's fraction field, in both 64-bit lanes.
const SP_PLACE: u128 = (1 << 29) | (1 << 93);

/// The exponent distance up to which the binary64 sum of two SP values is exact.
const EXACT_SUM_DISTANCE: i32 = 28;

#[inline(always)]
fn vector(value: Quadword) -> m128i {
    m128i::from(value.0)
}

#[inline(always)]
fn constant(value: u128) -> m128i {
    m128i::from(value)
}

/// All ones in the lanes whose exponent field is 0 (zeros and what IEEE calls denormals, all
/// zero to the SPU). The other end needs no test of its own: an operand with exponent field
/// 255 is an infinity or a NaN to the host, and so is every result it reaches, which
/// [`accepted`] refuses.
#[inline(always)]
fn zero_exponent(x: m128i) -> m128i {
    cmp_eq_mask_i32_m128i(
        bitand_m128i(x, set_splat_i32_m128i(0x7f80_0000)),
        constant(0),
    )
}

/// All ones in the lanes whose exponent fields are more than [`EXACT_SUM_DISTANCE`] apart.
#[inline(always)]
fn far(a: m128i, b: m128i) -> m128i {
    let field = |x| {
        bitand_m128i(
            shr_all_u32_m128i(x, m128i::from(23u128)),
            set_splat_i32_m128i(0xff),
        )
    };
    let distance = sub_i32_m128i(field(a), field(b));
    let above = cmp_gt_mask_i32_m128i(distance, set_splat_i32_m128i(EXACT_SUM_DISTANCE));
    let below = cmp_gt_mask_i32_m128i(set_splat_i32_m128i(-EXACT_SUM_DISTANCE), distance);
    bitor_m128i(above, below)
}

/// Lanes 0 and 1 widened to binary64.
#[inline(always)]
fn low_pair(x: m128i) -> m128d {
    convert_to_m128d_from_lower2_m128(cast_to_m128_from_m128i(x))
}

/// Lanes 2 and 3 widened to binary64.
#[inline(always)]
fn high_pair(x: m128i) -> m128d {
    low_pair(unpack_high_i64_m128i(x, x))
}

/// Both pairs' binary64 values, already on the SP grid, back in one register of binary32.
#[inline(always)]
fn narrowed(low: m128d, high: m128d) -> m128i {
    let low: m128 = convert_to_m128_from_m128d(low);
    let high: m128 = convert_to_m128_from_m128d(high);
    cast_to_m128i_from_m128(move_low_high_m128(low, high))
}

/// An exact binary64 value chopped to the SP grid.
#[inline(always)]
fn chopped(value: m128d) -> m128d {
    bitand_m128d(value, cast_to_m128d_from_m128i(constant(!BELOW_SP_GRID)))
}

/// Whether any register takes the vector form: yes, registers of ordinary operands.
pub const AVAILABLE: bool = true;

/// `result` when no lane of `refused` is set and every lane of `result` lies strictly between
/// the smallest normal magnitude and binary32's infinity: `cvtpd2ps` rounds a value just
/// below the normal range to nearest, which may be the smallest normal magnitude, where the
/// SPU's result is zero.
#[inline(always)]
fn accepted(result: m128i, refused: m128i) -> Option<Quadword> {
    let magnitude = bitand_m128i(result, set_splat_i32_m128i(i32::MAX));
    let above = cmp_gt_mask_i32_m128i(magnitude, set_splat_i32_m128i(0x0080_0000));
    let below = cmp_gt_mask_i32_m128i(set_splat_i32_m128i(0x7f80_0000), magnitude);
    let checks = bitandnot_m128i(refused, bitand_m128i(above, below));
    (move_mask_i8_m128i(checks) == 0xffff).then(|| Quadword(u128::from(result)))
}

/// The sign bit of every word.
#[inline(always)]
fn signs() -> m128i {
    set_splat_i32_m128i(i32::MIN)
}

/// `a + b` per lane (`fa`), or `None` for other operands (see the module documentation).
#[inline(always)]
pub fn add(a: Quadword, b: Quadword) -> Option<Quadword> {
    sum(vector(a), vector(b))
}

/// `a - b` per lane (`fs`), or `None`.
#[inline(always)]
pub fn sub(a: Quadword, b: Quadword) -> Option<Quadword> {
    sum(vector(a), bitxor_m128i(vector(b), signs()))
}

#[inline(always)]
fn sum(a: m128i, b: m128i) -> Option<Quadword> {
    let refused = bitor_m128i(bitor_m128i(zero_exponent(a), zero_exponent(b)), far(a, b));
    let low = chopped(add_m128d(low_pair(a), low_pair(b)));
    let high = chopped(add_m128d(high_pair(a), high_pair(b)));
    accepted(narrowed(low, high), refused)
}

/// `a × b` per lane (`fm`), or `None`.
#[inline(always)]
pub fn mul(a: Quadword, b: Quadword) -> Option<Quadword> {
    let (a, b) = (vector(a), vector(b));
    let refused = bitor_m128i(zero_exponent(a), zero_exponent(b));
    let low = chopped(mul_m128d(low_pair(a), low_pair(b)));
    let high = chopped(mul_m128d(high_pair(a), high_pair(b)));
    accepted(narrowed(low, high), refused)
}

/// `a × b + c` per lane (`fma`), or `None`.
#[inline(always)]
pub fn mul_add(a: Quadword, b: Quadword, c: Quadword) -> Option<Quadword> {
    fused(vector(a), vector(b), vector(c))
}

/// `a × b - c` per lane (`fms`), or `None`.
#[inline(always)]
pub fn mul_sub(a: Quadword, b: Quadword, c: Quadword) -> Option<Quadword> {
    fused(vector(a), vector(b), bitxor_m128i(vector(c), signs()))
}

/// `c - a × b` per lane (`fnms`), or `None`: `(-a) × b + c`, the same exact value.
#[inline(always)]
pub fn negative_mul_sub(a: Quadword, b: Quadword, c: Quadword) -> Option<Quadword> {
    fused(bitxor_m128i(vector(a), signs()), vector(b), vector(c))
}

#[inline(always)]
fn fused(a: m128i, b: m128i, c: m128i) -> Option<Quadword> {
    let refused = bitor_m128i(
        bitor_m128i(zero_exponent(a), zero_exponent(b)),
        zero_exponent(c),
    );
    let low = truncated_sum(mul_m128d(low_pair(a), low_pair(b)), low_pair(c));
    let high = truncated_sum(mul_m128d(high_pair(a), high_pair(b)), high_pair(c));
    accepted(narrowed(low, high), refused)
}

/// `p + c` of two exact binary64 values, chopped to the SP grid: TwoSum gives the binary64
/// sum's rounding error; a sum that rounded onto the grid from below it in magnitude steps
/// one SP place towards zero (clearing the fraction bits below the grid then does the rest).
#[inline(always)]
fn truncated_sum(p: m128d, c: m128d) -> m128d {
    let sum = add_m128d(p, c);
    let c_part = sub_m128d(sum, p);
    let error = add_m128d(sub_m128d(p, sub_m128d(sum, c_part)), sub_m128d(c, c_part));
    let zero = set_splat_m128d(0.0);
    let opposite = bitxor_m128d(cmp_lt_mask_m128d(error, zero), cmp_lt_mask_m128d(sum, zero));
    let toward_zero =
        cast_to_m128i_from_m128d(bitand_m128d(cmp_neq_mask_m128d(error, zero), opposite));
    let bits = cast_to_m128i_from_m128d(sum);
    // The bits below the grid, and the SP place, are in each 64-bit lane's low word, so the
    // word compare's low half is the lane's test.
    let on_grid = cmp_eq_mask_i32_m128i(bitand_m128i(bits, constant(BELOW_SP_GRID)), constant(0));
    let step = bitand_m128i(bitand_m128i(on_grid, toward_zero), constant(SP_PLACE));
    chopped(cast_to_m128d_from_m128i(sub_i64_m128i(bits, step)))
}
