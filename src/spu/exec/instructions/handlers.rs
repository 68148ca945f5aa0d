//! The dispatch tables of instruction mode's run loops: one handler per mnemonic, each the
//! instruction's function applied to the architectural state ([`apply_as`] with the mnemonic
//! a constant, so one arm is left), which then runs the next instruction's handler itself.
//!
//! A run calls the handler of its first op with the number of instructions it may run after
//! it; each handler retires its instruction, looks up the next op in the decoded code and
//! calls that op's handler as its last act (a tail call: the compiler makes it a jump), until
//! the count is used up or an instruction is not ordinary. So every handler has a dispatch
//! jump of its own, which the host's branch predictor learns per instruction ("what follows
//! an `a`"), where one shared dispatch site in a loop had to guess among every instruction of
//! the program: on a 32-instruction loop the shared site cost three times the CPU time. (A
//! loop with the whole interpreter inline, one `match` on the mnemonic, also kept the op's
//! fields and the loop's state on the stack across its 200 arms.) A chain is at most
//! [`CHAIN`] long, so a build that does not turn the calls into jumps (unoptimised) stays
//! within a few pages of stack.
//!
//! Two tables: [`QUIET`] chains through everything ordinary; [`OBSERVED`] (for the loop that
//! tells observers) also stops after a load, a store or a branch instruction, which the
//! loop's sink records.

use super::super::code::CodeStore;
use super::super::flow::{Flow, instruction_address};
use super::super::op::Op;
use super::super::state::SpuState;
use super::dispatch::{INLINE_SP_IN_RUN_LOOPS, apply_as};
use super::float_sp;
use crate::spu::isa::{Mnemonic, with_mnemonics};

/// The longest chain of handlers one call runs.
pub(crate) const CHAIN: u32 = 256;

/// Bare metal keeps one table, [`OBSERVED`], for both loops, and its handlers send the rarer
/// instructions to the interpreter's one out-of-line copy (`apply_rare`): the firmware image
/// has a size budget (`tests/image_size.rs`), which two tables of 200 handlers with every
/// instruction inline overran by 45 KB. The quiet loop then meets a chain's end after each
/// load, store and branch instruction too.
pub(crate) const ONE_TABLE: bool = cfg!(target_os = "none");

/// What the last handler of a chain reports: the next PC in bits 2..17 and these flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Retirement(pub u32);

impl Retirement {
    /// A NOP-class instruction.
    pub(crate) const NOP: u32 = 1;
    /// Not ordinary: the instruction's [`Flow`] is in `SpuState::unusual`, its step is not
    /// finished, and the PC bits hold its address.
    pub(crate) const UNUSUAL: u32 = 2;
    /// A load; its quadword address is in `SpuState::access`.
    pub(crate) const LOAD: u32 = 1 << 18;
    /// A store; its quadword address is in `SpuState::access`.
    pub(crate) const STORE: u32 = 1 << 19;
    /// A taken branch.
    pub(crate) const TAKEN: u32 = 1 << 20;
    /// A branch instruction, taken or not ([`OBSERVED`] only).
    pub(crate) const BRANCH: u32 = 1 << 21;
    /// The bits of the PC.
    pub(crate) const PC: u32 = 0x3fffc;

    /// The next PC (for [`UNUSUAL`](Self::UNUSUAL): the instruction's own).
    #[inline(always)]
    pub(crate) fn pc(self) -> u32 {
        self.0 & Self::PC
    }

    /// Whether any of `flags` is set.
    #[inline(always)]
    pub(crate) fn has(self, flags: u32) -> bool {
        self.0 & flags != 0
    }
}

/// Where a chain ended: the last instruction's [`Retirement`] (bits 0..31), its address
/// (32..49) and how many more the chain could have run of the count it was given (50..63).
/// One word, so that it comes back in a register and each handler's call of the next one
/// can be a jump.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChainEnd(u64);

impl ChainEnd {
    #[inline(always)]
    fn new(pc: u32, retirement: Retirement, left: u32) -> Self {
        ChainEnd(u64::from(retirement.0) | u64::from(pc) << 32 | u64::from(left) << 50)
    }

    /// The last instruction's retirement.
    #[inline(always)]
    pub(crate) fn retirement(self) -> Retirement {
        Retirement(self.0 as u32)
    }

    /// The last instruction's address.
    #[inline(always)]
    pub(crate) fn pc(self) -> u32 {
        (self.0 >> 32) as u32 & Retirement::PC
    }

    /// How many more instructions the chain could have run.
    #[inline(always)]
    pub(crate) fn left(self) -> u32 {
        (self.0 >> 50) as u32
    }
}

// `left` is below CHAIN: 14 bits hold it.
const _: () = assert!(CHAIN < 1 << 14);

/// A handler: runs the instruction `op` at `pc` on the architectural state, then (if it was
/// ordinary and `left` is not zero) the chain on from the next instruction with `left - 1`.
/// Instructions are not counted (the caller counts); NOP-class ones add to `SpuState::nops`.
pub(crate) type Handler = fn(&mut SpuState, Op, u32, u32) -> ChainEnd;

impl SpuState {
    /// The retirement of an instruction at `pc` that did `flow`. A store into decoded code
    /// makes the decoded code catch up before the next instruction.
    #[inline(always)]
    fn retirement(&mut self, flow: Flow, pc: u32) -> Retirement {
        let next = instruction_address(pc.wrapping_add(4));
        Retirement(match flow {
            Flow::Next => next,
            Flow::Nop => {
                self.nops += 1;
                next | Retirement::NOP
            }
            Flow::Load(address) => {
                self.access = address;
                next | Retirement::LOAD
            }
            Flow::Store(address) => {
                self.access = address;
                self.catch_up_code();
                next | Retirement::STORE
            }
            Flow::Branch(target) => target | Retirement::TAKEN,
            unusual => {
                self.unusual = unusual;
                pc | Retirement::UNUSUAL
            }
        })
    }
}

/// The handler of mnemonic number `M`; `OBSERVING`: the chain stops after a load, a store
/// or a branch instruction.
#[inline(always)]
fn handle<const M: usize, const OBSERVING: bool>(
    spu: &mut SpuState,
    op: Op,
    pc: u32,
    left: u32,
) -> ChainEnd {
    let mnemonic = Mnemonic::ALL[M];
    let flow = if let Some(arithmetic) = const { float_sp::vector_form(Mnemonic::ALL[M]) } {
        if !float_sp::write_whole(spu, arithmetic, &op) {
            return sp_lane_by_lane::<M, OBSERVING>(spu, op, pc, left);
        }
        Flow::Next
    } else {
        apply_as::<INLINE_SP_IN_RUN_LOOPS, { !ONE_TABLE }>(spu, mnemonic, &op, pc)
    };
    chain_on::<OBSERVING>(spu, mnemonic, flow, pc, left)
}

/// The handler of SP arithmetic `M` for operands its vector form did not take: the
/// lane-by-lane form, then the chain on. Out of line, reached by a tail call, so that the
/// vector form's handler keeps no state for it.
#[inline(never)]
fn sp_lane_by_lane<const M: usize, const OBSERVING: bool>(
    spu: &mut SpuState,
    op: Op,
    pc: u32,
    left: u32,
) -> ChainEnd {
    let mnemonic = Mnemonic::ALL[M];
    let flow = match const { float_sp::vector_form(Mnemonic::ALL[M]) } {
        Some(arithmetic) => float_sp::write_lane_by_lane(spu, arithmetic, &op),
        // Reached only from the handlers of SP arithmetic.
        None => apply_as::<INLINE_SP_IN_RUN_LOOPS, { !ONE_TABLE }>(spu, mnemonic, &op, pc),
    };
    chain_on::<OBSERVING>(spu, mnemonic, flow, pc, left)
}

/// Retires the instruction `mnemonic` at `pc` that did `flow`, then runs the chain on from
/// the next instruction with `left - 1`, unless the chain ends here.
#[inline(always)]
fn chain_on<const OBSERVING: bool>(
    spu: &mut SpuState,
    mnemonic: Mnemonic,
    flow: Flow,
    pc: u32,
    left: u32,
) -> ChainEnd {
    let mut retirement = spu.retirement(flow, pc);
    let is_branch = Op::is_branch_mnemonic(mnemonic);
    if OBSERVING && is_branch {
        retirement.0 |= Retirement::BRANCH;
    }
    let stop_here = retirement.has(Retirement::UNUSUAL)
        || OBSERVING && (is_branch || retirement.has(Retirement::LOAD | Retirement::STORE));
    if left == 0 || stop_here {
        return ChainEnd::new(pc, retirement, left);
    }
    let next = retirement.pc();
    let op = spu.code.op(next);
    let table = if OBSERVING || ONE_TABLE {
        &OBSERVED
    } else {
        &QUIET
    };
    table[op.index()](spu, op, next, left - 1)
}

fn quiet<const M: usize>(spu: &mut SpuState, op: Op, pc: u32, left: u32) -> ChainEnd {
    handle::<M, false>(spu, op, pc, left)
}

fn observed<const M: usize>(spu: &mut SpuState, op: Op, pc: u32, left: u32) -> ChainEnd {
    handle::<M, true>(spu, op, pc, left)
}

/// The handler of the indices no mnemonic has (an op is never built with one).
fn no_mnemonic(spu: &mut SpuState, _op: Op, pc: u32, left: u32) -> ChainEnd {
    spu.unusual = Flow::Fault(super::super::outcome::FaultKind::IllegalInstruction);
    ChainEnd::new(pc, Retirement(pc | Retirement::UNUSUAL), left)
}

macro_rules! handler_table {
    ($kind:ident; $($variant:ident),*) => {{
        let mut table = [no_mnemonic as Handler; 256];
        $(table[Mnemonic::$variant as usize] = $kind::<{ Mnemonic::$variant as usize }>;)*
        table
    }};
}

macro_rules! quiet_table {
    ($($variant:ident),*) => { handler_table!(quiet; $($variant),*) };
}

macro_rules! observed_table {
    ($($variant:ident),*) => { handler_table!(observed; $($variant),*) };
}

/// The quiet loop's handlers, indexed by [`Op::index`] (256 entries: any byte is an index).
pub(crate) static QUIET: [Handler; 256] = with_mnemonics!(quiet_table);
/// The observers' loop's handlers.
pub(crate) static OBSERVED: [Handler; 256] = with_mnemonics!(observed_table);
