//! Without a vector unit this module knows, every register's single-precision arithmetic
//! goes lane by lane (`float_single_host`): each operation here answers `None`.

use super::super::quadword::Quadword;

/// Whether any register takes the vector form: no.
pub const AVAILABLE: bool = false;

/// `fa` on a whole register: `None`, always.
#[inline(always)]
pub fn add(_: Quadword, _: Quadword) -> Option<Quadword> {
    None
}

/// `fs` on a whole register: `None`, always.
#[inline(always)]
pub fn sub(_: Quadword, _: Quadword) -> Option<Quadword> {
    None
}

/// `fm` on a whole register: `None`, always.
#[inline(always)]
pub fn mul(_: Quadword, _: Quadword) -> Option<Quadword> {
    None
}

/// `fma` on a whole register: `None`, always.
#[inline(always)]
pub fn mul_add(_: Quadword, _: Quadword, _: Quadword) -> Option<Quadword> {
    None
}

/// `fms` on a whole register: `None`, always.
#[inline(always)]
pub fn mul_sub(_: Quadword, _: Quadword, _: Quadword) -> Option<Quadword> {
    None
}

/// `fnms` on a whole register: `None`, always.
#[inline(always)]
pub fn negative_mul_sub(_: Quadword, _: Quadword, _: Quadword) -> Option<Quadword> {
    None
}
