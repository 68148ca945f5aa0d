//! The arithmetic core of the SPU single-precision operations (`fa`, `fs`, `fm` and the fused
//! multiply-adds) in 64-bit integers.
//!
//! Same method as [`float_exact`](super::float_exact) (exact mantissa arithmetic, addends
//! aligned with a jammed sticky bit, one truncation at the end), sized for SP: operands have
//! 24 significant bits and a product at most 48, so aligning to bit 61 only ever shifts left
//! and a sum still fits below bit 63. The 128-bit general version costs several times more
//! per lane (128-bit shifts and leading-zero counts), and these operations are the SPU's
//! everyday arithmetic.

/// The largest positive extended-range SP value, `(2 - 2^-23) × 2^128`.
pub const SP_MAX: u32 = 0x7fff_ffff;

/// `(-1)^negative × mantissa × 2^exponent`, mantissa at most 63 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SingleExact {
    negative: bool,
    exponent: i32,
    mantissa: u64,
}

/// Bit the most significant mantissa bit is aligned to before an addition (see the module
/// comment for why 61 is safe).
const ALIGN_BIT: u32 = 61;

impl SingleExact {
    const ZERO: SingleExact = SingleExact {
        negative: false,
        exponent: 0,
        mantissa: 0,
    };

    /// Decodes an SP bit pattern (exponent field 0 reads as zero; 255 is an ordinary exponent).
    #[inline]
    pub(crate) fn unpack(bits: u32) -> SingleExact {
        let exponent_field = (bits >> 23) & 0xff;
        if exponent_field == 0 {
            return SingleExact::ZERO;
        }
        SingleExact {
            negative: bits >> 31 != 0,
            exponent: exponent_field as i32 - 127 - 23,
            mantissa: u64::from((bits & 0x007f_ffff) | 0x0080_0000),
        }
    }

    #[inline]
    pub(crate) fn negate(self) -> SingleExact {
        SingleExact {
            negative: !self.negative,
            ..self
        }
    }

    /// Exact product of two unpacked SP values (24 × 24 bits fit in 48).
    #[inline]
    pub(crate) fn mul(self, other: SingleExact) -> SingleExact {
        SingleExact {
            negative: self.negative != other.negative,
            exponent: self.exponent.saturating_add(other.exponent),
            mantissa: self.mantissa.wrapping_mul(other.mantissa),
        }
    }

    #[inline]
    fn aligned(self) -> SingleExact {
        if self.mantissa == 0 {
            return self;
        }
        let msb = 63 - self.mantissa.leading_zeros();
        if msb <= ALIGN_BIT {
            let shift = ALIGN_BIT - msb;
            SingleExact {
                negative: self.negative,
                exponent: self.exponent.saturating_sub(shift as i32),
                mantissa: self.mantissa << shift,
            }
        } else {
            let shift = msb - ALIGN_BIT;
            SingleExact {
                negative: self.negative,
                exponent: self.exponent.saturating_add(shift as i32),
                mantissa: shift_right_jamming(self.mantissa, shift),
            }
        }
    }

    /// Sum with a jammed sticky bit. An exact zero sum is `+0`.
    #[inline]
    pub(crate) fn add(self, other: SingleExact) -> SingleExact {
        if self.mantissa == 0 {
            return other;
        }
        if other.mantissa == 0 {
            return self;
        }
        let a = self.aligned();
        let b = other.aligned();
        let (big, small) = if (a.exponent, a.mantissa) >= (b.exponent, b.mantissa) {
            (a, b)
        } else {
            (b, a)
        };
        let distance = big.exponent.saturating_sub(small.exponent) as u32;
        let small_mantissa = shift_right_jamming(small.mantissa, distance);
        if big.negative == small.negative {
            SingleExact {
                negative: big.negative,
                exponent: big.exponent,
                mantissa: big.mantissa + small_mantissa,
            }
        } else {
            let mantissa = big.mantissa - small_mantissa;
            if mantissa == 0 {
                SingleExact::ZERO
            } else {
                SingleExact {
                    negative: big.negative,
                    exponent: big.exponent,
                    mantissa,
                }
            }
        }
    }

    /// Rounds toward zero into the extended-range SP format: below the normal range gives
    /// `+0`, beyond it the largest magnitude with the sign.
    #[inline]
    pub(crate) fn pack_truncating(self) -> u32 {
        if self.mantissa == 0 {
            return 0;
        }
        let msb = 63 - self.mantissa.leading_zeros();
        let sign = if self.negative { 0x8000_0000 } else { 0 };
        let biased = i64::from(self.exponent) + i64::from(msb) + 127;
        if biased > 255 {
            return sign | SP_MAX;
        }
        if biased < 1 {
            return 0;
        }
        let fraction = if msb >= 23 {
            (self.mantissa >> (msb - 23)) as u32
        } else {
            (self.mantissa << (23 - msb)) as u32
        } & 0x007f_ffff;
        sign | ((biased as u32) << 23) | fraction
    }
}

/// `value >> shift`, with any bit shifted out OR-ed into bit 0.
#[inline]
fn shift_right_jamming(value: u64, shift: u32) -> u64 {
    if shift == 0 {
        value
    } else if shift >= 64 {
        u64::from(value != 0)
    } else {
        let lost = value & ((1u64 << shift) - 1);
        (value >> shift) | u64::from(lost != 0)
    }
}
