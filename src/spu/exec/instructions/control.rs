//! Control instructions: no-ops, `sync`/`dsync`, `stop`/`stopd`, the halts, the
//! special-purpose registers and the channels.
//!
//! `nop`, `lnop`, `sync` and `dsync` have no architectural effect (nothing is cached or
//! reordered in this model). A halt whose condition holds stops the SPU like `stop`. No
//! special-purpose register is modelled: `mfspr` writes zeros and `mtspr` is ignored. Channel
//! accesses go to the [`Channels`](super::super::Channels) and wait ([`Flow::Blocked`]) on an
//! empty inbound or full outbound mailbox.

use super::super::channels::ChannelAccess;
use super::super::machine::Machine;
use super::super::outcome::{ChannelOperation, FaultKind};
use super::super::quadword::Quadword;
use super::Flow;
use crate::spu::isa::Instruction;

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
pub(super) fn stop(insn: &Instruction) -> Flow {
    Flow::Stop(insn.stop_signal())
}

// halts

#[inline(always)]
pub(super) fn hgti(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    halt_if((spu.ra(insn).preferred_word() as i32) > insn.imm)
}

#[inline(always)]
pub(super) fn hlgti(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    halt_if(spu.ra(insn).preferred_word() > insn.imm as u32)
}

#[inline(always)]
pub(super) fn heqi(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    halt_if(spu.ra(insn).preferred_word() as i32 == insn.imm)
}

#[inline(always)]
pub(super) fn hgt(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    halt_if((spu.ra(insn).preferred_word() as i32) > (spu.rb(insn).preferred_word() as i32))
}

#[inline(always)]
pub(super) fn hlgt(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    halt_if(spu.ra(insn).preferred_word() > spu.rb(insn).preferred_word())
}

#[inline(always)]
pub(super) fn heq(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    halt_if(spu.ra(insn).preferred_word() == spu.rb(insn).preferred_word())
}

// special-purpose registers: none is modelled

#[inline(always)]
pub(super) fn mfspr(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    spu.write(insn.rt, Quadword::ZERO)
}

#[inline(always)]
pub(super) fn mtspr() -> Flow {
    Flow::Next
}

// channels (the channel number is in the RA field)

#[inline(always)]
pub(super) fn rdch(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    match spu.channels().read(insn.ra) {
        ChannelAccess::Done(value) => spu.write(insn.rt, Quadword::from_preferred_word(value)),
        ChannelAccess::WouldBlock => Flow::Blocked(insn.ra),
        ChannelAccess::Unsupported => Flow::Fault(FaultKind::UnsupportedChannel {
            channel: insn.ra,
            access: ChannelOperation::Read,
        }),
    }
}

#[inline(always)]
pub(super) fn wrch(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    let value = spu.rt(insn).preferred_word();
    match spu.channels().write(insn.ra, value) {
        ChannelAccess::Done(_) => Flow::Next,
        ChannelAccess::WouldBlock => Flow::Blocked(insn.ra),
        ChannelAccess::Unsupported => Flow::Fault(FaultKind::UnsupportedChannel {
            channel: insn.ra,
            access: ChannelOperation::Write,
        }),
    }
}

#[inline(always)]
pub(super) fn rchcnt(spu: &mut impl Machine, insn: &Instruction) -> Flow {
    match spu.channels().count(insn.ra) {
        Some(count) => spu.write(insn.rt, Quadword::from_preferred_word(count)),
        None => Flow::Fault(FaultKind::UnsupportedChannel {
            channel: insn.ra,
            access: ChannelOperation::Count,
        }),
    }
}

/// A halt's effect: the SPU stops when `condition` holds.
fn halt_if(condition: bool) -> Flow {
    if condition { Flow::Halt } else { Flow::Next }
}
