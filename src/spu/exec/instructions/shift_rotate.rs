//! Shifts and rotates: word and halfword elements (FX3), the whole quadword by bits or bytes
//! (SHUF), and `shufb`.
//!
//! The `rotm*`/`rotqm*` "rotate and mask" forms shift right by the negated count, as the ISA
//! encodes them. The element and quadword arithmetic is in `ops_shift` and `permute`.

use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::ops_shift as shift;
use super::super::permute;
use super::super::vector_lanes;

// word / halfword shifts and rotates

#[inline(always)]
pub(super) fn roti(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::rotate_words(spu.ra(insn), insn.imm() as u32 & 0x1f),
    )
}

#[inline(always)]
pub(super) fn rotmi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::shift_words_right(spu.ra(insn), (insn.imm() as u32).wrapping_neg() & 0x3f),
    )
}

#[inline(always)]
pub(super) fn rotmai(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::shift_words_right_arithmetic(
            spu.ra(insn),
            (insn.imm() as u32).wrapping_neg() & 0x3f,
        ),
    )
}

#[inline(always)]
pub(super) fn shli(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::shift_words_left(spu.ra(insn), insn.imm() as u32 & 0x3f),
    )
}

#[inline(always)]
pub(super) fn rothi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::rotate_halfwords(spu.ra(insn), insn.imm() as u32 & 0xf),
    )
}

#[inline(always)]
pub(super) fn rothmi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::shift_halfwords_right(
            spu.ra(insn),
            (insn.imm() as u32).wrapping_neg() & 0x1f,
        ),
    )
}

#[inline(always)]
pub(super) fn rotmahi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::shift_halfwords_right_arithmetic(
            spu.ra(insn),
            (insn.imm() as u32).wrapping_neg() & 0x1f,
        ),
    )
}

#[inline(always)]
pub(super) fn shlhi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::shift_halfwords_left(spu.ra(insn), insn.imm() as u32 & 0x1f),
    )
}

#[inline(always)]
pub(super) fn rot(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn).zip_words(spu.rb(insn), shift::rotate_word),
    )
}

#[inline(always)]
pub(super) fn rotm(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_words(spu.rb(insn), shift::rotate_and_mask_word),
    )
}

#[inline(always)]
pub(super) fn rotma(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_words(spu.rb(insn), shift::rotate_and_mask_algebraic_word),
    )
}

#[inline(always)]
pub(super) fn shl(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn).zip_words(spu.rb(insn), shift::shift_left_word),
    )
}

#[inline(always)]
pub(super) fn roth(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_halfwords(spu.rb(insn), shift::rotate_halfword),
    )
}

#[inline(always)]
pub(super) fn rothm(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_halfwords(spu.rb(insn), shift::rotate_and_mask_halfword),
    )
}

#[inline(always)]
pub(super) fn rotmah(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_halfwords(spu.rb(insn), shift::rotate_and_mask_algebraic_halfword),
    )
}

#[inline(always)]
pub(super) fn shlh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_halfwords(spu.rb(insn), shift::shift_left_halfword),
    )
}

// quadword rotates and shifts

#[inline(always)]
pub(super) fn rotqbii(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::rotate_left_bits(spu.ra(insn), insn.imm() as u32),
    )
}

#[inline(always)]
pub(super) fn rotqmbii(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_right_bits(spu.ra(insn), (insn.imm() as u32).wrapping_neg()),
    )
}

#[inline(always)]
pub(super) fn shlqbii(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_left_bits(spu.ra(insn), insn.imm() as u32),
    )
}

#[inline(always)]
pub(super) fn rotqbyi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::rotate_left_bytes(spu.ra(insn), insn.imm() as u32),
    )
}

#[inline(always)]
pub(super) fn rotqmbyi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_right_bytes(spu.ra(insn), (insn.imm() as u32).wrapping_neg() & 0x1f),
    )
}

#[inline(always)]
pub(super) fn shlqbyi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_left_bytes(spu.ra(insn), insn.imm() as u32 & 0x1f),
    )
}

#[inline(always)]
pub(super) fn rotqbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::rotate_left_bits(spu.ra(insn), spu.rb(insn).preferred_word()),
    )
}

#[inline(always)]
pub(super) fn rotqmbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_right_bits(spu.ra(insn), spu.rb(insn).preferred_word().wrapping_neg()),
    )
}

#[inline(always)]
pub(super) fn shlqbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_left_bits(spu.ra(insn), spu.rb(insn).preferred_word()),
    )
}

#[inline(always)]
pub(super) fn rotqby(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::rotate_left_bytes(spu.ra(insn), spu.rb(insn).preferred_word()),
    )
}

#[inline(always)]
pub(super) fn rotqmby(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_right_bytes(
            spu.ra(insn),
            spu.rb(insn).preferred_word().wrapping_neg() & 0x1f,
        ),
    )
}

#[inline(always)]
pub(super) fn shlqby(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_left_bytes(spu.ra(insn), spu.rb(insn).preferred_word() & 0x1f),
    )
}

#[inline(always)]
pub(super) fn rotqbybi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::rotate_left_bytes(spu.ra(insn), spu.rb(insn).preferred_word() >> 3),
    )
}

#[inline(always)]
pub(super) fn rotqmbybi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_right_bytes(
            spu.ra(insn),
            (spu.rb(insn).preferred_word() >> 3).wrapping_neg() & 0x1f,
        ),
    )
}

#[inline(always)]
pub(super) fn shlqbybi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shift_left_bytes(spu.ra(insn), (spu.rb(insn).preferred_word() >> 3) & 0x1f),
    )
}

#[inline(always)]
pub(super) fn shufb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        permute::shuffle_bytes(spu.ra(insn), spu.rb(insn), spu.rc(insn)),
    )
}
