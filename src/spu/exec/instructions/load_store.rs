//! Loads, stores and the insertion controls (the SPU ISA's load/store chapter).
//!
//! Every data access is one quadword: the address is wrapped into the local store and its low
//! four bits are ignored. `lqd`/`stqd` take a quadword offset, `lqa`/`lqr` and `stqa`/`stqr`
//! a word address (absolute or relative to the PC). The insertion controls (`cbd` .. `cdx`)
//! compute the `shufb` control that inserts a byte, halfword, word or doubleword at an
//! address's position in a quadword.

use super::super::flow::Flow;
use super::super::local_store::LS_ADDRESS_MASK;
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::permute::{self, InsertSize};
use super::immediate::word_offset;

/// Quadword-aligned LS address.
fn quadword_address(address: u32) -> u32 {
    address & LS_ADDRESS_MASK & !0xf
}

// The four addressing forms, shared by the loads, the stores and `store_address`.

/// `lqa`/`stqa`: an absolute word address.
#[inline(always)]
fn a_form(insn: &Op) -> u32 {
    word_offset(insn.imm())
}

/// `lqr`/`stqr`: a word address relative to the PC.
#[inline(always)]
fn r_form(insn: &Op, pc: u32) -> u32 {
    pc.wrapping_add(word_offset(insn.imm()))
}

/// `lqd`/`stqd`: RA plus a quadword offset.
#[inline(always)]
fn d_form(spu: &impl Machine, insn: &Op) -> u32 {
    spu.ra(insn)
        .preferred_word()
        .wrapping_add((insn.imm() as u32).wrapping_shl(4))
}

/// `lqx`/`stqx`: RA plus RB.
#[inline(always)]
fn x_form(spu: &impl Machine, insn: &Op) -> u32 {
    spu.ra(insn)
        .preferred_word()
        .wrapping_add(spu.rb(insn).preferred_word())
}

/// The (aligned, wrapped) address a store instruction at `pc` would write in `spu`'s
/// current state; `None` for any other instruction.
#[inline(always)]
#[cfg_attr(feature = "spu-lean", allow(dead_code))] // the fast-forward's only
pub(in super::super) fn store_address(spu: &impl Machine, insn: &Op, pc: u32) -> Option<u32> {
    use crate::spu::isa::Mnemonic as M;
    let address = match insn.mnemonic() {
        M::Stqa => a_form(insn),
        M::Stqr => r_form(insn, pc),
        M::Stqd => d_form(spu, insn),
        M::Stqx => x_form(spu, insn),
        _ => return None,
    };
    Some(quadword_address(address))
}

#[inline(always)]
pub(super) fn lqa(spu: &mut impl Machine, insn: &Op) -> Flow {
    load(spu, insn.rt(), a_form(insn))
}

#[inline(always)]
pub(super) fn lqr(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    load(spu, insn.rt(), r_form(insn, pc))
}

#[inline(always)]
pub(super) fn lqd(spu: &mut impl Machine, insn: &Op) -> Flow {
    let address = d_form(spu, insn);
    load(spu, insn.rt(), address)
}

#[inline(always)]
pub(super) fn lqx(spu: &mut impl Machine, insn: &Op) -> Flow {
    let address = x_form(spu, insn);
    load(spu, insn.rt(), address)
}

#[inline(always)]
pub(super) fn stqa(spu: &mut impl Machine, insn: &Op) -> Flow {
    store(spu, insn.rt(), a_form(insn))
}

#[inline(always)]
pub(super) fn stqr(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    store(spu, insn.rt(), r_form(insn, pc))
}

#[inline(always)]
pub(super) fn stqd(spu: &mut impl Machine, insn: &Op) -> Flow {
    let address = d_form(spu, insn);
    store(spu, insn.rt(), address)
}

#[inline(always)]
pub(super) fn stqx(spu: &mut impl Machine, insn: &Op) -> Flow {
    let address = x_form(spu, insn);
    store(spu, insn.rt(), address)
}

#[inline(always)]
pub(super) fn cbd(spu: &mut impl Machine, insn: &Op) -> Flow {
    insertion(
        spu,
        insn.rt(),
        spu.ra(insn)
            .preferred_word()
            .wrapping_add(insn.imm() as u32),
        InsertSize::Byte,
    )
}

#[inline(always)]
pub(super) fn chd(spu: &mut impl Machine, insn: &Op) -> Flow {
    insertion(
        spu,
        insn.rt(),
        spu.ra(insn)
            .preferred_word()
            .wrapping_add(insn.imm() as u32),
        InsertSize::Halfword,
    )
}

#[inline(always)]
pub(super) fn cwd(spu: &mut impl Machine, insn: &Op) -> Flow {
    insertion(
        spu,
        insn.rt(),
        spu.ra(insn)
            .preferred_word()
            .wrapping_add(insn.imm() as u32),
        InsertSize::Word,
    )
}

#[inline(always)]
pub(super) fn cdd(spu: &mut impl Machine, insn: &Op) -> Flow {
    insertion(
        spu,
        insn.rt(),
        spu.ra(insn)
            .preferred_word()
            .wrapping_add(insn.imm() as u32),
        InsertSize::Doubleword,
    )
}

#[inline(always)]
pub(super) fn cbx(spu: &mut impl Machine, insn: &Op) -> Flow {
    insertion(
        spu,
        insn.rt(),
        spu.ra(insn)
            .preferred_word()
            .wrapping_add(spu.rb(insn).preferred_word()),
        InsertSize::Byte,
    )
}

#[inline(always)]
pub(super) fn chx(spu: &mut impl Machine, insn: &Op) -> Flow {
    insertion(
        spu,
        insn.rt(),
        spu.ra(insn)
            .preferred_word()
            .wrapping_add(spu.rb(insn).preferred_word()),
        InsertSize::Halfword,
    )
}

#[inline(always)]
pub(super) fn cwx(spu: &mut impl Machine, insn: &Op) -> Flow {
    insertion(
        spu,
        insn.rt(),
        spu.ra(insn)
            .preferred_word()
            .wrapping_add(spu.rb(insn).preferred_word()),
        InsertSize::Word,
    )
}

#[inline(always)]
pub(super) fn cdx(spu: &mut impl Machine, insn: &Op) -> Flow {
    insertion(
        spu,
        insn.rt(),
        spu.ra(insn)
            .preferred_word()
            .wrapping_add(spu.rb(insn).preferred_word()),
        InsertSize::Doubleword,
    )
}

fn load(spu: &mut impl Machine, rt: u8, address: u32) -> Flow {
    let address = quadword_address(address);
    spu.load_register(rt, address);
    Flow::Load(address)
}

fn store(spu: &mut impl Machine, rt: u8, address: u32) -> Flow {
    let address = quadword_address(address);
    spu.store_register(rt, address);
    Flow::Store(address)
}

#[inline]
fn insertion(spu: &mut impl Machine, rt: u8, address: u32, size: InsertSize) -> Flow {
    spu.write(rt, permute::insertion_control(address, size))
}
