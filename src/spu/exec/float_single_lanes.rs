//! The SP arithmetic (`fa`, `fs`, `fm`, `fma`, `fms`, `fnms`) and the conversions from
//! fixed point (`csflt`, `cuflt`) on whole registers, through the host's binary64 (see
//! `float_single_host`). The fused forms are fused: the product is not rounded before the
//! addition.
//!
//! The arithmetic has two forms: [`whole`], on the host's vector unit for
//! registers of ordinary operands, and [`lane_by_lane`] for any. The
//! interpreter tries the first and falls back on the second, inlined or called (the copies
//! in [`called`]) as the interpreter's `INLINE_SP` says (`instructions::dispatch`); the
//! run loops' handlers reach the second through a handler of its own, by a tail call
//! (`instructions::handlers`).

use super::float_single_host as host;
use crate::spu::exec::Quadword;

/// `$f` on the corresponding words of the quadwords, spelled out lane by lane: four
/// inlined copies (mapping a function over the words, or passing it to a helper, left a
/// call per lane).
macro_rules! each_lane {
    ($f:path, $a:expr, $b:expr) => {{
        let (a, b) = ($a.words_in_host_order(), $b.words_in_host_order());
        Quadword::from_words_in_host_order([
            $f(a[0], b[0]),
            $f(a[1], b[1]),
            $f(a[2], b[2]),
            $f(a[3], b[3]),
        ])
    }};
    ($f:path, $a:expr, $b:expr, $c:expr) => {{
        let (a, b, c) = (
            $a.words_in_host_order(),
            $b.words_in_host_order(),
            $c.words_in_host_order(),
        );
        Quadword::from_words_in_host_order([
            $f(a[0], b[0], c[0]),
            $f(a[1], b[1], c[1]),
            $f(a[2], b[2], c[2]),
            $f(a[3], b[3], c[3]),
        ])
    }};
}

/// The arithmetic on whole registers of ordinary operands on the host's vector unit, or
/// `None` (see `vector_lanes::single_precision`).
pub(super) use super::vector_lanes::single_precision as whole;

/// The arithmetic lane by lane, for any operands (`float_single_host`).
pub mod lane_by_lane {
    use super::host;
    use crate::spu::exec::Quadword;

    /// `fa` on every lane.
    #[inline(always)]
    pub fn add(a: Quadword, b: Quadword) -> Quadword {
        each_lane!(host::add, a, b)
    }

    /// `fs` on every lane.
    #[inline(always)]
    pub fn sub(a: Quadword, b: Quadword) -> Quadword {
        each_lane!(host::sub, a, b)
    }

    /// `fm` on every lane.
    #[inline(always)]
    pub fn mul(a: Quadword, b: Quadword) -> Quadword {
        each_lane!(host::mul, a, b)
    }

    /// `fma` on every lane.
    #[inline(always)]
    pub fn mul_add(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
        each_lane!(host::mul_add, a, b, c)
    }

    /// `fms` on every lane.
    #[inline(always)]
    pub fn mul_sub(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
        each_lane!(host::mul_sub, a, b, c)
    }

    /// `fnms` on every lane.
    #[inline(always)]
    pub fn negative_mul_sub(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
        each_lane!(host::negative_mul_sub, a, b, c)
    }
}

/// `fa` on every lane as the interpreter computes it: the vector form, else lane by lane.
#[cfg(test)]
pub fn add(a: Quadword, b: Quadword) -> Quadword {
    whole::add(a, b).unwrap_or_else(|| lane_by_lane::add(a, b))
}

/// `fs` on every lane as the interpreter computes it: the vector form, else lane by lane.
#[cfg(test)]
pub fn sub(a: Quadword, b: Quadword) -> Quadword {
    whole::sub(a, b).unwrap_or_else(|| lane_by_lane::sub(a, b))
}

/// `fm` on every lane as the interpreter computes it: the vector form, else lane by lane.
#[cfg(test)]
pub fn mul(a: Quadword, b: Quadword) -> Quadword {
    whole::mul(a, b).unwrap_or_else(|| lane_by_lane::mul(a, b))
}

/// `fma` on every lane as the interpreter computes it: the vector form, else lane by lane.
#[cfg(test)]
pub fn mul_add(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
    whole::mul_add(a, b, c).unwrap_or_else(|| lane_by_lane::mul_add(a, b, c))
}

/// `fms` on every lane as the interpreter computes it: the vector form, else lane by lane.
#[cfg(test)]
pub fn mul_sub(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
    whole::mul_sub(a, b, c).unwrap_or_else(|| lane_by_lane::mul_sub(a, b, c))
}

/// `fnms` on every lane as the interpreter computes it: the vector form, else lane by lane.
#[cfg(test)]
pub fn negative_mul_sub(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
    whole::negative_mul_sub(a, b, c).unwrap_or_else(|| lane_by_lane::negative_mul_sub(a, b, c))
}

/// `csflt` on every lane.
#[inline(always)]
pub fn from_signed_fixed(a: Quadword, i8_field: u8) -> Quadword {
    Quadword::from_words_in_host_order(
        a.words_in_host_order()
            .map(|word| host::from_signed_fixed(word, i8_field)),
    )
}

/// `cuflt` on every lane.
#[inline(always)]
pub fn from_unsigned_fixed(a: Quadword, i8_field: u8) -> Quadword {
    Quadword::from_words_in_host_order(
        a.words_in_host_order()
            .map(|word| host::from_unsigned_fixed(word, i8_field)),
    )
}

/// The lane-by-lane forms and the conversions behind a call each, for the interpreters
/// that compile better without them inlined (`INLINE_SP` in `instructions::dispatch`).
pub mod called {
    use super::lane_by_lane;
    use crate::spu::exec::Quadword;

    /// [`lane_by_lane::add`], called.
    #[inline(never)]
    pub fn add(a: Quadword, b: Quadword) -> Quadword {
        lane_by_lane::add(a, b)
    }

    /// [`lane_by_lane::sub`], called.
    #[inline(never)]
    pub fn sub(a: Quadword, b: Quadword) -> Quadword {
        lane_by_lane::sub(a, b)
    }

    /// [`lane_by_lane::mul`], called.
    #[inline(never)]
    pub fn mul(a: Quadword, b: Quadword) -> Quadword {
        lane_by_lane::mul(a, b)
    }

    /// [`lane_by_lane::mul_add`], called.
    #[inline(never)]
    pub fn mul_add(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
        lane_by_lane::mul_add(a, b, c)
    }

    /// [`lane_by_lane::mul_sub`], called.
    #[inline(never)]
    pub fn mul_sub(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
        lane_by_lane::mul_sub(a, b, c)
    }

    /// [`lane_by_lane::negative_mul_sub`], called.
    #[inline(never)]
    pub fn negative_mul_sub(a: Quadword, b: Quadword, c: Quadword) -> Quadword {
        lane_by_lane::negative_mul_sub(a, b, c)
    }

    /// [`from_signed_fixed`](super::from_signed_fixed), called.
    #[inline(never)]
    pub fn from_signed_fixed(a: Quadword, i8_field: u8) -> Quadword {
        super::from_signed_fixed(a, i8_field)
    }

    /// [`from_unsigned_fixed`](super::from_unsigned_fixed), called.
    #[inline(never)]
    pub fn from_unsigned_fixed(a: Quadword, i8_field: u8) -> Quadword {
        super::from_unsigned_fixed(a, i8_field)
    }
}
