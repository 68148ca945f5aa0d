//! Single-precision instructions: `fa`, `fs`, `fm`, the fused `fma`/`fms`/`fnms`, the
//! compares, the fixed-point conversions, the reciprocal estimates and `fi`.
//!
//! SPU single precision is not IEEE 754 (truncation, no denormals, no infinities or NaNs):
//! the arithmetic and its rules are in `float_single`.

use super::super::float_estimate as estimate;
use super::super::float_single as sp;
use super::super::float_single_lanes as lanes;
use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;
use crate::spu::isa::Mnemonic;

/// `lanes::$op(..)` inlined, or its copy in `lanes::called`, as the interpreter's
/// `INLINE_SP` says (see [`apply`](super::apply)); the test is on a constant.
macro_rules! lanes {
    ($inline:ident, $op:ident($($arg:expr),*)) => {
        if $inline {
            lanes::$op($($arg),*)
        } else {
            lanes::called::$op($($arg),*)
        }
    };
}

/// Writes `$op` of the instruction's operand registers to RT: the whole-register vector form
/// (`lanes::whole`) when it takes the operands, else the lane-by-lane form inlined or
/// called as `INLINE_SP` says. Each form writes the register itself: with one write of either
/// form's result the compiler held the result as a 128-bit integer, stored it in two 64-bit
/// halves, and the next instruction's vector load of the register waited for both stores.
macro_rules! write_sp {
    ($inline:ident, $spu:ident, $insn:ident, $op:ident($($operand:ident),+)) => {{
        $(let $operand = $spu.$operand($insn);)+
        match lanes::whole::$op($($operand),+) {
            Some(result) => $spu.write($insn.rt(), result),
            None if $inline => $spu.write($insn.rt(), lanes::lane_by_lane::$op($($operand),+)),
            None => $spu.write($insn.rt(), lanes::called::$op($($operand),+)),
        }
    }};
}

/// The SP arithmetic with a vector form on some hosts.
#[derive(Clone, Copy)]
pub(super) enum Arithmetic {
    Add,
    Sub,
    Mul,
    MulAdd,
    MulSub,
    NegativeMulSub,
}

/// The arithmetic `mnemonic` is, if it has a vector form ([`write_whole`]) on this host.
#[inline(always)]
pub(super) const fn vector_form(mnemonic: Mnemonic) -> Option<Arithmetic> {
    if !lanes::whole::AVAILABLE {
        return None;
    }
    match mnemonic {
        Mnemonic::Fa => Some(Arithmetic::Add),
        Mnemonic::Fs => Some(Arithmetic::Sub),
        Mnemonic::Fm => Some(Arithmetic::Mul),
        Mnemonic::Fma => Some(Arithmetic::MulAdd),
        Mnemonic::Fms => Some(Arithmetic::MulSub),
        Mnemonic::Fnms => Some(Arithmetic::NegativeMulSub),
        _ => None,
    }
}

/// Writes `arithmetic` of the instruction's operands to RT through its vector form and
/// returns `true`, or writes nothing and returns `false` (operands or results the vector form
/// does not take: [`write_lane_by_lane`] then writes it). Apart from the lane-by-lane form so
/// that a dispatch handler can reach that form by a tail call: inline, it kept six host
/// registers busy, which every run of the vector form saved and restored.
#[inline(always)]
pub(super) fn write_whole(spu: &mut impl Machine, arithmetic: Arithmetic, insn: &Op) -> bool {
    macro_rules! whole {
        ($op:ident($($operand:ident),+)) => {{
            $(let $operand = spu.$operand(insn);)+
            match lanes::whole::$op($($operand),+) {
                Some(result) => {
                    spu.write(insn.rt(), result);
                    true
                }
                None => false,
            }
        }};
    }
    match arithmetic {
        Arithmetic::Add => whole!(add(ra, rb)),
        Arithmetic::Sub => whole!(sub(ra, rb)),
        Arithmetic::Mul => whole!(mul(ra, rb)),
        Arithmetic::MulAdd => whole!(mul_add(ra, rb, rc)),
        Arithmetic::MulSub => whole!(mul_sub(ra, rb, rc)),
        Arithmetic::NegativeMulSub => whole!(negative_mul_sub(ra, rb, rc)),
    }
}

/// Writes `arithmetic` of the instruction's operands to RT lane by lane (any operands).
#[inline(always)]
pub(super) fn write_lane_by_lane(
    spu: &mut impl Machine,
    arithmetic: Arithmetic,
    insn: &Op,
) -> Flow {
    macro_rules! lane_by_lane {
        ($op:ident($($operand:ident),+)) => {{
            $(let $operand = spu.$operand(insn);)+
            spu.write(insn.rt(), lanes::lane_by_lane::$op($($operand),+))
        }};
    }
    match arithmetic {
        Arithmetic::Add => lane_by_lane!(add(ra, rb)),
        Arithmetic::Sub => lane_by_lane!(sub(ra, rb)),
        Arithmetic::Mul => lane_by_lane!(mul(ra, rb)),
        Arithmetic::MulAdd => lane_by_lane!(mul_add(ra, rb, rc)),
        Arithmetic::MulSub => lane_by_lane!(mul_sub(ra, rb, rc)),
        Arithmetic::NegativeMulSub => lane_by_lane!(negative_mul_sub(ra, rb, rc)),
    }
}

/// All ones when `condition` holds (a compare's word result).
fn mask32(condition: bool) -> u32 {
    if condition { u32::MAX } else { 0 }
}

#[inline(always)]
pub(super) fn fa<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    write_sp!(INLINE_SP, spu, insn, add(ra, rb))
}

#[inline(always)]
pub(super) fn fs<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    write_sp!(INLINE_SP, spu, insn, sub(ra, rb))
}

#[inline(always)]
pub(super) fn fm<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    write_sp!(INLINE_SP, spu, insn, mul(ra, rb))
}

#[inline(always)]
pub(super) fn fma<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    write_sp!(INLINE_SP, spu, insn, mul_add(ra, rb, rc))
}

#[inline(always)]
pub(super) fn fms<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    write_sp!(INLINE_SP, spu, insn, mul_sub(ra, rb, rc))
}

#[inline(always)]
pub(super) fn fnms<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op) -> Flow {
    write_sp!(INLINE_SP, spu, insn, negative_mul_sub(ra, rb, rc))
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
