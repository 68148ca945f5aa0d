//! What an instruction did to the control flow, as the interpreter reports it to its callers
//! (the entry points in `execute.rs`, the run-ahead copies).

use super::local_store::LS_ADDRESS_MASK;
use super::outcome::{ChannelOperation, FaultKind};

/// Control-flow effect of one instruction, and how it counts for the statistics.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Flow {
    /// Fall through to the next instruction.
    Next,
    /// Fall through; the instruction is NOP-class (`nop`, `lnop`, the hints).
    Nop,
    /// Fall through; the instruction was the profiling checkpoint `prof_cpN` (NOP-class).
    Checkpoint(u8),
    /// Fall through after a quadword load from this (aligned, wrapped) address.
    Load(u32),
    /// Fall through after a quadword store to this (aligned, wrapped) address.
    Store(u32),
    /// Taken branch to this address.
    Branch(u32),
    /// `stop`/`stopd` with a signal.
    Stop(u16),
    /// A halt condition held.
    Halt,
    /// A channel instruction, not yet performed: the caller performs it
    /// ([`SpuState::access_channel`](super::SpuState)) once the clock and the counters are up
    /// to date (the quiet run loops count ordinary instructions late), which resolves it into
    /// `Channel`, `Blocked` or `Fault`.
    ChannelAccess(ChannelInstruction),
    /// A channel access completed: fall through, and the caller services the channels
    /// (the MFC, the events, a due interrupt) before the next instruction.
    Channel,
    /// A taken branch that may change the interrupt state (`iret`, `bisled`, an indirect
    /// branch with the E or D feature bit): as `Branch`, then as `Channel`.
    InterruptBranch(u32),
    /// A channel access must wait.
    Blocked(u8),
    /// The instruction cannot execute.
    Fault(FaultKind),
}

/// A channel instruction's operands: which instruction, the channel (RA field) and the
/// register (RT field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChannelInstruction {
    pub operation: ChannelOperation,
    pub channel: u8,
    pub register: u8,
}

/// Word-aligned LS address for branch targets.
pub(crate) fn instruction_address(address: u32) -> u32 {
    address & LS_ADDRESS_MASK & !3
}
