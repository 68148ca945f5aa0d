//! Integer multiplies, which run in the FP unit (class FP7): `mpy`, `mpyu`, `mpyh`, `mpyhh`,
//! `mpyhhu`, `mpys`, the immediate forms `mpyi`/`mpyui` and the accumulating `mpya`,
//! `mpyhha`, `mpyhhau`. All take 16-bit halves of the word elements.

use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::ops_integer::{self as int, Multiply};

#[inline(always)]
pub(super) fn mpyi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .map_words(|w| i32::from(w as u16 as i16).wrapping_mul(insn.imm()) as u32),
    )
}

#[inline(always)]
pub(super) fn mpyui(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .map_words(|w| (w & 0xffff).wrapping_mul(insn.imm() as u32 & 0xffff)),
    )
}

#[inline(always)]
pub(super) fn mpy(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::multiply(spu.ra(insn), spu.rb(insn), Multiply::Signed),
    )
}

#[inline(always)]
pub(super) fn mpyu(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::multiply(spu.ra(insn), spu.rb(insn), Multiply::Unsigned),
    )
}

#[inline(always)]
pub(super) fn mpyh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::multiply(spu.ra(insn), spu.rb(insn), Multiply::High),
    )
}

#[inline(always)]
pub(super) fn mpyhh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::multiply(spu.ra(insn), spu.rb(insn), Multiply::HighHigh),
    )
}

#[inline(always)]
pub(super) fn mpyhhu(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::multiply(spu.ra(insn), spu.rb(insn), Multiply::HighHighUnsigned),
    )
}

#[inline(always)]
pub(super) fn mpys(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::multiply(spu.ra(insn), spu.rb(insn), Multiply::ShiftRight),
    )
}

#[inline(always)]
pub(super) fn mpyhha(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip3_words(spu.rb(insn), spu.rt(insn), |x, y, acc| {
                acc.wrapping_add(int::multiply_word(x, y, Multiply::HighHigh))
            }),
    )
}

#[inline(always)]
pub(super) fn mpyhhau(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip3_words(spu.rb(insn), spu.rt(insn), |x, y, acc| {
                acc.wrapping_add(int::multiply_word(x, y, Multiply::HighHighUnsigned))
            }),
    )
}

#[inline(always)]
pub(super) fn mpya(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip3_words(spu.rb(insn), spu.rc(insn), |x, y, acc| {
                acc.wrapping_add(int::multiply_word(x, y, Multiply::Signed))
            }),
    )
}
