//! Near-exact binary floating-point arithmetic shared by the SP and DP models.
//!
//! The SPU's single-precision unit truncates and has an extended exponent range, and its
//! double-precision fused multiply-adds round once; neither matches the host FPU. Both are
//! modelled by computing `sign × mantissa × 2^exponent` in a `u128`, then rounding once in the
//! target format.
//!
//! Why one extra "sticky" bit is enough: when an addend is shifted right and bits fall off,
//! the lost bits are OR-ed ("jammed") into bit 0. The computed result is then an odd integer
//! (in units of bit 0) within one unit of the true result, so no rounding boundary at bit 1 or
//! above can lie between them; every rounding position used below is far above bit 1.

/// `(-1)^negative × mantissa × 2^exponent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Exact {
    pub negative: bool,
    pub exponent: i32,
    pub mantissa: u128,
}

/// Position the most significant mantissa bit is aligned to before an addition. Inputs have at
/// most 106 significant bits (a DP product), so aligning to bit 120 only shifts left, and a sum
/// still fits below bit 127.
const ALIGN_BIT: u32 = 120;

impl Exact {
    pub const ZERO: Exact = Exact {
        negative: false,
        exponent: 0,
        mantissa: 0,
    };

    pub fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    /// The value with the opposite sign (the SP operations now use their own 64-bit core;
    /// their tests still compare against this model).
    #[cfg(test)]
    pub fn negate(self) -> Exact {
        Exact {
            negative: !self.negative,
            ..self
        }
    }

    /// Exact product; callers pass mantissas of at most 64 bits each.
    pub fn mul(self, other: Exact) -> Exact {
        Exact {
            negative: self.negative != other.negative,
            exponent: self.exponent.saturating_add(other.exponent),
            mantissa: self.mantissa.wrapping_mul(other.mantissa),
        }
    }

    fn aligned(self) -> Exact {
        if self.mantissa == 0 {
            return self;
        }
        let msb = 127 - self.mantissa.leading_zeros();
        if msb <= ALIGN_BIT {
            let shift = ALIGN_BIT - msb;
            Exact {
                negative: self.negative,
                exponent: self.exponent.saturating_sub(shift as i32),
                mantissa: self.mantissa << shift,
            }
        } else {
            let shift = msb - ALIGN_BIT;
            Exact {
                negative: self.negative,
                exponent: self.exponent.saturating_add(shift as i32),
                mantissa: shift_right_jamming(self.mantissa, shift),
            }
        }
    }

    /// Sum with a jammed sticky bit (see the module comment). An exact zero sum is `+0`.
    pub fn add(self, other: Exact) -> Exact {
        if self.is_zero() {
            return other;
        }
        if other.is_zero() {
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
            Exact {
                negative: big.negative,
                exponent: big.exponent,
                mantissa: big.mantissa + small_mantissa,
            }
        } else {
            let mantissa = big.mantissa - small_mantissa;
            if mantissa == 0 {
                Exact::ZERO
            } else {
                Exact {
                    negative: big.negative,
                    exponent: big.exponent,
                    mantissa,
                }
            }
        }
    }

    /// Position of the most significant set bit; `None` for zero.
    pub fn msb(self) -> Option<u32> {
        if self.mantissa == 0 {
            None
        } else {
            Some(127 - self.mantissa.leading_zeros())
        }
    }
}

/// `value >> shift`, with any bit shifted out OR-ed into bit 0.
pub(crate) fn shift_right_jamming(value: u128, shift: u32) -> u128 {
    if shift == 0 {
        value
    } else if shift >= 128 {
        u128::from(value != 0)
    } else {
        let lost = value & ((1u128 << shift) - 1);
        (value >> shift) | u128::from(lost != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(negative: bool, mantissa: u128, exponent: i32) -> Exact {
        Exact {
            negative,
            exponent,
            mantissa,
        }
    }

    #[test]
    fn add_aligns_and_cancels() {
        // 3 × 2^0 + 1 × 2^1 = 5
        let sum = exact(false, 3, 0).add(exact(false, 1, 1));
        let value = sum.mantissa >> (-sum.exponent) as u32;
        assert_eq!(value, 5);
        // 4 - 4 = +0
        assert!(exact(false, 1, 2).add(exact(true, 4, 0)).is_zero());
    }

    #[test]
    fn jamming_keeps_lost_bits_visible() {
        assert_eq!(shift_right_jamming(0b1000, 3), 1);
        assert_eq!(shift_right_jamming(0b1001, 3), 1);
        assert_eq!(shift_right_jamming(0b10001, 3), 0b11);
        assert_eq!(shift_right_jamming(5, 200), 1);
        assert_eq!(shift_right_jamming(0, 200), 0);
    }
}
