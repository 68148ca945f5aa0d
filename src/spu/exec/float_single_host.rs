//! The SPU's single-precision arithmetic (`fa`, `fs`, `fm`, the fused multiply-adds and
//! `csflt`/`cuflt`) through the host's binary64: one hardware operation per lane where an
//! exact integer model needs a few dozen instructions.
//!
//! An SP operand with exponent field 1..=255 is `1.f × 2^(e - 127)` (255 is an ordinary
//! exponent on the SPU, the extended range), which binary64 holds exactly; field 0 is zero
//! (no denormals) and widens to `0.0`. A product of two
//! such values has at most 48 significant bits, so binary64 multiplication is exact. From an
//! exact binary64 result the SP result is its top 24 significant bits (truncation is
//! chopping the rest), with the SPU's range: below the smallest normal `+0`, beyond the
//! extended range the largest magnitude with the sign.
//!
//! The sum of two SP values (`fa`, `fs`) needs no rounding step: at most 28 binades apart
//! the binary64 sum is exact; farther apart the smaller one only decides whether the result
//! is the larger one or the SP value just below it in magnitude (see `sp_sum`). A fused
//! product-sum may round in binary64 (the product has up to 48 significant bits); the
//! error-free transformation *TwoSum* gives the rounding error exactly (under
//! round-to-nearest, which Rust's floating point always uses), and that is enough to
//! truncate the exact sum (see `truncated_sum`). A zero factor or a zero addend needs
//! neither (see `fused_sum`).
//!
//! A register whose lanes are all ordinary numbers, with ordinary results, goes to the
//! host's vector unit first (`vector_lanes::single_precision`, the same rules on two lanes
//! per binary64 vector); the rest comes here. The register-wide forms
//! (`float_single_lanes::lane_by_lane`) spell the four lanes out. The lane steps
//! keep their branches: operands of one kind (the benchmark loops' zeros and saturated
//! values, or ordinary numbers) take the same side lane after lane, so the branches are
//! predicted. A branchless form the compiler kept in vector registers ran 17% fewer host
//! instructions but took 13% more time on the stall loop (its latency chain is longer), and
//! a fast path for binary32-normal operands only added tests. Taking TwoSum out of the
//! sums of two SP values (and out of fused forms with a zero operand) took 20% off the
//! stall loop in instruction mode: TwoSum's five dependent binary64 operations cost
//! throughput even where the branch after them is predicted.
//!
//! On bare metal each lane function is one out-of-line copy that every lane calls: the
//! firmware image has a size budget (`tests/image_size.rs`), and four inlined lanes in each
//! register-wide form were 8 KiB of it.
//!
//! The unit tests of `float_single` compare these with a 128-bit exact model over a million
//! edge-biased operand triples.

/// The largest positive extended-range SP value, `(2 - 2^-23) × 2^128`.
pub const SP_MAX: u32 = 0x7fff_ffff;

/// The binary64 bits below an SP fraction's last bit.
const BELOW_SP_GRID: u64 = (1 << 29) - 1;

/// The exact binary64 value of an SP operand.
#[inline(always)]
fn widen(bits: u32) -> f64 {
    if (bits >> 23) & 0xff == 0 {
        return 0.0;
    }
    // Exponent and fraction move up to binary64's fields, the exponent rebiased.
    let sign = u64::from(bits >> 31) << 63;
    let magnitude = (u64::from(bits & 0x7fff_ffff) << 29) + ((1023 - 127) << 52);
    f64::from_bits(sign | magnitude)
}

/// `a + b` truncated into the SP format (TwoSum; see the module documentation).
#[inline(always)]
fn truncated_sum(a: f64, b: f64) -> u32 {
    let sum = a + b;
    let b_part = sum - a;
    let error = (a - (sum - b_part)) + (b - b_part);
    let bits = sum.to_bits();
    let on_grid = bits & BELOW_SP_GRID == 0;
    let toward_zero = error != 0.0 && (error < 0.0) != (sum < 0.0);
    if on_grid && toward_zero {
        narrow(f64::from_bits(bits - (1 << 29)))
    } else {
        narrow(sum)
    }
}

/// An exact binary64 value truncated into the SP format.
#[inline(always)]
fn narrow(value: f64) -> u32 {
    let bits = value.to_bits();
    let sign = (bits >> 32) as u32 & 0x8000_0000;
    let biased = ((bits >> 52) & 0x7ff) as i32 - 1023 + 127;
    if biased > 255 {
        return sign | SP_MAX;
    }
    if biased < 1 {
        return 0;
    }
    sign | ((biased as u32) << 23) | ((bits >> 29) as u32 & 0x007f_ffff)
}

/// The exponent distance up to which the binary64 sum of two SP values is exact: their
/// significands then span at most 52 bits, 53 with a carry.
const EXACT_SUM_DISTANCE: u32 = 28;

/// `a + b` of two SP values, truncated. Near in exponent (or with a zero) the binary64 sum
/// is exact and only narrowed. Farther apart, the smaller magnitude is below a 32nd of the
/// larger's last place: the truncated sum is the larger operand, or, with opposite signs,
/// the SP value just below it in magnitude (its magnitude bits minus one, which also steps
/// down a binade at a power of two). No TwoSum is needed for either.
#[inline(always)]
fn sp_sum(a: u32, b: u32) -> u32 {
    let (a_exponent, b_exponent) = ((a >> 23) & 0xff, (b >> 23) & 0xff);
    if a_exponent.abs_diff(b_exponent) <= EXACT_SUM_DISTANCE || is_zero(a) || is_zero(b) {
        return narrow(widen(a) + widen(b));
    }
    let (larger, smaller) = if a_exponent > b_exponent {
        (a, b)
    } else {
        (b, a)
    };
    if (larger ^ smaller) >> 31 == 0 {
        larger
    } else {
        larger - 1
    }
}

/// `a + b` (`fa`).
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
pub(super) fn add(a: u32, b: u32) -> u32 {
    sp_sum(a, b)
}

/// `a - b` (`fs`).
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
pub(super) fn sub(a: u32, b: u32) -> u32 {
    sp_sum(a, b ^ 0x8000_0000)
}

/// `a × b` (`fm`): always exact.
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
pub(super) fn mul(a: u32, b: u32) -> u32 {
    narrow(widen(a) * widen(b))
}

/// Whether an SP operand is zero (exponent field 0, whatever the fraction).
#[inline(always)]
fn is_zero(bits: u32) -> bool {
    bits & 0x7f80_0000 == 0
}

/// `product + addend` truncated, for the fused forms: `product` is the (possibly negated)
/// product of `a` and `b`, `addend` the SP operand with its sign as the form uses it. With
/// a zero factor the result is the addend itself (an SP value, or zero); with a zero addend
/// the exact product narrowed. Otherwise the sum may round in binary64: TwoSum.
#[inline(always)]
fn fused_sum(a: u32, b: u32, negate_product: bool, addend: u32) -> u32 {
    if is_zero(a) || is_zero(b) {
        return if is_zero(addend) { 0 } else { addend };
    }
    let product = widen(a) * widen(b);
    let product = if negate_product { -product } else { product };
    if is_zero(addend) {
        return narrow(product);
    }
    truncated_sum(product, widen(addend))
}

/// `a × b + c` (`fma`).
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
pub(super) fn mul_add(a: u32, b: u32, c: u32) -> u32 {
    fused_sum(a, b, false, c)
}

/// `a × b - c` (`fms`).
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
pub(super) fn mul_sub(a: u32, b: u32, c: u32) -> u32 {
    fused_sum(a, b, false, c ^ 0x8000_0000)
}

/// `c - a × b` (`fnms`).
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
pub(super) fn negative_mul_sub(a: u32, b: u32, c: u32) -> u32 {
    fused_sum(a, b, true, c)
}

/// `2^power` for `power` in binary64's normal range.
#[inline(always)]
fn power_of_two(power: i32) -> f64 {
    f64::from_bits(((power + 1023) as u64) << 52)
}

/// `csflt`: the signed word `a` times `2^(i8_field - 155)` (at most 31 significant bits
/// and exponents -155..=100, exact in binary64), truncated.
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
pub(super) fn from_signed_fixed(a: u32, i8_field: u8) -> u32 {
    narrow(f64::from(a as i32) * power_of_two(i32::from(i8_field) - 155))
}

/// `cuflt`: the unsigned word `a` times `2^(i8_field - 155)`, truncated.
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
pub(super) fn from_unsigned_fixed(a: u32, i8_field: u8) -> u32 {
    narrow(f64::from(a) * power_of_two(i32::from(i8_field) - 155))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: u32 = 0x3f80_0000;
    const THREE: u32 = 0x4040_0000;

    #[test]
    fn sums_products_zeros_and_the_range_ends() {
        assert_eq!(add(ONE, ONE), 0x4000_0000);
        assert_eq!(mul(THREE, 0x3eaa_aaab), ONE, "1/3 x 3 truncated");
        assert_eq!(mul_add(ONE, THREE, ONE), 0x4080_0000);
        // Exponent field 0 is zero, whatever the fraction; every zero result is +0.
        assert_eq!(mul(0x0000_1234, THREE), 0);
        assert_eq!(sub(ONE, ONE), 0);
        assert_eq!(add(0x8000_0000, 0x8000_0000), 0);
        // Extended range and results beyond it.
        assert_eq!(
            add(0x7f80_0000, 0x7f80_0000),
            SP_MAX,
            "2^128 + 2^128 saturates"
        );
        assert_eq!(mul(0x7f00_0000, 0x7f00_0000), SP_MAX);
        assert_eq!(mul(0x7f00_0000, 0xff00_0000), 0x8000_0000 | SP_MAX);
        assert_eq!(mul(0x7f80_0000, 0x3f00_0000), 0x7f00_0000, "2^128 / 2");
        // Below the normal range.
        assert_eq!(mul(0x0080_0000, 0x3f00_0000), 0);
        // 1 + 2^-60 rounds to 1 in binary64 (error away from zero): truncated, 1.
        assert_eq!(add(ONE, 0x2180_0000), ONE);
        // 1 - 2^-60 rounds to 1 (error toward zero): truncated, the SP value below 1.
        assert_eq!(sub(ONE, 0x2180_0000), 0x3f7f_ffff);
        // 2^-126 - 2^-252 rounds to 2^-126 and truncates below the normal range: +0.
        assert_eq!(negative_mul_sub(0x0080_0000, 0x0080_0000, 0x0080_0000), 0);
        // An exact sum below the normal range: +0.
        assert_eq!(sub(0x0080_0001, 0x0080_0000), 0);
        // A fused product-sum rounding at a power of two: 2^24 - 2^-30, truncated.
        assert_eq!(mul_add(0x4b80_0000, ONE, 0xb080_0000), 0x4b7f_ffff);
    }
}
