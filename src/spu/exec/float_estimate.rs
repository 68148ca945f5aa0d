//! `frest`, `frsqest` and `fi`: the SPU's table-driven estimates, bit for bit as a Cell does.
//!
//! The SPU ISA defines the result's form: an estimate is a single-precision value whose
//! fraction holds a 13-bit *base* (fraction bits 0..12, counted from the left: `0x007f_fc00`)
//! and a 10-bit *step* (the low bits, `0x0000_03ff`); `fi rt,ra,rb` interpolates between them
//! with the 19 low fraction bits of the original operand `a` (`Y`, `0x0007_ffff`):
//!
//! ```text
//! fraction(rt) = base - step × Y / 2^9      (truncated), sign and exponent from rb
//! ```
//!
//! The table values are not in the ISA book. They were measured on consoles and are published
//! as numbers by the RPCS3 emulator (`rpcs3/Emu/Cell/SPUThread.cpp`: `spu_frest_fraction_lut`,
//! `spu_frest_exponent_lut`, `spu_frsqest_fraction_lut`, `spu_frsqest_exponent_lut`); the
//! fraction tables are taken here as those facts, and the exponent tables, which are regular,
//! as the formulas below (equal to the published tables entry for entry, tested). A result
//! whose exponent field is zero makes `fi` return `+0` (the SPU has no denormals), which is
//! what the console recorded for the largest operands (`docs/spu-runtimes.md` has the
//! recording and how it was checked).

/// The fraction (base and step) of `frest`'s result, by the 5 fraction bits below the
/// exponent's (`(a >> 18) & 0x1f`).
const RECIPROCAL_FRACTIONS: [u32; 32] = [
    0x7F_FBE0, 0x7F_87A6, 0x70_EF72, 0x70_8B40, 0x63_8B12, 0x63_3AEA, 0x57_92C4, 0x57_4AA0,
    0x4C_CA7E, 0x4C_9262, 0x43_0A44, 0x42_D62A, 0x3A_2E12, 0x39_FDFA, 0x32_15E4, 0x31_F1D2,
    0x2A_A9BE, 0x2A_85AC, 0x23_D59A, 0x23_BD8E, 0x1D_8576, 0x1D_8576, 0x17_AD5A, 0x17_AD5A,
    0x12_4543, 0x12_4543, 0x0D_392D, 0x0D_392D, 0x08_851A, 0x08_851A, 0x04_1D07, 0x04_1D07,
];

/// The fraction of `frsqest`'s result, by the exponent's lowest bit and the 5 fraction bits
/// below it (`(a >> 18) & 0x3f`): odd exponents first.
const RECIPROCAL_SQRT_FRACTIONS: [u32; 64] = [
    0x35_0160, 0x34_E954, 0x2F_993D, 0x2F_993D, 0x2A_A523, 0x2A_A523, 0x26_190D, 0x26_190D,
    0x21_E4F9, 0x21_E4F9, 0x1E_00E9, 0x1E_00E9, 0x1A_5CD9, 0x1A_5CD9, 0x16_F8CB, 0x16_F8CB,
    0x13_CCC0, 0x13_CCC0, 0x10_CCB3, 0x10_CCB3, 0x0E_00AA, 0x0E_00AA, 0x0B_58A1, 0x0B_58A1,
    0x08_D498, 0x08_D498, 0x06_7491, 0x06_7491, 0x04_3089, 0x04_3089, 0x02_0C83, 0x02_0C83,
    0x7F_FDF4, 0x7F_D1DE, 0x78_59C8, 0x78_3DBA, 0x71_559C, 0x71_559C, 0x6A_E57C, 0x6A_E57C,
    0x64_F561, 0x64_F561, 0x5F_7149, 0x5F_7149, 0x5A_4D33, 0x5A_4D33, 0x55_811F, 0x55_811F,
    0x51_050F, 0x51_050F, 0x4C_C8FE, 0x4C_C8FE, 0x48_D0F0, 0x48_D0F0, 0x45_10E4, 0x45_10E4,
    0x41_80D7, 0x41_80D7, 0x3E_24CC, 0x3E_24CC, 0x3A_F4C3, 0x3A_F4C3, 0x37_E8BA, 0x37_E8BA,
];

/// Exponent field 0 (zero: the SPU has no denormals) estimates as the largest exponent.
const MAX_EXPONENT_FIELD: u32 = 0x7F80_0000;

const fn exponent_field(a: u32) -> u32 {
    (a >> 23) & 0xff
}

/// The sign and exponent of `frest`'s result for the operand's exponent field `e`: 1/2^(e-127)
/// has the field 253 - e (its fraction is below 1, hence one less than 254 - e); operands with
/// fields 253..255 give 0.
pub(crate) const fn reciprocal_exponent(e: u32) -> u32 {
    match e {
        0 => MAX_EXPONENT_FIELD,
        1..=252 => (253 - e) << 23,
        _ => 0,
    }
}

/// The exponent of `frsqest`'s result for the operand's exponent field `e`: 2^-(e-127)/2, one
/// field step per two of the operand's.
pub(crate) const fn reciprocal_sqrt_exponent(e: u32) -> u32 {
    if e == 0 {
        MAX_EXPONENT_FIELD
    } else {
        (0xBD - (e - 1) / 2) << 23
    }
}

/// `frest`: the reciprocal estimate of `a` in base/step form, with `a`'s sign.
pub fn reciprocal_estimate(a: u32) -> u32 {
    let fraction = RECIPROCAL_FRACTIONS[((a >> 18) & 0x1f) as usize];
    (a & 0x8000_0000) | reciprocal_exponent(exponent_field(a)) | fraction
}

/// `frsqest`: the reciprocal square-root estimate of `|a|` in base/step form.
pub fn reciprocal_sqrt_estimate(a: u32) -> u32 {
    let fraction = RECIPROCAL_SQRT_FRACTIONS[((a >> 18) & 0x3f) as usize];
    reciprocal_sqrt_exponent(exponent_field(a)) | fraction
}

/// `fi rt,ra,rb`: interpolates the estimate `b` (from `frest`/`frsqest`) for the operand `a`.
pub fn interpolate(a: u32, b: u32) -> u32 {
    if exponent_field(b) == 0 {
        return 0;
    }
    let base = b & 0x007F_FC00;
    let step = b & 0x0000_03FF;
    let y = a & 0x0007_FFFF;
    // base - step × y / 2^9, truncated: in units of 2^-32 first, then down to the fraction's
    // 2^-23. The table bases are large enough that the difference never goes negative.
    let scaled = (u64::from(base) << 9).saturating_sub(u64::from(step) * u64::from(y));
    (b & 0xFF80_0000) | (scaled >> 9) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exponent tables as RPCS3 publishes them, written out at their ends and a middle
    /// entry: the formulas must agree.
    #[test]
    fn exponent_formulas_match_the_published_tables() {
        let published_reciprocal = [
            (0, 0x7F80_0000),
            (1, 0x7E00_0000),
            (2, 0x7D80_0000),
            (127, 0x3F00_0000),
            (128, 0x3E80_0000),
            (251, 0x0100_0000),
            (252, 0x0080_0000),
            (253, 0),
            (254, 0),
            (255, 0),
        ];
        for (e, value) in published_reciprocal {
            assert_eq!(reciprocal_exponent(e), value, "frest exponent {e}");
        }
        let published_sqrt = [
            (0, 0x7F80_0000),
            (1, 0x5E80_0000),
            (2, 0x5E80_0000),
            (3, 0x5E00_0000),
            (125, 0x3F80_0000),
            (126, 0x3F80_0000),
            (127, 0x3F00_0000),
            (128, 0x3F00_0000),
            (254, 0x1F80_0000),
            (255, 0x1F00_0000),
        ];
        for (e, value) in published_sqrt {
            assert_eq!(reciprocal_sqrt_exponent(e), value, "frsqest exponent {e}");
        }
    }
}
