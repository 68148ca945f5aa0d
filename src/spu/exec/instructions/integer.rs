//! Integer instructions: constant formation, logical and arithmetic operations, `selb`,
//! counting and sign extension, byte operations, form-select masks and gathers, `orx`.
//! (Compares are in [`compare`](super::compare), multiplies in [`multiply`](super::multiply).)
//!
//! The element arithmetic is in `ops_integer`. `and $N,$N,$N` with N = RT = RA = RB is also
//! the profiling checkpoint `prof_cpN` (see `profile`).

use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::ops_integer::{self as int, Width};
use super::super::vector_lanes;

// immediate loads

#[inline(always)]
pub(super) fn il(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::splat_word(insn.imm() as u32))
}

#[inline(always)]
pub(super) fn ilh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::splat_halfword(insn.imm() as u16))
}

#[inline(always)]
pub(super) fn ilhu(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::splat_word((insn.imm() as u32) << 16),
    )
}

#[inline(always)]
pub(super) fn ila(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::splat_word(insn.imm() as u32 & 0x3_ffff),
    )
}

#[inline(always)]
pub(super) fn iohl(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::or(
            spu.rt(insn),
            vector_lanes::splat_word(insn.imm() as u32 & 0xffff),
        ),
    )
}

// logical with immediates

#[inline(always)]
pub(super) fn andbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::and(spu.ra(insn), int::splat_immediate(insn.imm(), Width::Byte)),
    )
}

#[inline(always)]
pub(super) fn andhi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::and(
            spu.ra(insn),
            int::splat_immediate(insn.imm(), Width::Halfword),
        ),
    )
}

#[inline(always)]
pub(super) fn andi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::and(spu.ra(insn), int::splat_immediate(insn.imm(), Width::Word)),
    )
}

#[inline(always)]
pub(super) fn orbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::or(spu.ra(insn), int::splat_immediate(insn.imm(), Width::Byte)),
    )
}

#[inline(always)]
pub(super) fn orhi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::or(
            spu.ra(insn),
            int::splat_immediate(insn.imm(), Width::Halfword),
        ),
    )
}

#[inline(always)]
pub(super) fn ori(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::or(spu.ra(insn), int::splat_immediate(insn.imm(), Width::Word)),
    )
}

#[inline(always)]
pub(super) fn xorbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::xor(spu.ra(insn), int::splat_immediate(insn.imm(), Width::Byte)),
    )
}

#[inline(always)]
pub(super) fn xorhi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::xor(
            spu.ra(insn),
            int::splat_immediate(insn.imm(), Width::Halfword),
        ),
    )
}

#[inline(always)]
pub(super) fn xori(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        vector_lanes::xor(spu.ra(insn), int::splat_immediate(insn.imm(), Width::Word)),
    )
}

// add / subtract with immediates

#[inline(always)]
pub(super) fn ahi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::add(
            spu.ra(insn),
            int::splat_immediate(insn.imm(), Width::Halfword),
            Width::Halfword,
        ),
    )
}

#[inline(always)]
pub(super) fn ai(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::add(
            spu.ra(insn),
            int::splat_immediate(insn.imm(), Width::Word),
            Width::Word,
        ),
    )
}

#[inline(always)]
pub(super) fn sfhi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::subtract_from(
            spu.ra(insn),
            int::splat_immediate(insn.imm(), Width::Halfword),
            Width::Halfword,
        ),
    )
}

#[inline(always)]
pub(super) fn sfi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::subtract_from(
            spu.ra(insn),
            int::splat_immediate(insn.imm(), Width::Word),
            Width::Word,
        ),
    )
}

// add / subtract / carry / borrow

#[inline(always)]
pub(super) fn a(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::add(spu.ra(insn), spu.rb(insn), Width::Word))
}

#[inline(always)]
pub(super) fn ah(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::add(spu.ra(insn), spu.rb(insn), Width::Halfword),
    )
}

#[inline(always)]
pub(super) fn sf(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::subtract_from(spu.ra(insn), spu.rb(insn), Width::Word),
    )
}

#[inline(always)]
pub(super) fn sfh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::subtract_from(spu.ra(insn), spu.rb(insn), Width::Halfword),
    )
}

#[inline(always)]
pub(super) fn addx(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::add_extended(spu.ra(insn), spu.rb(insn), spu.rt(insn)),
    )
}

#[inline(always)]
pub(super) fn sfx(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::subtract_from_extended(spu.ra(insn), spu.rb(insn), spu.rt(insn)),
    )
}

#[inline(always)]
pub(super) fn cg(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::carry_generate(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn cgx(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::carry_generate_extended(spu.ra(insn), spu.rb(insn), spu.rt(insn)),
    )
}

#[inline(always)]
pub(super) fn bg(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::borrow_generate(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn bgx(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::borrow_generate_extended(spu.ra(insn), spu.rb(insn), spu.rt(insn)),
    )
}

// bitwise

#[inline(always)]
pub(super) fn and(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.set_register(insn.rt(), vector_lanes::and(spu.ra(insn), spu.rb(insn)));
    match insn.checkpoint() {
        Some(number) => Flow::Checkpoint(number),
        None => Flow::Next,
    }
}

#[inline(always)]
pub(super) fn nand(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::nand(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn or(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::or(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn nor(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::nor(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn xor(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::xor(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn eqv(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::eqv(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn andc(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::and_not(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn orc(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), vector_lanes::or_not(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn selb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::select_bits(spu.ra(insn), spu.rb(insn), spu.rc(insn)),
    )
}

// counting and sign extension

#[inline(always)]
pub(super) fn clz(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::count_leading_zeros(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn xsbh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::extend_sign_byte_to_halfword(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn xshw(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::extend_sign_halfword_to_word(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn xswd(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::extend_sign_word_to_doubleword(spu.ra(insn)))
}

// byte operations

#[inline(always)]
pub(super) fn cntb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::count_ones_bytes(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn absdb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::absolute_difference_bytes(spu.ra(insn), spu.rb(insn)),
    )
}

#[inline(always)]
pub(super) fn avgb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::average_bytes(spu.ra(insn), spu.rb(insn)))
}

#[inline(always)]
pub(super) fn sumb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::sum_bytes(spu.ra(insn), spu.rb(insn)))
}

// masks and gathers

#[inline(always)]
pub(super) fn fsmbi(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::form_select_mask_bytes(insn.imm() as u16))
}

#[inline(always)]
pub(super) fn fsm(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::form_select_mask_words(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn fsmh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::form_select_mask_halfwords(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn fsmb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        int::form_select_mask_bytes(spu.ra(insn).preferred_word() as u16),
    )
}

#[inline(always)]
pub(super) fn gb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::gather_bits_words(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn gbh(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::gather_bits_halfwords(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn gbb(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::gather_bits_bytes(spu.ra(insn)))
}

#[inline(always)]
pub(super) fn orx(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), int::or_across(spu.ra(insn)))
}
