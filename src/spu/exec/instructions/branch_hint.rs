//! Branches and branch hints.
//!
//! Relative and absolute branches (`br`, `bra`, `brsl`, `brasl`, `brz` .. `brhnz`) take a word
//! address; indirect ones (`bi` .. `bihnz`, `iret`, `bisled`) the preferred word of a register,
//! and their E/D feature bits enable or disable interrupts when the branch is taken (such a
//! branch, `iret` and a taken `bisled` report [`Flow::InterruptBranch`], after which the
//! caller checks for a due interrupt). Link
//! forms write the address of the next instruction. A taken branch reports its target; the
//! caller moves the PC.
//!
//! The hints (`hbr`, `hbra`, `hbrr`) have no architectural effect: they count as NOPs here,
//! and only the pipeline's real fetch unit acts on them.

use super::super::channels::SPU_RD_EVENT_STAT;
use super::super::flow::{Flow, instruction_address};
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::outcome::FaultKind;
use super::super::quadword::Quadword;
use super::immediate::word_offset;
use crate::spu::isa::{FEATURE_D, FEATURE_E};

#[inline(always)]
pub(super) fn br(insn: &Op, pc: u32) -> Flow {
    Flow::Branch(instruction_address(
        pc.wrapping_add(word_offset(insn.imm())),
    ))
}

#[inline(always)]
pub(super) fn bra(insn: &Op) -> Flow {
    Flow::Branch(instruction_address(word_offset(insn.imm())))
}

#[inline(always)]
pub(super) fn brsl(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    spu.set_register(insn.rt(), link_value(pc));
    Flow::Branch(instruction_address(
        pc.wrapping_add(word_offset(insn.imm())),
    ))
}

#[inline(always)]
pub(super) fn brasl(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    spu.set_register(insn.rt(), link_value(pc));
    Flow::Branch(instruction_address(word_offset(insn.imm())))
}

#[inline(always)]
pub(super) fn brz(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    conditional(
        spu.rt(insn).preferred_word() == 0,
        pc.wrapping_add(word_offset(insn.imm())),
    )
}

#[inline(always)]
pub(super) fn brnz(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    conditional(
        spu.rt(insn).preferred_word() != 0,
        pc.wrapping_add(word_offset(insn.imm())),
    )
}

#[inline(always)]
pub(super) fn brhz(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    conditional(
        spu.rt(insn).preferred_halfword() == 0,
        pc.wrapping_add(word_offset(insn.imm())),
    )
}

#[inline(always)]
pub(super) fn brhnz(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    conditional(
        spu.rt(insn).preferred_halfword() != 0,
        pc.wrapping_add(word_offset(insn.imm())),
    )
}

#[inline(always)]
pub(super) fn bi(spu: &mut impl Machine, insn: &Op) -> Flow {
    branch_indirect(
        spu,
        insn.feature_bits(),
        true,
        spu.ra(insn).preferred_word(),
    )
}

#[inline(always)]
pub(super) fn bisl(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    // The target is read before the link register is written (insn.rt() may equal ra).
    let flow = branch_indirect(
        spu,
        insn.feature_bits(),
        true,
        spu.ra(insn).preferred_word(),
    );
    if let Flow::Branch(_) = flow {
        spu.set_register(insn.rt(), link_value(pc));
    }
    flow
}

#[inline(always)]
pub(super) fn iret(spu: &mut impl Machine, insn: &Op) -> Flow {
    let srr0 = spu.channels().srr0;
    match branch_indirect(spu, insn.feature_bits(), true, srr0) {
        Flow::Branch(target) => Flow::InterruptBranch(target),
        other => other,
    }
}

/// `bisled`: links, then branches if an enabled event is pending (the `SPU_RdEventStat`
/// count is 1), applying the E/D bits as a taken indirect branch does.
#[inline(always)]
pub(super) fn bisled(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    let target = spu.ra(insn).preferred_word();
    let context = spu.channel_context();
    let pending = spu
        .channels()
        .count(SPU_RD_EVENT_STAT, context)
        .is_some_and(|count| count != 0);
    let flow = branch_indirect(spu, insn.feature_bits(), pending, target);
    if !matches!(flow, Flow::Fault(_)) {
        spu.set_register(insn.rt(), link_value(pc));
    }
    flow
}

#[inline(always)]
pub(super) fn biz(spu: &mut impl Machine, insn: &Op) -> Flow {
    branch_indirect(
        spu,
        insn.feature_bits(),
        spu.rt(insn).preferred_word() == 0,
        spu.ra(insn).preferred_word(),
    )
}

#[inline(always)]
pub(super) fn binz(spu: &mut impl Machine, insn: &Op) -> Flow {
    branch_indirect(
        spu,
        insn.feature_bits(),
        spu.rt(insn).preferred_word() != 0,
        spu.ra(insn).preferred_word(),
    )
}

#[inline(always)]
pub(super) fn bihz(spu: &mut impl Machine, insn: &Op) -> Flow {
    branch_indirect(
        spu,
        insn.feature_bits(),
        spu.rt(insn).preferred_halfword() == 0,
        spu.ra(insn).preferred_word(),
    )
}

#[inline(always)]
pub(super) fn bihnz(spu: &mut impl Machine, insn: &Op) -> Flow {
    branch_indirect(
        spu,
        insn.feature_bits(),
        spu.rt(insn).preferred_halfword() != 0,
        spu.ra(insn).preferred_word(),
    )
}

#[inline(always)]
pub(super) fn hint() -> Flow {
    Flow::Nop
}

fn set_interrupt_state(spu: &mut impl Machine, bits: u8) -> Result<(), FaultKind> {
    let enable = bits & FEATURE_E != 0;
    let disable = bits & FEATURE_D != 0;
    match (enable, disable) {
        // The ISA leaves E and D together undefined; refuse it rather than guess.
        (true, true) => return Err(FaultKind::IllegalInstruction),
        (true, false) => spu.set_interrupts_enabled(true),
        (false, true) => spu.set_interrupts_enabled(false),
        (false, false) => {}
    }
    Ok(())
}

/// An indirect branch to `target` if `condition`, applying the E/D feature bits
/// ([`Instruction::feature_bits`]) when taken.
///
/// The instruction's fields are passed by value here: handing out the instruction's address
/// would force it into memory, and the hot path reads it from there right after storing it
/// (store-forwarding stalls).
fn branch_indirect(spu: &mut impl Machine, bits: u8, condition: bool, target: u32) -> Flow {
    if bits & FEATURE_E != 0 && bits & FEATURE_D != 0 {
        return Flow::Fault(FaultKind::IllegalInstruction);
    }
    if !condition {
        return Flow::Next;
    }
    match set_interrupt_state(spu, bits) {
        // The interrupt state changed: the caller checks for a due interrupt.
        Ok(()) if bits & (FEATURE_E | FEATURE_D) != 0 => {
            Flow::InterruptBranch(instruction_address(target))
        }
        Ok(()) => Flow::Branch(instruction_address(target)),
        Err(kind) => Flow::Fault(kind),
    }
}

fn conditional(condition: bool, target: u32) -> Flow {
    if condition {
        Flow::Branch(instruction_address(target))
    } else {
        Flow::Next
    }
}

/// The link register value of a branch at `pc`: the address of the next instruction.
fn link_value(pc: u32) -> Quadword {
    Quadword::from_preferred_word(instruction_address(pc.wrapping_add(4)))
}
