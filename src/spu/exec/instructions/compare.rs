//! Integer compares: `ceq`, `cgt` (signed greater) and `clgt` (logical greater) on bytes,
//! halfwords and words, against a register or a sign-extended immediate. Each element of the
//! result is all ones where the comparison holds and zero elsewhere.

use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::ops_integer::{self as int, Compare, Width};
use super::super::quadword::Quadword;

// compares with immediates

#[inline(always)]
pub(super) fn cgtbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Byte,
        Compare::Greater,
    )
}

#[inline(always)]
pub(super) fn cgthi(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Halfword,
        Compare::Greater,
    )
}

#[inline(always)]
pub(super) fn cgti(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Word,
        Compare::Greater,
    )
}

#[inline(always)]
pub(super) fn clgtbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Byte,
        Compare::LogicalGreater,
    )
}

#[inline(always)]
pub(super) fn clgthi(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Halfword,
        Compare::LogicalGreater,
    )
}

#[inline(always)]
pub(super) fn clgti(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Word,
        Compare::LogicalGreater,
    )
}

#[inline(always)]
pub(super) fn ceqbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Byte,
        Compare::Equal,
    )
}

#[inline(always)]
pub(super) fn ceqhi(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Halfword,
        Compare::Equal,
    )
}

#[inline(always)]
pub(super) fn ceqi(spu: &mut impl Machine, insn: &Op) -> Flow {
    compare_immediate(
        spu,
        insn.rt(),
        spu.ra(insn),
        insn.imm(),
        Width::Word,
        Compare::Equal,
    )
}

// register compares

#[inline(always)]
pub(super) fn cgt(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(spu.ra(insn), spu.rb(insn), Width::Word, Compare::Greater),
    )
}

#[inline(always)]
pub(super) fn cgtb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(spu.ra(insn), spu.rb(insn), Width::Byte, Compare::Greater),
    )
}

#[inline(always)]
pub(super) fn cgth(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(
            spu.ra(insn),
            spu.rb(insn),
            Width::Halfword,
            Compare::Greater,
        ),
    )
}

#[inline(always)]
pub(super) fn clgt(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(
            spu.ra(insn),
            spu.rb(insn),
            Width::Word,
            Compare::LogicalGreater,
        ),
    )
}

#[inline(always)]
pub(super) fn clgtb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(
            spu.ra(insn),
            spu.rb(insn),
            Width::Byte,
            Compare::LogicalGreater,
        ),
    )
}

#[inline(always)]
pub(super) fn clgth(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(
            spu.ra(insn),
            spu.rb(insn),
            Width::Halfword,
            Compare::LogicalGreater,
        ),
    )
}

#[inline(always)]
pub(super) fn ceq(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(spu.ra(insn), spu.rb(insn), Width::Word, Compare::Equal),
    )
}

#[inline(always)]
pub(super) fn ceqb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(spu.ra(insn), spu.rb(insn), Width::Byte, Compare::Equal),
    )
}

#[inline(always)]
pub(super) fn ceqh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::compare(spu.ra(insn), spu.rb(insn), Width::Halfword, Compare::Equal),
    )
}

#[inline(always)]
fn compare_immediate(
    spu: &mut impl Machine,
    rt: u8,
    a: Quadword,
    imm: i32,
    width: Width,
    kind: Compare,
) -> Flow {
    let value = int::compare(a, int::splat_immediate(imm, width), width, kind);
    spu.write(rt, value)
}
