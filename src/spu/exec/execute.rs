//! The interpreter's entry points: [`SpuState::execute`] and [`SpuState::execute_at_cycle`] apply one
//! decoded instruction (what each instruction does is in [`instructions`](super::instructions),
//! one file per family) and retire it: counters, clock, PC and the [`Executed`] report.

use super::code::CodeStore;
use super::flow::{Flow, instruction_address};
use super::instructions::apply;
use super::op::Op;
use super::outcome::{Executed, Fault, LsAccess, Status, StopReason};
use super::profile::ProfileCheckpoint;
use super::state::SpuState;
use crate::probe::listeners::AccessKind;
use crate::spu::isa::Instruction;

/// The report of a quadword load or store (every SPU data access is one quadword).
fn quadword_access(address: u32, kind: AccessKind) -> LsAccess {
    LsAccess {
        address,
        size: 16,
        kind,
    }
}

/// What an ordinary instruction was ([`SpuState::execute_uncounted`]): NOP-class, a taken
/// branch, a load from this quadword address (a store's address is known before it runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// The lean configuration has no fast-forward to tell an observer of the last two.
#[cfg_attr(feature = "spu-lean", allow(dead_code))]
pub(crate) struct Ordinary {
    pub is_nop: bool,
    pub branch_taken: bool,
    pub loaded: Option<u32>,
}

impl Ordinary {
    /// A plain instruction: none of these.
    const PLAIN: Ordinary = Ordinary {
        is_nop: false,
        branch_taken: false,
        loaded: None,
    };
}

impl<C: CodeStore> SpuState<C> {
    /// Executes one decoded instruction at the current PC, in instruction mode (every
    /// retired instruction takes one cycle for the profiling counters), and reports its
    /// effect. A stopped SPU does nothing and reports `retired: false`.
    ///
    /// The caller is responsible for `insn` being the instruction at [`pc`](SpuState::pc)
    /// (`step` fetches it); relative branches and `lqr`/`stqr` use the current PC.
    // Inline hint: a caller that loops over `execute` gets the interpreter inline, as `step`
    // and the pipeline's stage o do.
    #[inline]
    pub fn execute(&mut self, insn: &Instruction) -> Executed {
        self.execute_inner::<false>(&Op::of(insn), insn.word, 0)
    }

    /// Like [`execute`](Self::execute) for a timing model: `cycle` is the current cycle
    /// count, used by the profiling counters instead of one cycle per instruction.
    pub fn execute_at_cycle(&mut self, insn: &Instruction, cycle: u64) -> Executed {
        self.execute_inner::<true>(&Op::of(insn), insn.word, cycle)
    }

    /// The shared body of `execute` (`AT_CYCLE` false: the clock advances by one per retired
    /// instruction) and `execute_at_cycle` (`AT_CYCLE` true: the clock becomes `cycle`).
    ///
    /// Hot path: a plain fall-through, a load/store or a branch retires right here; stops,
    /// halts, checkpoints, blocking channel accesses and faults go to a cold helper.
    ///
    /// Always inlined, so `execute`, `execute_at_cycle` and `step` each hold a copy of the
    /// common part of the interpreter (about 9 KiB of x86-64 code each; the rarer instructions
    /// are shared out of line): the call and the register saves of a separate function were a
    /// fifth of the instructions executed per SPU instruction.
    #[inline(always)]
    pub(super) fn execute_inner<const AT_CYCLE: bool>(
        &mut self,
        insn: &Op,
        word: u32,
        cycle: u64,
    ) -> Executed {
        let pc = self.pc;
        if let Status::Stopped(_) = self.status {
            return self.not_executed(pc, word);
        }
        let fall_through = instruction_address(pc.wrapping_add(4));
        match apply::<false>(self, insn, pc) {
            Flow::Next => {
                self.retire::<AT_CYCLE>(cycle, false);
                self.report(pc, word, fall_through, false, None, false)
            }
            Flow::Load(address) => {
                self.retire::<AT_CYCLE>(cycle, false);
                let access = quadword_access(address, AccessKind::Read);
                self.report(pc, word, fall_through, false, Some(access), false)
            }
            Flow::Store(address) => {
                self.retire::<AT_CYCLE>(cycle, false);
                let access = quadword_access(address, AccessKind::Write);
                self.report(pc, word, fall_through, false, Some(access), false)
            }
            Flow::Branch(target) => {
                self.retire::<AT_CYCLE>(cycle, false);
                self.report(pc, word, target, true, None, false)
            }
            Flow::Nop => {
                self.retire::<AT_CYCLE>(cycle, true);
                self.report(pc, word, fall_through, false, None, true)
            }
            unusual => self.finish_unusual::<AT_CYCLE>(unusual, pc, word, cycle),
        }
    }

    /// The report of a retired instruction that left the SPU running; moves the PC on.
    #[inline(always)]
    fn report(
        &mut self,
        pc: u32,
        word: u32,
        next_pc: u32,
        branch_taken: bool,
        access: Option<LsAccess>,
        is_nop: bool,
    ) -> Executed {
        self.pc = next_pc;
        Executed::retired_running(pc, word, next_pc, branch_taken, access, is_nop)
    }

    /// Executes `insn` at the PC like [`execute`](Self::execute) but leaves the counting to
    /// the caller: an instruction that retires, leaves the SPU running and is no checkpoint
    /// moves the PC on and comes back as `Ok` with what it was ([`Ordinary`]), uncounted
    /// (the retirement counters, the clock and the profile counters have not moved;
    /// [`count_retired`](Self::count_retired) adds them, as many as the caller held back, in
    /// one go). Anything else comes back as `Err(flow)` with nothing of its ending done: the
    /// caller first counts what it held back, then has [`finish_unusual`](Self::finish_unusual)
    /// finish the step, since checkpoints read the counters. The caller has checked that the
    /// SPU is not stopped.
    #[inline(always)]
    pub(super) fn execute_uncounted(&mut self, insn: &Op) -> Result<Ordinary, Flow> {
        let pc = self.pc;
        let fall_through = instruction_address(pc.wrapping_add(4));
        // One match that gives everything at once: the compiler threads it into each
        // instruction's arm (a caller that wants only `is_nop` pays for nothing else).
        let (next_pc, ordinary) = match apply::<false>(self, insn, pc) {
            Flow::Next => (fall_through, Ordinary::PLAIN),
            Flow::Load(address) => (
                fall_through,
                Ordinary {
                    loaded: Some(address),
                    ..Ordinary::PLAIN
                },
            ),
            Flow::Store(_) => (fall_through, Ordinary::PLAIN),
            Flow::Branch(target) => (
                target,
                Ordinary {
                    branch_taken: true,
                    ..Ordinary::PLAIN
                },
            ),
            Flow::Nop => (
                fall_through,
                Ordinary {
                    is_nop: true,
                    ..Ordinary::PLAIN
                },
            ),
            unusual => return Err(unusual),
        };
        // A retried channel access that went through leaves `Blocked`, as in `execute`.
        self.status = Status::Running;
        self.pc = next_pc;
        Ok(ordinary)
    }

    /// Counts `instructions` ordinary retirements (`nops` of them NOP-class) that
    /// [`execute_uncounted`](Self::execute_uncounted) held back, one cycle each: what
    /// `retire` would have counted for each of them.
    #[inline(always)]
    pub(super) fn count_retired(&mut self, instructions: u64, nops: u64) {
        let non_nop = instructions.wrapping_sub(nops);
        self.retired = self.retired.wrapping_add(instructions);
        self.retired_non_nop = self.retired_non_nop.wrapping_add(non_nop);
        self.cycles = self.cycles.wrapping_add(instructions);
        self.profile.count_many(instructions, non_nop);
    }

    /// Retirement bookkeeping shared by every retired instruction: the status leaves
    /// `Blocked` (a retried channel access went through), the counters and the clock advance.
    #[inline(always)]
    pub(super) fn retire<const AT_CYCLE: bool>(&mut self, cycle: u64, is_nop: bool) {
        self.status = Status::Running;
        self.retired = self.retired.wrapping_add(1);
        self.retired_non_nop = self.retired_non_nop.wrapping_add(u64::from(!is_nop));
        self.cycles = if AT_CYCLE {
            cycle
        } else {
            self.cycles.wrapping_add(1)
        };
        self.profile.count(is_nop);
    }

    /// The report when the SPU is stopped: nothing happens.
    #[cold]
    #[inline(never)]
    pub(super) fn not_executed(&self, pc: u32, word: u32) -> Executed {
        Executed {
            pc,
            word,
            next_pc: pc,
            branch_taken: false,
            access: None,
            profile: None,
            is_nop: false,
            retired: false,
            status: self.status,
        }
    }

    /// Checkpoints, stops, halts (which retire), blocking channel accesses and faults (which
    /// do not).
    #[cold]
    #[inline(never)]
    pub(super) fn finish_unusual<const AT_CYCLE: bool>(
        &mut self,
        flow: Flow,
        pc: u32,
        word: u32,
        cycle: u64,
    ) -> Executed {
        let fall_through = instruction_address(pc.wrapping_add(4));
        let mut executed = Executed {
            pc,
            word,
            next_pc: fall_through,
            branch_taken: false,
            access: None,
            profile: None,
            is_nop: false,
            retired: true,
            status: Status::Running,
        };
        if AT_CYCLE {
            // A channel access reads the clock (the decrementer, the MFC's timing); the hot
            // path leaves setting it to `retire`, which nothing before it reads.
            self.cycles = cycle;
        }
        let flow = match flow {
            // The counters are up to date now: the access sees the right cycle.
            Flow::ChannelAccess(instruction) => self.access_channel(instruction),
            other => other,
        };
        match flow {
            Flow::Checkpoint(number) => {
                // Counters first, then the checkpoint action (see `profile` for the rule).
                self.retire::<AT_CYCLE>(cycle, true);
                executed.is_nop = true;
                self.profile.apply(number, self.cycles);
                executed.profile = Some(ProfileCheckpoint {
                    spu: self.id.get(),
                    checkpoint: number,
                    instructions: self.profile.instructions,
                    non_nop_instructions: self.profile.non_nop_instructions,
                    cycles: self.profile.cycles_at(self.cycles),
                });
            }
            Flow::Stop(signal) => {
                self.retire::<AT_CYCLE>(cycle, false);
                self.status = Status::Stopped(StopReason::Stop { pc, signal });
            }
            Flow::Halt => {
                self.retire::<AT_CYCLE>(cycle, false);
                self.status = Status::Stopped(StopReason::Halt { pc });
            }
            Flow::Blocked(channel) => {
                self.status = Status::Blocked { channel };
                executed.next_pc = pc;
                executed.retired = false;
            }
            Flow::Fault(kind) => {
                self.status = Status::Stopped(StopReason::Fault(Fault { pc, word, kind }));
                executed.next_pc = pc;
                executed.retired = false;
            }
            Flow::Channel => self.retire::<AT_CYCLE>(cycle, false),
            // Resolved above.
            Flow::ChannelAccess(_) => self.retire::<AT_CYCLE>(cycle, false),
            Flow::InterruptBranch(target) => {
                self.retire::<AT_CYCLE>(cycle, false);
                executed.next_pc = target;
                executed.branch_taken = true;
            }
            // The hot path handles these; they are listed to keep the match exhaustive.
            Flow::Next => self.retire::<AT_CYCLE>(cycle, false),
            Flow::Nop => {
                self.retire::<AT_CYCLE>(cycle, true);
                executed.is_nop = true;
            }
            Flow::Load(address) => {
                self.retire::<AT_CYCLE>(cycle, false);
                executed.access = Some(quadword_access(address, AccessKind::Read));
            }
            Flow::Store(address) => {
                self.retire::<AT_CYCLE>(cycle, false);
                executed.access = Some(quadword_access(address, AccessKind::Write));
            }
            Flow::Branch(target) => {
                self.retire::<AT_CYCLE>(cycle, false);
                executed.next_pc = target;
                executed.branch_taken = true;
            }
        }
        self.pc = executed.next_pc;
        executed.status = self.status;
        executed
    }
}
