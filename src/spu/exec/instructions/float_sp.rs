//! Single-precision instructions: `fa`, `fs`, `fm`, the fused `fma`/`fms`/`fnms`, the
//! compares, the fixed-point conversions, the reciprocal estimates and `fi`.
//!
//! SPU single precision is not IEEE 754 (truncation, no denormals, no infinities or NaNs):
//! the arithmetic and its rules are in `float_single`.

use super::super::float_estimate as estimate;
use super::super::float_single as sp;
use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;

/// `sp::lanes::$op(..)` inlined, or its copy in `sp::lanes::called`, as the interpreter's
/// `INLINE_SP` says (see [`apply`](super::apply)); the test is on a constant.
macro_rules! lanes {
    ($inline:ident, $op:ident($($arg:expr),*)) => {
        if $inline {
            sp::lanes::$op($($arg),*)
        } else {
            sp::lanes::called::$op($($arg),*)
        }
    };
}

/// All ones when `condition` holds (a compare's word result).
fn mask32(condition: bool) -> u32 {
    if condition { u32::MAX } else { 0 }
}

#[inline(always)]
pub(super) fn fa<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        lanes!(INLINE_SP, add(spu.ra(insn), spu.rb(insn))),
    )
}

#[inline(always)]
pub(super) fn fs<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        lanes!(INLINE_SP, sub(spu.ra(insn), spu.rb(insn))),
    )
}

#[inline(always)]
pub(super) fn fm<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        lanes!(INLINE_SP, mul(spu.ra(insn), spu.rb(insn))),
    )
}

#[inline(always)]
pub(super) fn fma<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        lanes!(INLINE_SP, mul_add(spu.ra(insn), spu.rb(insn), spu.rc(insn))),
    )
}

#[inline(always)]
pub(super) fn fms<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        lanes!(INLINE_SP, mul_sub(spu.ra(insn), spu.rb(insn), spu.rc(insn))),
    )
}

#[inline(always)]
pub(super) fn fnms<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        lanes!(
            INLINE_SP,
            negative_mul_sub(spu.ra(insn), spu.rb(insn), spu.rc(insn))
        ),
    )
}

// compares

#[inline(always)]
pub(super) fn fceq(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_words(spu.rb(insn), |x, y| mask32(sp::equal(x, y))),
    )
}

#[inline(always)]
pub(super) fn fcmeq(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_words(spu.rb(insn), |x, y| mask32(sp::magnitude_equal(x, y))),
    )
}

#[inline(always)]
pub(super) fn fcgt(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_words(spu.rb(insn), |x, y| mask32(sp::greater(x, y))),
    )
}

#[inline(always)]
pub(super) fn fcmgt(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_words(spu.rb(insn), |x, y| mask32(sp::magnitude_greater(x, y))),
    )
}

// conversions to and from fixed point (FP7); the I8 field gives the scale

#[inline(always)]
pub(super) fn cflts(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .map_words(|w| sp::to_signed_fixed(w, insn.imm() as u8)),
    )
}

#[inline(always)]
pub(super) fn cfltu(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .map_words(|w| sp::to_unsigned_fixed(w, insn.imm() as u8)),
    )
}

#[inline(always)]
pub(super) fn csflt<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        lanes!(INLINE_SP, from_signed_fixed(spu.ra(insn), insn.imm() as u8)),
    )
}

#[inline(always)]
pub(super) fn cuflt<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        lanes!(
            INLINE_SP,
            from_unsigned_fixed(spu.ra(insn), insn.imm() as u8)
        ),
    )
}

// estimates and interpolation

#[inline(always)]
pub(super) fn fi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn).zip_words(spu.rb(insn), estimate::interpolate),
    )
}

#[inline(always)]
pub(super) fn frest(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn).map_words(estimate::reciprocal_estimate),
    )
}

#[inline(always)]
pub(super) fn frsqest(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn).map_words(estimate::reciprocal_sqrt_estimate),
    )
}
