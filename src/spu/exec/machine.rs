//! What an instruction reads and writes: the interpreter in [`instructions`](super::instructions)
//! runs on any [`Machine`]. [`SpuState`] is the architectural state; the pipeline's ideal fetch
//! can run instructions ahead on a lighter copy of it that reads the local store of the
//! architectural state and keeps its own stores aside.

use super::channels::{ChannelContext, Channels};
use super::code::CodeStore;
use super::flow::Flow;
use super::op::Op;
use super::quadword::Quadword;
use super::state::SpuState;
use super::vector_lanes;

/// The state an SPU instruction reads and writes (besides the PC and the retirement counters,
/// which the caller of the interpreter keeps).
pub(crate) trait Machine {
    /// Register `$index` (modulo 128).
    fn register(&self, index: u8) -> Quadword;
    /// Sets register `$index` (modulo 128).
    fn set_register(&mut self, index: u8, value: Quadword);
    /// The quadword at an aligned, wrapped local-store address.
    fn load_quadword(&self, address: u32) -> Quadword;
    /// Stores a quadword at an aligned, wrapped local-store address.
    fn store_quadword(&mut self, address: u32, value: Quadword);
    /// Loads the quadword at an aligned, wrapped local-store address into register `$rt`.
    #[inline(always)]
    fn load_register(&mut self, rt: u8, address: u32) {
        let value = self.load_quadword(address);
        self.set_register(rt, value);
    }
    /// Stores register `$rt` at an aligned, wrapped local-store address.
    #[inline(always)]
    fn store_register(&mut self, rt: u8, address: u32) {
        let value = self.register(rt);
        self.store_quadword(address, value);
    }
    /// The channel interface (mailboxes, SRR0).
    fn channels(&mut self) -> &mut Channels;
    /// The FPSCR.
    fn fpscr(&self) -> Quadword;
    /// Sets the FPSCR (`fscrwr`).
    fn set_fpscr(&mut self, value: Quadword);
    /// Enables or disables interrupts (the E/D bits of indirect branches).
    fn set_interrupts_enabled(&mut self, enabled: bool);
    /// What a channel access needs to know: the cycle, the SPU number, the interrupt state.
    fn channel_context(&self) -> ChannelContext;

    /// Writes `value` to register `rt` and falls through.
    #[inline(always)]
    fn write(&mut self, rt: u8, value: Quadword) -> Flow {
        self.set_register(rt, value);
        Flow::Next
    }

    /// The value of the instruction's RA register.
    #[inline(always)]
    fn ra(&self, insn: &Op) -> Quadword {
        self.register(insn.ra())
    }

    /// The value of the instruction's RB register.
    #[inline(always)]
    fn rb(&self, insn: &Op) -> Quadword {
        self.register(insn.rb())
    }

    /// The value of the instruction's RC register.
    #[inline(always)]
    fn rc(&self, insn: &Op) -> Quadword {
        self.register(insn.rc())
    }

    /// The value of the instruction's RT register (read by stores, conditional branches,
    /// `iohl`, the extended and accumulating arithmetic).
    #[inline(always)]
    fn rt(&self, insn: &Op) -> Quadword {
        self.register(insn.rt())
    }
}

impl<C: CodeStore> Machine for SpuState<C> {
    #[inline(always)]
    fn register(&self, index: u8) -> Quadword {
        SpuState::register(self, index)
    }

    #[inline(always)]
    fn set_register(&mut self, index: u8, value: Quadword) {
        SpuState::set_register(self, index, value);
    }

    #[inline(always)]
    fn load_quadword(&self, address: u32) -> Quadword {
        self.local_store.load_quadword(address)
    }

    #[inline(always)]
    fn store_quadword(&mut self, address: u32, value: Quadword) {
        self.local_store.store_quadword(address, value);
    }

    // Register and local store meet in one 128-bit copy each way (`vector_lanes::copy`).
    #[inline(always)]
    fn load_register(&mut self, rt: u8, address: u32) {
        let register = &mut self.registers[usize::from(rt & 0x7f)];
        vector_lanes::copy(self.local_store.quadword(address), register);
    }

    #[inline(always)]
    fn store_register(&mut self, rt: u8, address: u32) {
        let register = &self.registers[usize::from(rt & 0x7f)];
        self.local_store.store_from(address, register);
    }

    #[inline(always)]
    fn channels(&mut self) -> &mut Channels {
        &mut self.channels
    }

    #[inline(always)]
    fn fpscr(&self) -> Quadword {
        self.fpscr
    }

    #[inline(always)]
    fn set_fpscr(&mut self, value: Quadword) {
        self.fpscr = value;
    }

    #[inline(always)]
    fn set_interrupts_enabled(&mut self, enabled: bool) {
        self.interrupts_enabled = enabled;
    }

    fn channel_context(&self) -> ChannelContext {
        ChannelContext {
            now: self.cycles,
            spu: self.id.get(),
            interrupts_enabled: self.interrupts_enabled,
        }
    }
}
