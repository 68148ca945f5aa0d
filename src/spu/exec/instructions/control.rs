//! Control instructions: no-ops, `sync`/`dsync`, `stop`/`stopd`, the halts, the
//! special-purpose registers and the channels.
//!
//! `nop`, `lnop`, `sync` and `dsync` have no architectural effect (nothing is cached or
//! reordered in this model). A halt whose condition holds stops the SPU like `stop`. No
//! special-purpose register is modelled: `mfspr` writes zeros and `mtspr` is ignored. Channel
//! instructions report [`Flow::ChannelAccess`]: the caller performs them on the
//! [`Channels`](super::super::Channels) once its clock is up to date.

use super::super::flow::ChannelInstruction;
use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::outcome::ChannelOperation;
use super::super::quadword::Quadword;

#[inline(always)]
pub(super) fn nop() -> Flow {
    Flow::Nop
}

#[inline(always)]
pub(super) fn sync() -> Flow {
    Flow::Next
}

// stop

#[inline(always)]
pub(super) fn stop(insn: &Op) -> Flow {
    Flow::Stop(insn.stop_signal())
}

// halts

#[inline(always)]
pub(super) fn hgti(spu: &mut impl Machine, insn: &Op) -> Flow {
    halt_if((spu.ra(insn).preferred_word() as i32) > insn.imm())
}

#[inline(always)]
pub(super) fn hlgti(spu: &mut impl Machine, insn: &Op) -> Flow {
    halt_if(spu.ra(insn).preferred_word() > insn.imm() as u32)
}

#[inline(always)]
pub(super) fn heqi(spu: &mut impl Machine, insn: &Op) -> Flow {
    halt_if(spu.ra(insn).preferred_word() as i32 == insn.imm())
}

#[inline(always)]
pub(super) fn hgt(spu: &mut impl Machine, insn: &Op) -> Flow {
    halt_if((spu.ra(insn).preferred_word() as i32) > (spu.rb(insn).preferred_word() as i32))
}

#[inline(always)]
pub(super) fn hlgt(spu: &mut impl Machine, insn: &Op) -> Flow {
    halt_if(spu.ra(insn).preferred_word() > spu.rb(insn).preferred_word())
}

#[inline(always)]
pub(super) fn heq(spu: &mut impl Machine, insn: &Op) -> Flow {
    halt_if(spu.ra(insn).preferred_word() == spu.rb(insn).preferred_word())
}

// special-purpose registers: none is modelled

#[inline(always)]
pub(super) fn mfspr(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(insn.rt(), Quadword::ZERO)
}

#[inline(always)]
pub(super) fn mtspr() -> Flow {
    Flow::Next
}

// channels (the channel number is in the RA field): performed by the caller, which knows the
// cycle (`SpuState::access_channel`)

#[inline(always)]
pub(super) fn rdch(insn: &Op) -> Flow {
    channel_instruction(insn, ChannelOperation::Read)
}

#[inline(always)]
pub(super) fn wrch(insn: &Op) -> Flow {
    channel_instruction(insn, ChannelOperation::Write)
}

#[inline(always)]
pub(super) fn rchcnt(insn: &Op) -> Flow {
    channel_instruction(insn, ChannelOperation::Count)
}

fn channel_instruction(insn: &Op, operation: ChannelOperation) -> Flow {
    Flow::ChannelAccess(ChannelInstruction {
        operation,
        channel: insn.ra(),
        register: insn.rt(),
    })
}

/// A halt's effect: the SPU stops when `condition` holds.
fn halt_if(condition: bool) -> Flow {
    if condition { Flow::Halt } else { Flow::Next }
}
