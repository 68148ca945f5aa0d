//! [`ChannelEvent`]: a channel instruction that completed, as
//! [`SpuObserver::channel`](crate::spu::probes::SpuObserver::channel) hears of it.
//!
//! Both modes report it at the same point of the program: right after the instruction took
//! effect, before the next one does (instruction mode ends its batch of completed instructions
//! at every channel instruction; the pipeline completes channel instructions at stage o, in
//! program order). So an observer that follows the program's channel traffic (DMA commands,
//! tag-group waits, signals, mailboxes) sees the same sequence in both modes.

use crate::spu::exec::{ChannelOperation, Executed, SpuState};
use crate::spu::isa::{Instruction, Mnemonic};

/// A `rdch`, `wrch` or `rchcnt` that completed.
#[derive(Clone, Copy)]
pub struct ChannelEvent<'a> {
    /// The instruction's address.
    pub pc: u32,
    /// The cycle it completed in (instruction mode: the SPU's clock after it).
    pub cycle: u64,
    /// `rdch`, `wrch` or `rchcnt`.
    pub operation: ChannelOperation,
    /// The channel number.
    pub channel: u8,
    /// The value read, written or counted (the register's preferred word).
    pub value: u32,
    /// The SPU right after the instruction, read only: its local store, its MFC's command
    /// parameters ([`Mfc::parameters`](crate::spu::mfc::Mfc::parameters)).
    pub spu: &'a SpuState,
}

impl<'a> ChannelEvent<'a> {
    /// The event of `instruction`, which `executed` reports as retired, if it is a channel
    /// instruction; `spu` is the state right after it, `cycle` the cycle it completed in.
    #[inline]
    pub fn of(
        instruction: &Instruction,
        executed: &Executed,
        cycle: u64,
        spu: &'a SpuState,
    ) -> Option<Self> {
        let operation = match instruction.mnemonic {
            Mnemonic::Rdch => ChannelOperation::Read,
            Mnemonic::Wrch => ChannelOperation::Write,
            Mnemonic::Rchcnt => ChannelOperation::Count,
            _ => return None,
        };
        if !executed.retired {
            return None;
        }
        Some(ChannelEvent {
            pc: executed.pc,
            cycle,
            operation,
            channel: instruction.ra,
            value: spu.register(instruction.rt).preferred_word(),
            spu,
        })
    }
}

impl core::fmt::Debug for ChannelEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ChannelEvent")
            .field("pc", &self.pc)
            .field("cycle", &self.cycle)
            .field("operation", &self.operation)
            .field("channel", &self.channel)
            .field("value", &self.value)
            .finish_non_exhaustive()
    }
}
