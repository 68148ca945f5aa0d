//! A run-ahead copy of an SPU's architectural state without a local store of its own, for
//! ideal fetch in the lean configuration (feature `spu-lean`).
//!
//! Ideal fetch runs every instruction ahead, when it is fetched, in a copy of the architectural
//! state (see `pipeline/model/ideal_fetch.rs`). The default configuration copies the whole
//! [`SpuState`], local store included. A [`ShadowState`] copies the registers and the rest of
//! the small state only: it reads the local store of the state it shadows and keeps its own
//! stores aside, in program order, until that state has made them. The shadow runs at most a
//! few instructions ahead (those in the issue stages and in the execution pipes before stage
//! o), so a short list holds every store it is ahead by; the pipeline tells it which
//! instructions the architectural state has completed ([`ShadowState::completed_through`]).

use super::channels::{ChannelContext, Channels};
use super::flow::{Flow, instruction_address};
use super::instructions::apply;
use super::local_store::{LS_ADDRESS_MASK, LocalStore};
use super::machine::Machine;
use super::op::Op;
use super::outcome::{Fault, Status, StopReason};
use super::quadword::Quadword;
use super::run_ahead::RunAhead;
use super::state::{REGISTER_COUNT, SpuState};
use crate::spu::isa::Instruction;

/// Stores the shadow can be ahead by. The pipeline checks at compile time that it exceeds the
/// instructions in flight before stage o.
pub(crate) const STORES_AHEAD: usize = 32;

/// Quadwords in the local store: one bit each marks those with a store kept aside.
const QUADWORDS: usize = (LS_ADDRESS_MASK as usize + 1) / 16;

/// A store the shadow made that the architectural state has not made yet.
#[derive(Clone, Copy, Debug)]
struct StoreAhead {
    /// Fetch sequence number of the storing instruction.
    seq: u64,
    /// Quadword-aligned local-store address.
    address: u32,
    value: Quadword,
}

const NO_STORE: StoreAhead = StoreAhead {
    seq: 0,
    address: 0,
    value: Quadword::ZERO,
};

/// The run-ahead copy (see the module documentation). All-zero bits when new.
#[derive(Clone, Debug)]
pub(crate) struct ShadowState {
    pc: u32,
    registers: [Quadword; REGISTER_COUNT],
    channels: Channels,
    fpscr: Quadword,
    interrupts_enabled: bool,
    status: Status,
    /// The stores ahead, oldest first: a ring of `count` entries from `first`.
    stores: [StoreAhead; STORES_AHEAD],
    first: usize,
    count: usize,
    /// One bit per quadword of the local store: a store ahead may hold it.
    marked: [u64; QUADWORDS / 64],
    /// A store did not fit: the instruction that made it must not be replayed, and fetch must
    /// wait until it completed (never expected: see [`STORES_AHEAD`]).
    overflowed: bool,
}

impl ShadowState {
    /// An empty copy; [`sync_from`](Self::sync_from) fills it.
    pub(crate) const fn new() -> Self {
        ShadowState {
            pc: 0,
            registers: [Quadword::ZERO; REGISTER_COUNT],
            channels: Channels::new(),
            fpscr: Quadword::ZERO,
            interrupts_enabled: false,
            status: Status::Running,
            stores: [NO_STORE; STORES_AHEAD],
            first: 0,
            count: 0,
            marked: [0; QUADWORDS / 64],
            overflowed: false,
        }
    }

    /// Becomes a copy of `arch`, with no store ahead.
    pub(crate) fn sync_from(&mut self, arch: &SpuState) {
        self.pc = arch.pc();
        self.registers = *arch.registers();
        self.channels = *arch.channels();
        self.fpscr = arch.fpscr();
        self.interrupts_enabled = arch.interrupts_enabled();
        self.status = arch.status();
        while self.count > 0 {
            self.drop_oldest();
        }
        self.overflowed = false;
    }

    /// The program counter.
    pub(crate) fn pc(&self) -> u32 {
        self.pc
    }

    /// The execution status.
    pub(crate) fn status(&self) -> Status {
        self.status
    }

    /// Register `$index` (modulo 128).
    pub(crate) fn register(&self, index: u8) -> Quadword {
        self.registers[usize::from(index & 0x7f)]
    }

    /// Whether a store did not fit since the last sync.
    pub(crate) fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// The quadword at `address` as the shadow sees it: its newest store ahead there, else
    /// `base` (the local store of the shadowed state).
    #[inline]
    pub(crate) fn load_quadword(&self, base: &LocalStore, address: u32) -> Quadword {
        let address = address & LS_ADDRESS_MASK & !15;
        if self.is_marked(address) {
            for offset in (0..self.count).rev() {
                let store = self.stores[(self.first + offset) % STORES_AHEAD];
                if store.address == address {
                    return store.value;
                }
            }
        }
        base.load_quadword(address)
    }

    /// The big-endian word at `address & !3`, as the shadow sees it (instruction fetch).
    #[inline]
    pub(crate) fn load_word(&self, base: &LocalStore, address: u32) -> u32 {
        let words = self.load_quadword(base, address).words();
        words[((address >> 2) & 3) as usize]
    }

    /// The shadowed state completed every instruction up to fetch sequence number `seq`: the
    /// stores ahead they made are in its local store now.
    #[inline]
    pub(crate) fn completed_through(&mut self, seq: u64) {
        while self.count > 0 && self.stores[self.first].seq <= seq {
            self.drop_oldest();
        }
    }

    /// Runs `insn` (fetch sequence number `seq`) at the PC like
    /// [`SpuState::run_ahead`], reading `base` for the local store.
    #[inline(always)]
    pub(crate) fn run_ahead(
        &mut self,
        base: &LocalStore,
        insn: &Instruction,
        seq: u64,
    ) -> RunAhead {
        let pc = self.pc;
        if let Status::Stopped(_) = self.status {
            return RunAhead::Unusual;
        }
        let fall_through = instruction_address(pc.wrapping_add(4));
        let flow = apply::<false>(
            &mut Ahead {
                shadow: self,
                base,
                seq,
            },
            &Op::of(insn),
            pc,
        );
        let (ahead, next_pc) = match flow {
            Flow::Next => (RunAhead::Next, fall_through),
            Flow::Nop => (RunAhead::Nop, fall_through),
            Flow::Load(address) => (RunAhead::Load(address), fall_through),
            Flow::Store(address) => (RunAhead::Store(address), fall_through),
            Flow::Branch(target) => (RunAhead::Branch(target), target),
            unusual => {
                self.finish_unusual(unusual, pc, insn.word);
                return RunAhead::Unusual;
            }
        };
        // A retried channel access that went through leaves `Blocked`, as in `execute`.
        self.status = Status::Running;
        self.pc = next_pc;
        ahead
    }

    /// The status and PC after a checkpoint, stop, halt, channel wait or fault, as
    /// [`SpuState::execute`] leaves them (the shadow keeps no counters).
    #[cold]
    fn finish_unusual(&mut self, flow: Flow, pc: u32, word: u32) {
        let fall_through = instruction_address(pc.wrapping_add(4));
        let (status, next_pc) = match flow {
            Flow::Stop(signal) => (
                Status::Stopped(StopReason::Stop { pc, signal }),
                fall_through,
            ),
            Flow::Halt => (Status::Stopped(StopReason::Halt { pc }), fall_through),
            Flow::Blocked(channel) => (Status::Blocked { channel }, pc),
            Flow::Fault(kind) => (
                Status::Stopped(StopReason::Fault(Fault { pc, word, kind })),
                pc,
            ),
            Flow::Branch(target) | Flow::InterruptBranch(target) => (Status::Running, target),
            Flow::Checkpoint(_)
            | Flow::Next
            | Flow::Nop
            | Flow::Load(_)
            | Flow::Store(_)
            | Flow::Channel
            | Flow::ChannelAccess(_) => (Status::Running, fall_through),
        };
        self.status = status;
        self.pc = next_pc;
    }

    fn is_marked(&self, address: u32) -> bool {
        let quadword = (address >> 4) as usize;
        self.marked[quadword / 64] & (1 << (quadword % 64)) != 0
    }

    fn mark(&mut self, address: u32, on: bool) {
        let quadword = (address >> 4) as usize;
        let bit = 1 << (quadword % 64);
        let word = &mut self.marked[quadword / 64];
        *word = if on { *word | bit } else { *word & !bit };
    }

    fn store_ahead(&mut self, address: u32, value: Quadword, seq: u64) {
        if self.count == STORES_AHEAD {
            self.overflowed = true;
            return;
        }
        self.stores[(self.first + self.count) % STORES_AHEAD] = StoreAhead {
            seq,
            address,
            value,
        };
        self.count += 1;
        self.mark(address, true);
    }

    fn drop_oldest(&mut self) {
        let address = self.stores[self.first].address;
        self.first = (self.first + 1) % STORES_AHEAD;
        self.count -= 1;
        let still_ahead = (0..self.count)
            .any(|offset| self.stores[(self.first + offset) % STORES_AHEAD].address == address);
        self.mark(address, still_ahead);
    }
}

impl Default for ShadowState {
    fn default() -> Self {
        Self::new()
    }
}

/// The shadow as a [`Machine`] while it runs one instruction: the local store reads go to
/// `base` unless a store ahead holds the quadword, stores are kept aside under `seq`.
struct Ahead<'a> {
    shadow: &'a mut ShadowState,
    base: &'a LocalStore,
    seq: u64,
}

impl Machine for Ahead<'_> {
    #[inline(always)]
    fn register(&self, index: u8) -> Quadword {
        self.shadow.register(index)
    }

    #[inline(always)]
    fn set_register(&mut self, index: u8, value: Quadword) {
        self.shadow.registers[usize::from(index & 0x7f)] = value;
    }

    #[inline(always)]
    fn load_quadword(&self, address: u32) -> Quadword {
        self.shadow.load_quadword(self.base, address)
    }

    #[inline(always)]
    fn store_quadword(&mut self, address: u32, value: Quadword) {
        self.shadow.store_ahead(address, value, self.seq);
    }

    #[inline(always)]
    fn channels(&mut self) -> &mut Channels {
        &mut self.shadow.channels
    }

    // Channel instructions do not run ahead (fetch waits for them at stage o); the context
    // is the copy's as of its last sync.
    fn channel_context(&self) -> ChannelContext {
        ChannelContext {
            now: 0,
            spu: 0,
            interrupts_enabled: self.shadow.interrupts_enabled,
        }
    }

    #[inline(always)]
    fn fpscr(&self) -> Quadword {
        self.shadow.fpscr
    }

    #[inline(always)]
    fn set_fpscr(&mut self, value: Quadword) {
        self.shadow.fpscr = value;
    }

    #[inline(always)]
    fn set_interrupts_enabled(&mut self, enabled: bool) {
        self.shadow.interrupts_enabled = enabled;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spu::isa::decode;

    fn quadword(n: u32) -> Quadword {
        Quadword::from_words([n, n + 1, n + 2, n + 3])
    }

    #[test]
    fn a_store_run_ahead_is_seen_by_the_shadow_until_the_state_has_made_it() {
        let mut arch = SpuState::new(0);
        arch.set_register(3, quadword(7));
        arch.set_register(4, Quadword::from_preferred_word(0x100));
        let mut shadow = ShadowState::new();
        shadow.sync_from(&arch);
        // stqd $3,0($4) then lqd $5,0($4), fetch sequence numbers 10 and 11.
        let store = decode(0x2400_0203).unwrap();
        let load = decode(0x3400_0205).unwrap();
        let base = arch.local_store();
        assert_eq!(shadow.run_ahead(base, &store, 10), RunAhead::Store(0x100));
        assert_eq!(shadow.run_ahead(base, &load, 11), RunAhead::Load(0x100));
        assert_eq!(
            shadow.register(5),
            quadword(7),
            "the load sees the store kept aside"
        );
        assert_eq!(shadow.load_word(base, 0x104), 8);
        assert_eq!(
            base.load_quadword(0x100),
            Quadword::ZERO,
            "the state is untouched"
        );
        // Not yet made by the state: still aside. Made: gone, the state's store is read.
        shadow.completed_through(9);
        assert_eq!(shadow.load_quadword(base, 0x100), quadword(7));
        shadow.completed_through(10);
        assert_eq!(shadow.load_quadword(base, 0x100), Quadword::ZERO);
        assert_eq!(shadow.pc(), 8);
    }

    #[test]
    fn the_newest_store_to_an_address_wins_until_it_is_made() {
        let arch = SpuState::new(0);
        let base = arch.local_store();
        let mut shadow = ShadowState::new();
        shadow.store_ahead(0x40, quadword(1), 1);
        shadow.store_ahead(0x50, quadword(2), 2);
        shadow.store_ahead(0x40, quadword(3), 3);
        assert_eq!(shadow.load_quadword(base, 0x4c), quadword(3));
        shadow.completed_through(1);
        assert_eq!(shadow.load_quadword(base, 0x40), quadword(3));
        assert_eq!(shadow.load_quadword(base, 0x50), quadword(2));
        shadow.completed_through(3);
        assert_eq!(shadow.load_quadword(base, 0x40), Quadword::ZERO);
        assert_eq!(shadow.load_quadword(base, 0x50), Quadword::ZERO);
    }

    #[test]
    fn a_store_that_does_not_fit_is_reported_and_a_sync_clears_it() {
        let arch = SpuState::new(0);
        let mut shadow = ShadowState::new();
        for seq in 0..STORES_AHEAD as u64 {
            shadow.store_ahead(16 * seq as u32, quadword(1), seq);
        }
        assert!(!shadow.overflowed());
        shadow.store_ahead(0x1000, quadword(2), 99);
        assert!(shadow.overflowed());
        assert_eq!(
            shadow.load_quadword(arch.local_store(), 0x1000),
            Quadword::ZERO
        );
        shadow.sync_from(&arch);
        assert!(!shadow.overflowed());
        assert_eq!(shadow.load_quadword(arch.local_store(), 0), Quadword::ZERO);
    }
}
