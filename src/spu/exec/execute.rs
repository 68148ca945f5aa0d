//! Semantics of every SPU instruction: the dispatch from a decoded [`Instruction`] to its
//! effect on the [`Spu`] state.
//!
//! Element arithmetic lives in `ops_integer`, `ops_shift`, `permute`, `float_single` and
//! `float_double`; this file reads the operands, writes the result and handles control flow,
//! memory, channels and stops.

use super::channels::ChannelAccess;
use super::float_double as dp;
use super::float_single as sp;
use super::local_store::LS_ADDRESS_MASK;
use super::ops_integer::{self as int, Compare, Multiply, Width};
use super::ops_shift as shift;
use super::outcome::{
    AccessKind, ChannelOperation, Executed, Fault, FaultKind, LsAccess, Status, StopReason,
};
use super::permute::{self, InsertSize};
use super::profile::{ProfileCheckpoint, checkpoint_number};
use super::quadword::Quadword;
use super::state::Spu;
use crate::spu::isa::decode::Instruction;
use crate::spu::isa::opcodes::{FEATURE_D, FEATURE_E, Mnemonic};

/// Control-flow effect of one instruction, and how it counts for the statistics.
pub(super) enum Flow {
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
    /// A channel access must wait.
    Blocked(u8),
    /// The instruction cannot execute.
    Fault(FaultKind),
}

fn mask32(condition: bool) -> u32 {
    if condition { u32::MAX } else { 0 }
}

fn mask64(condition: bool) -> u64 {
    if condition { u64::MAX } else { 0 }
}

/// Quadword-aligned LS address.
fn quadword_address(address: u32) -> u32 {
    address & LS_ADDRESS_MASK & !0xf
}

/// RT, RA, RB and RC packed into one word, to hand an instruction to `apply_rare` in
/// registers: an `Instruction` passed whole goes through memory, and `step` would then read
/// its fields right after storing it (a store-forwarding stall on every instruction).
#[derive(Clone, Copy)]
struct RegisterFields(u32);

impl RegisterFields {
    #[inline(always)]
    fn of(insn: &Instruction) -> Self {
        RegisterFields(u32::from_le_bytes([insn.rt, insn.ra, insn.rb, insn.rc]))
    }
}

/// The report of a quadword load or store (every SPU data access is one quadword).
fn quadword_access(address: u32, kind: AccessKind) -> LsAccess {
    LsAccess {
        address,
        size: 16,
        kind,
    }
}

/// Word-aligned LS address for branch targets.
pub(super) fn instruction_address(address: u32) -> u32 {
    address & LS_ADDRESS_MASK & !3
}

/// Byte offset of an I16 word-address field (`imm << 2`).
fn word_offset(imm: i32) -> u32 {
    (imm as u32).wrapping_shl(2)
}

/// Defines `a!()`, `b!()`, `c!()` and `t!()`: the RA, RB, RC and RT register operands of
/// `$insn` in `$spu`, read where an arm uses them (most instructions use two registers or
/// fewer, so reading all four up front was a visible cost).
macro_rules! operand_readers {
    ($spu:ident, $insn:ident) => {
        macro_rules! a {
            () => {
                $spu.register($insn.ra)
            };
        }
        macro_rules! b {
            () => {
                $spu.register($insn.rb)
            };
        }
        macro_rules! c {
            () => {
                $spu.register($insn.rc)
            };
        }
        macro_rules! t {
            () => {
                $spu.register($insn.rt)
            };
        }
    };
}

impl Spu {
    /// Executes one decoded instruction at the current PC, in instruction mode (every
    /// retired instruction takes one cycle for the profiling counters), and reports its
    /// effect. A stopped SPU does nothing and reports `retired: false`.
    ///
    /// The caller is responsible for `insn` being the instruction at [`pc`](Spu::pc)
    /// (`step` fetches it); relative branches and `lqr`/`stqr` use the current PC.
    pub fn execute(&mut self, insn: &Instruction) -> Executed {
        self.execute_inner::<false>(insn, 0)
    }

    /// Like [`execute`](Self::execute) for a timing model: `cycle` is the current cycle
    /// count, used by the profiling counters instead of one cycle per instruction.
    pub fn execute_at_cycle(&mut self, insn: &Instruction, cycle: u64) -> Executed {
        self.execute_inner::<true>(insn, cycle)
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
        insn: &Instruction,
        cycle: u64,
    ) -> Executed {
        let pc = self.pc;
        if let Status::Stopped(_) = self.status {
            return self.not_executed(pc, insn.word);
        }
        let fall_through = instruction_address(pc.wrapping_add(4));
        match self.apply(insn, pc) {
            Flow::Next => {
                self.retire::<AT_CYCLE>(cycle, false);
                self.report(pc, insn.word, fall_through, false, None, false)
            }
            Flow::Load(address) => {
                self.retire::<AT_CYCLE>(cycle, false);
                let access = quadword_access(address, AccessKind::Read);
                self.report(pc, insn.word, fall_through, false, Some(access), false)
            }
            Flow::Store(address) => {
                self.retire::<AT_CYCLE>(cycle, false);
                let access = quadword_access(address, AccessKind::Write);
                self.report(pc, insn.word, fall_through, false, Some(access), false)
            }
            Flow::Branch(target) => {
                self.retire::<AT_CYCLE>(cycle, false);
                self.report(pc, insn.word, target, true, None, false)
            }
            Flow::Nop => {
                self.retire::<AT_CYCLE>(cycle, true);
                self.report(pc, insn.word, fall_through, false, None, true)
            }
            unusual => self.finish_unusual::<AT_CYCLE>(unusual, pc, insn.word, cycle),
        }
    }

    /// Retirement bookkeeping shared by every retired instruction: the status leaves
    /// `Blocked` (a retried channel access went through), the counters and the clock advance.
    #[inline(always)]
    fn retire<const AT_CYCLE: bool>(&mut self, cycle: u64, is_nop: bool) {
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
        match flow {
            Flow::Checkpoint(number) => {
                // Counters first, then the checkpoint action (see `profile` for the rule).
                self.retire::<AT_CYCLE>(cycle, true);
                executed.is_nop = true;
                self.profile.apply(number, self.cycles);
                executed.profile = Some(ProfileCheckpoint {
                    spu: self.id,
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

    fn set_interrupt_state(&mut self, bits: u8) -> Result<(), FaultKind> {
        let enable = bits & FEATURE_E != 0;
        let disable = bits & FEATURE_D != 0;
        match (enable, disable) {
            // The ISA leaves E and D together undefined; refuse it rather than guess.
            (true, true) => return Err(FaultKind::IllegalInstruction),
            (true, false) => self.interrupts_enabled = true,
            (false, true) => self.interrupts_enabled = false,
            (false, false) => {}
        }
        Ok(())
    }

    /// An indirect branch to `target` if `condition`, applying the E/D feature bits
    /// ([`Instruction::feature_bits`]) when taken.
    ///
    /// The instruction's fields are passed by value here and to `apply_rare`: handing out the
    /// instruction's address would force it into memory, and the hot path reads it from there
    /// right after storing it (store-forwarding stalls).
    fn branch_indirect(&mut self, bits: u8, condition: bool, target: u32) -> Flow {
        if bits & FEATURE_E != 0 && bits & FEATURE_D != 0 {
            return Flow::Fault(FaultKind::IllegalInstruction);
        }
        if !condition {
            return Flow::Next;
        }
        match self.set_interrupt_state(bits) {
            Ok(()) => Flow::Branch(instruction_address(target)),
            Err(kind) => Flow::Fault(kind),
        }
    }

    fn load(&mut self, rt: u8, address: u32) -> Flow {
        let address = quadword_address(address);
        let value = self.local_store.load_quadword(address);
        self.set_register(rt, value);
        Flow::Load(address)
    }

    fn store(&mut self, rt: u8, address: u32) -> Flow {
        let address = quadword_address(address);
        let value = self.register(rt);
        self.local_store.store_quadword(address, value);
        Flow::Store(address)
    }

    fn write(&mut self, rt: u8, value: Quadword) -> Flow {
        self.set_register(rt, value);
        Flow::Next
    }

    fn link_value(pc: u32) -> Quadword {
        Quadword::from_preferred_word(instruction_address(pc.wrapping_add(4)))
    }

    /// The effect of `insn` on registers, local store and channels; the caller retires it.
    ///
    /// The everyday instructions are handled here, inline; the rest in
    /// [`apply_rare`](Self::apply_rare).
    #[inline(always)]
    pub(super) fn apply(&mut self, insn: &Instruction, pc: u32) -> Flow {
        use Mnemonic as M;
        operand_readers!(self, insn);
        let imm = insn.imm;
        let rt = insn.rt;
        match insn.mnemonic {
            // ---- immediate loads
            M::Il => self.write(rt, Quadword::splat_word(imm as u32)),
            M::Ilh => self.write(rt, Quadword::splat_halfword(imm as u16)),
            M::Ilhu => self.write(rt, Quadword::splat_word((imm as u32) << 16)),
            M::Ila => self.write(rt, Quadword::splat_word(imm as u32 & 0x3_ffff)),
            M::Iohl => self.write(rt, t!().map_words(|w| w | (imm as u32 & 0xffff))),

            // ---- logical with immediates
            M::Andbi => self.write(
                rt,
                Quadword(a!().0 & int::splat_immediate(imm, Width::Byte).0),
            ),
            M::Andhi => self.write(
                rt,
                Quadword(a!().0 & int::splat_immediate(imm, Width::Halfword).0),
            ),
            M::Andi => self.write(
                rt,
                Quadword(a!().0 & int::splat_immediate(imm, Width::Word).0),
            ),
            M::Orbi => self.write(
                rt,
                Quadword(a!().0 | int::splat_immediate(imm, Width::Byte).0),
            ),
            M::Orhi => self.write(
                rt,
                Quadword(a!().0 | int::splat_immediate(imm, Width::Halfword).0),
            ),
            M::Ori => self.write(
                rt,
                Quadword(a!().0 | int::splat_immediate(imm, Width::Word).0),
            ),
            M::Xorbi => self.write(
                rt,
                Quadword(a!().0 ^ int::splat_immediate(imm, Width::Byte).0),
            ),
            M::Xorhi => self.write(
                rt,
                Quadword(a!().0 ^ int::splat_immediate(imm, Width::Halfword).0),
            ),
            M::Xori => self.write(
                rt,
                Quadword(a!().0 ^ int::splat_immediate(imm, Width::Word).0),
            ),

            // ---- add / subtract with immediates
            M::Ahi => self.write(
                rt,
                int::add(
                    a!(),
                    int::splat_immediate(imm, Width::Halfword),
                    Width::Halfword,
                ),
            ),
            M::Ai => self.write(
                rt,
                int::add(a!(), int::splat_immediate(imm, Width::Word), Width::Word),
            ),
            M::Sfhi => self.write(
                rt,
                int::subtract_from(
                    a!(),
                    int::splat_immediate(imm, Width::Halfword),
                    Width::Halfword,
                ),
            ),
            M::Sfi => self.write(
                rt,
                int::subtract_from(a!(), int::splat_immediate(imm, Width::Word), Width::Word),
            ),

            // ---- compares with immediates
            M::Cgtbi => self.compare_immediate(rt, a!(), imm, Width::Byte, Compare::Greater),
            M::Cgthi => self.compare_immediate(rt, a!(), imm, Width::Halfword, Compare::Greater),
            M::Cgti => self.compare_immediate(rt, a!(), imm, Width::Word, Compare::Greater),
            M::Clgtbi => {
                self.compare_immediate(rt, a!(), imm, Width::Byte, Compare::LogicalGreater)
            }
            M::Clgthi => {
                self.compare_immediate(rt, a!(), imm, Width::Halfword, Compare::LogicalGreater)
            }
            M::Clgti => self.compare_immediate(rt, a!(), imm, Width::Word, Compare::LogicalGreater),
            M::Ceqbi => self.compare_immediate(rt, a!(), imm, Width::Byte, Compare::Equal),
            M::Ceqhi => self.compare_immediate(rt, a!(), imm, Width::Halfword, Compare::Equal),
            M::Ceqi => self.compare_immediate(rt, a!(), imm, Width::Word, Compare::Equal),

            // ---- add / subtract / carry / borrow
            M::A => self.write(rt, int::add(a!(), b!(), Width::Word)),
            M::Ah => self.write(rt, int::add(a!(), b!(), Width::Halfword)),
            M::Sf => self.write(rt, int::subtract_from(a!(), b!(), Width::Word)),
            M::Sfh => self.write(rt, int::subtract_from(a!(), b!(), Width::Halfword)),
            M::Addx => self.write(rt, int::add_extended(a!(), b!(), t!())),
            M::Sfx => self.write(rt, int::subtract_from_extended(a!(), b!(), t!())),
            M::Cg => self.write(rt, int::carry_generate(a!(), b!())),
            M::Cgx => self.write(rt, int::carry_generate_extended(a!(), b!(), t!())),
            M::Bg => self.write(rt, int::borrow_generate(a!(), b!())),
            M::Bgx => self.write(rt, int::borrow_generate_extended(a!(), b!(), t!())),

            // ---- register compares
            M::Cgt => self.write(rt, int::compare(a!(), b!(), Width::Word, Compare::Greater)),
            M::Cgtb => self.write(rt, int::compare(a!(), b!(), Width::Byte, Compare::Greater)),
            M::Cgth => self.write(
                rt,
                int::compare(a!(), b!(), Width::Halfword, Compare::Greater),
            ),
            M::Clgt => self.write(
                rt,
                int::compare(a!(), b!(), Width::Word, Compare::LogicalGreater),
            ),
            M::Clgtb => self.write(
                rt,
                int::compare(a!(), b!(), Width::Byte, Compare::LogicalGreater),
            ),
            M::Clgth => self.write(
                rt,
                int::compare(a!(), b!(), Width::Halfword, Compare::LogicalGreater),
            ),
            M::Ceq => self.write(rt, int::compare(a!(), b!(), Width::Word, Compare::Equal)),
            M::Ceqb => self.write(rt, int::compare(a!(), b!(), Width::Byte, Compare::Equal)),
            M::Ceqh => self.write(
                rt,
                int::compare(a!(), b!(), Width::Halfword, Compare::Equal),
            ),

            // ---- bitwise
            M::And => {
                self.set_register(rt, Quadword(a!().0 & b!().0));
                match checkpoint_number(insn.word) {
                    Some(number) => Flow::Checkpoint(number),
                    None => Flow::Next,
                }
            }
            M::Nand => self.write(rt, Quadword(!(a!().0 & b!().0))),
            M::Or => self.write(rt, Quadword(a!().0 | b!().0)),
            M::Nor => self.write(rt, Quadword(!(a!().0 | b!().0))),
            M::Xor => self.write(rt, Quadword(a!().0 ^ b!().0)),
            M::Eqv => self.write(rt, Quadword(!(a!().0 ^ b!().0))),
            M::Andc => self.write(rt, Quadword(a!().0 & !b!().0)),
            M::Orc => self.write(rt, Quadword(a!().0 | !b!().0)),
            M::Selb => self.write(rt, int::select_bits(a!(), b!(), c!())),

            // ---- word / halfword shifts and rotates
            M::Roti => self.write(rt, a!().map_words(|w| shift::rotate_word(w, imm as u32))),
            M::Rotmi => self.write(
                rt,
                a!().map_words(|w| shift::rotate_and_mask_word(w, imm as u32)),
            ),
            M::Rotmai => self.write(
                rt,
                a!().map_words(|w| shift::rotate_and_mask_algebraic_word(w, imm as u32)),
            ),
            M::Shli => self.write(
                rt,
                a!().map_words(|w| shift::shift_left_word(w, imm as u32)),
            ),
            M::Rothi => self.write(
                rt,
                a!().map_halfwords(|h| shift::rotate_halfword(h, imm as u16)),
            ),
            M::Rothmi => self.write(
                rt,
                a!().map_halfwords(|h| shift::rotate_and_mask_halfword(h, imm as u16)),
            ),
            M::Rotmahi => self.write(
                rt,
                a!().map_halfwords(|h| shift::rotate_and_mask_algebraic_halfword(h, imm as u16)),
            ),
            M::Shlhi => self.write(
                rt,
                a!().map_halfwords(|h| shift::shift_left_halfword(h, imm as u16)),
            ),
            M::Rot => self.write(rt, a!().zip_words(b!(), shift::rotate_word)),
            M::Rotm => self.write(rt, a!().zip_words(b!(), shift::rotate_and_mask_word)),
            M::Rotma => self.write(
                rt,
                a!().zip_words(b!(), shift::rotate_and_mask_algebraic_word),
            ),
            M::Shl => self.write(rt, a!().zip_words(b!(), shift::shift_left_word)),
            M::Roth => self.write(rt, a!().zip_halfwords(b!(), shift::rotate_halfword)),
            M::Rothm => self.write(
                rt,
                a!().zip_halfwords(b!(), shift::rotate_and_mask_halfword),
            ),
            M::Rotmah => self.write(
                rt,
                a!().zip_halfwords(b!(), shift::rotate_and_mask_algebraic_halfword),
            ),
            M::Shlh => self.write(rt, a!().zip_halfwords(b!(), shift::shift_left_halfword)),

            // ---- SP arithmetic
            M::Fa => self.write(rt, a!().zip_words(b!(), sp::add)),
            M::Fs => self.write(rt, a!().zip_words(b!(), sp::sub)),
            M::Fm => self.write(rt, a!().zip_words(b!(), sp::mul)),
            M::Fma => self.write(rt, a!().zip3_words(b!(), c!(), sp::mul_add)),
            M::Fms => self.write(rt, a!().zip3_words(b!(), c!(), sp::mul_sub)),
            M::Fnms => self.write(rt, a!().zip3_words(b!(), c!(), sp::negative_mul_sub)),

            // ---- no-ops and hints (no architectural effect)
            M::Nop | M::Lnop | M::Hbr | M::Hbra | M::Hbrr => Flow::Nop,
            M::Sync | M::Dsync => Flow::Next,

            // ---- insertion controls
            M::Cbd => self.insertion(
                rt,
                a!().preferred_word().wrapping_add(imm as u32),
                InsertSize::Byte,
            ),
            M::Chd => self.insertion(
                rt,
                a!().preferred_word().wrapping_add(imm as u32),
                InsertSize::Halfword,
            ),
            M::Cwd => self.insertion(
                rt,
                a!().preferred_word().wrapping_add(imm as u32),
                InsertSize::Word,
            ),
            M::Cdd => self.insertion(
                rt,
                a!().preferred_word().wrapping_add(imm as u32),
                InsertSize::Doubleword,
            ),
            M::Cbx => self.insertion(
                rt,
                a!().preferred_word().wrapping_add(b!().preferred_word()),
                InsertSize::Byte,
            ),
            M::Chx => self.insertion(
                rt,
                a!().preferred_word().wrapping_add(b!().preferred_word()),
                InsertSize::Halfword,
            ),
            M::Cwx => self.insertion(
                rt,
                a!().preferred_word().wrapping_add(b!().preferred_word()),
                InsertSize::Word,
            ),
            M::Cdx => self.insertion(
                rt,
                a!().preferred_word().wrapping_add(b!().preferred_word()),
                InsertSize::Doubleword,
            ),

            // ---- quadword rotates and shifts
            M::Rotqbii => self.write(rt, permute::rotate_left_bits(a!(), imm as u32)),
            M::Rotqmbii => self.write(
                rt,
                permute::shift_right_bits(a!(), (imm as u32).wrapping_neg()),
            ),
            M::Shlqbii => self.write(rt, permute::shift_left_bits(a!(), imm as u32)),
            M::Rotqbyi => self.write(rt, permute::rotate_left_bytes(a!(), imm as u32)),
            M::Rotqmbyi => self.write(
                rt,
                permute::shift_right_bytes(a!(), (imm as u32).wrapping_neg() & 0x1f),
            ),
            M::Shlqbyi => self.write(rt, permute::shift_left_bytes(a!(), imm as u32 & 0x1f)),
            M::Rotqbi => self.write(rt, permute::rotate_left_bits(a!(), b!().preferred_word())),
            M::Rotqmbi => self.write(
                rt,
                permute::shift_right_bits(a!(), b!().preferred_word().wrapping_neg()),
            ),
            M::Shlqbi => self.write(rt, permute::shift_left_bits(a!(), b!().preferred_word())),
            M::Rotqby => self.write(rt, permute::rotate_left_bytes(a!(), b!().preferred_word())),
            M::Rotqmby => self.write(
                rt,
                permute::shift_right_bytes(a!(), b!().preferred_word().wrapping_neg() & 0x1f),
            ),
            M::Shlqby => self.write(
                rt,
                permute::shift_left_bytes(a!(), b!().preferred_word() & 0x1f),
            ),
            M::Rotqbybi => self.write(
                rt,
                permute::rotate_left_bytes(a!(), b!().preferred_word() >> 3),
            ),
            M::Rotqmbybi => self.write(
                rt,
                permute::shift_right_bytes(
                    a!(),
                    (b!().preferred_word() >> 3).wrapping_neg() & 0x1f,
                ),
            ),
            M::Shlqbybi => self.write(
                rt,
                permute::shift_left_bytes(a!(), (b!().preferred_word() >> 3) & 0x1f),
            ),
            M::Shufb => self.write(rt, permute::shuffle_bytes(a!(), b!(), c!())),

            // ---- loads and stores
            M::Lqa => self.load(rt, word_offset(imm)),
            M::Lqr => self.load(rt, pc.wrapping_add(word_offset(imm))),
            M::Lqd => self.load(
                rt,
                a!().preferred_word()
                    .wrapping_add((imm as u32).wrapping_shl(4)),
            ),
            M::Lqx => self.load(
                rt,
                a!().preferred_word().wrapping_add(b!().preferred_word()),
            ),
            M::Stqa => self.store(rt, word_offset(imm)),
            M::Stqr => self.store(rt, pc.wrapping_add(word_offset(imm))),
            M::Stqd => self.store(
                rt,
                a!().preferred_word()
                    .wrapping_add((imm as u32).wrapping_shl(4)),
            ),
            M::Stqx => self.store(
                rt,
                a!().preferred_word().wrapping_add(b!().preferred_word()),
            ),

            // ---- branches
            M::Br => Flow::Branch(instruction_address(pc.wrapping_add(word_offset(imm)))),
            M::Bra => Flow::Branch(instruction_address(word_offset(imm))),
            M::Brsl => {
                self.set_register(rt, Self::link_value(pc));
                Flow::Branch(instruction_address(pc.wrapping_add(word_offset(imm))))
            }
            M::Brasl => {
                self.set_register(rt, Self::link_value(pc));
                Flow::Branch(instruction_address(word_offset(imm)))
            }
            M::Brz => conditional(
                t!().preferred_word() == 0,
                pc.wrapping_add(word_offset(imm)),
            ),
            M::Brnz => conditional(
                t!().preferred_word() != 0,
                pc.wrapping_add(word_offset(imm)),
            ),
            M::Brhz => conditional(
                t!().preferred_halfword() == 0,
                pc.wrapping_add(word_offset(imm)),
            ),
            M::Brhnz => conditional(
                t!().preferred_halfword() != 0,
                pc.wrapping_add(word_offset(imm)),
            ),
            M::Bi => self.branch_indirect(insn.feature_bits(), true, a!().preferred_word()),
            M::Bisl => {
                // The target is read before the link register is written (rt may equal ra).
                let flow = self.branch_indirect(insn.feature_bits(), true, a!().preferred_word());
                if let Flow::Branch(_) = flow {
                    self.set_register(rt, Self::link_value(pc));
                }
                flow
            }
            M::Iret => {
                let srr0 = self.channels.srr0;
                self.branch_indirect(insn.feature_bits(), true, srr0)
            }
            M::Bisled => {
                // No external events are modelled, so the branch is never taken; the link
                // register is written regardless, as the ISA specifies.
                let flow = self.branch_indirect(insn.feature_bits(), false, a!().preferred_word());
                if let Flow::Next = flow {
                    self.set_register(rt, Self::link_value(pc));
                }
                flow
            }
            M::Biz => self.branch_indirect(
                insn.feature_bits(),
                t!().preferred_word() == 0,
                a!().preferred_word(),
            ),
            M::Binz => self.branch_indirect(
                insn.feature_bits(),
                t!().preferred_word() != 0,
                a!().preferred_word(),
            ),
            M::Bihz => self.branch_indirect(
                insn.feature_bits(),
                t!().preferred_halfword() == 0,
                a!().preferred_word(),
            ),
            M::Bihnz => self.branch_indirect(
                insn.feature_bits(),
                t!().preferred_halfword() != 0,
                a!().preferred_word(),
            ),

            // Everything else, out of line: with these arms inline the interpreter executed
            // about a fifth more host instructions per SPU instruction (cachegrind), for every
            // instruction, common or not.
            _ => self.apply_rare(insn.mnemonic, insn.word, RegisterFields::of(insn), insn.imm),
        }
    }

    /// [`apply`](Self::apply) for the rarer instructions (floating-point compares and DP,
    /// conversions, estimates, masks, halts, stops, channels, special-purpose registers).
    #[inline(never)]
    fn apply_rare(
        &mut self,
        mnemonic: Mnemonic,
        word: u32,
        registers: RegisterFields,
        imm: i32,
    ) -> Flow {
        let [rt, ra, rb, rc] = registers.0.to_le_bytes();
        // Execution never reads `hint_offset` (the hints are handled by `apply`).
        let insn = &Instruction {
            word,
            mnemonic,
            rt,
            ra,
            rb,
            rc,
            imm,
            hint_offset: 0,
        };
        use Mnemonic as M;
        operand_readers!(self, insn);
        let imm = insn.imm;
        let rt = insn.rt;
        let halt_if = |condition: bool| if condition { Flow::Halt } else { Flow::Next };
        match insn.mnemonic {
            // ---- halts
            M::Hgti => halt_if((a!().preferred_word() as i32) > imm),
            M::Hlgti => halt_if(a!().preferred_word() > imm as u32),
            M::Heqi => halt_if(a!().preferred_word() as i32 == imm),
            M::Hgt => halt_if((a!().preferred_word() as i32) > (b!().preferred_word() as i32)),
            M::Hlgt => halt_if(a!().preferred_word() > b!().preferred_word()),
            M::Heq => halt_if(a!().preferred_word() == b!().preferred_word()),

            // ---- counting and sign extension
            M::Clz => self.write(rt, int::count_leading_zeros(a!())),
            M::Xsbh => self.write(rt, int::extend_sign_byte_to_halfword(a!())),
            M::Xshw => self.write(rt, int::extend_sign_halfword_to_word(a!())),
            M::Xswd => self.write(rt, int::extend_sign_word_to_doubleword(a!())),

            // ---- SP compares
            M::Fceq => self.write(rt, a!().zip_words(b!(), |x, y| mask32(sp::equal(x, y)))),
            M::Fcmeq => self.write(
                rt,
                a!().zip_words(b!(), |x, y| mask32(sp::magnitude_equal(x, y))),
            ),
            M::Fcgt => self.write(rt, a!().zip_words(b!(), |x, y| mask32(sp::greater(x, y)))),
            M::Fcmgt => self.write(
                rt,
                a!().zip_words(b!(), |x, y| mask32(sp::magnitude_greater(x, y))),
            ),

            // ---- DP compares and class test
            M::Dfceq => self.write(
                rt,
                a!().zip_doublewords(b!(), |x, y| mask64(dp::equal(x, y))),
            ),
            M::Dfcmeq => self.write(
                rt,
                a!().zip_doublewords(b!(), |x, y| mask64(dp::magnitude_equal(x, y))),
            ),
            M::Dfcgt => self.write(
                rt,
                a!().zip_doublewords(b!(), |x, y| mask64(dp::greater(x, y))),
            ),
            M::Dfcmgt => self.write(
                rt,
                a!().zip_doublewords(b!(), |x, y| mask64(dp::magnitude_greater(x, y))),
            ),
            M::Dftsv => {
                let classes = (imm as u8) & 0x7f;
                self.write(
                    rt,
                    a!().zip_doublewords(a!(), |x, _| mask64(dp::test_special_value(x, classes))),
                )
            }

            // ---- byte operations
            M::Cntb => self.write(rt, int::count_ones_bytes(a!())),
            M::Absdb => self.write(rt, int::absolute_difference_bytes(a!(), b!())),
            M::Avgb => self.write(rt, int::average_bytes(a!(), b!())),
            M::Sumb => self.write(rt, int::sum_bytes(a!(), b!())),

            // ---- FP7: integer multiplies, conversions, estimates
            M::Mpyi => self.write(
                rt,
                a!().map_words(|w| i32::from(w as u16 as i16).wrapping_mul(imm) as u32),
            ),
            M::Mpyui => self.write(
                rt,
                a!().map_words(|w| (w & 0xffff).wrapping_mul(imm as u32 & 0xffff)),
            ),
            M::Cflts => self.write(rt, a!().map_words(|w| sp::to_signed_fixed(w, imm as u8))),
            M::Cfltu => self.write(rt, a!().map_words(|w| sp::to_unsigned_fixed(w, imm as u8))),
            M::Csflt => self.write(rt, a!().map_words(|w| sp::from_signed_fixed(w, imm as u8))),
            M::Cuflt => self.write(
                rt,
                a!().map_words(|w| sp::from_unsigned_fixed(w, imm as u8)),
            ),
            M::Fscrwr => {
                self.fpscr = a!();
                Flow::Next
            }
            M::Mpy => self.write(rt, int::multiply(a!(), b!(), Multiply::Signed)),
            M::Mpyu => self.write(rt, int::multiply(a!(), b!(), Multiply::Unsigned)),
            M::Mpyh => self.write(rt, int::multiply(a!(), b!(), Multiply::High)),
            M::Mpyhh => self.write(rt, int::multiply(a!(), b!(), Multiply::HighHigh)),
            M::Mpyhhu => self.write(rt, int::multiply(a!(), b!(), Multiply::HighHighUnsigned)),
            M::Mpys => self.write(rt, int::multiply(a!(), b!(), Multiply::ShiftRight)),
            M::Mpyhha => self.write(
                rt,
                a!().zip3_words(b!(), t!(), |x, y, acc| {
                    acc.wrapping_add(int::multiply_word(x, y, Multiply::HighHigh))
                }),
            ),
            M::Mpyhhau => self.write(
                rt,
                a!().zip3_words(b!(), t!(), |x, y, acc| {
                    acc.wrapping_add(int::multiply_word(x, y, Multiply::HighHighUnsigned))
                }),
            ),
            M::Mpya => self.write(
                rt,
                a!().zip3_words(b!(), c!(), |x, y, acc| {
                    acc.wrapping_add(int::multiply_word(x, y, Multiply::Signed))
                }),
            ),
            M::Fi => self.write(rt, a!().zip_words(b!(), sp::interpolate)),
            M::Frest => self.write(rt, a!().map_words(sp::reciprocal_estimate)),
            M::Frsqest => self.write(rt, a!().map_words(sp::reciprocal_sqrt_estimate)),

            // ---- DP
            M::Fesd => {
                let w = a!().words();
                self.write(
                    rt,
                    Quadword::from_doublewords([dp::extend_single(w[0]), dp::extend_single(w[2])]),
                )
            }
            M::Frds => {
                let d = a!().doublewords();
                self.write(
                    rt,
                    Quadword::from_words([
                        dp::round_to_single(d[0]),
                        0,
                        dp::round_to_single(d[1]),
                        0,
                    ]),
                )
            }
            M::Fscrrd => {
                let value = self.fpscr;
                self.write(rt, value)
            }
            M::Dfa => self.write(rt, a!().zip_doublewords(b!(), dp::add)),
            M::Dfs => self.write(rt, a!().zip_doublewords(b!(), dp::sub)),
            M::Dfm => self.write(rt, a!().zip_doublewords(b!(), dp::mul)),
            M::Dfma => self.write(rt, dp_accumulate(a!(), b!(), t!(), dp::dfma)),
            M::Dfms => self.write(rt, dp_accumulate(a!(), b!(), t!(), dp::dfms)),
            M::Dfnms => self.write(rt, dp_accumulate(a!(), b!(), t!(), dp::dfnms)),
            M::Dfnma => self.write(rt, dp_accumulate(a!(), b!(), t!(), dp::dfnma)),

            // ---- masks and gathers
            M::Fsmbi => self.write(rt, int::form_select_mask_bytes(imm as u16)),
            M::Fsm => self.write(rt, int::form_select_mask_words(a!())),
            M::Fsmh => self.write(rt, int::form_select_mask_halfwords(a!())),
            M::Fsmb => self.write(
                rt,
                int::form_select_mask_bytes(a!().preferred_word() as u16),
            ),
            M::Gb => self.write(rt, int::gather_bits_words(a!())),
            M::Gbh => self.write(rt, int::gather_bits_halfwords(a!())),
            M::Gbb => self.write(rt, int::gather_bits_bytes(a!())),
            M::Orx => self.write(rt, int::or_across(a!())),

            // ---- stop
            M::Stop | M::Stopd => Flow::Stop(insn.stop_signal()),

            // ---- special-purpose registers: none is modelled, so reads give 0 and writes
            // are ignored (see the module documentation).
            M::Mfspr => self.write(rt, Quadword::ZERO),
            M::Mtspr => Flow::Next,

            // ---- channels (the channel number is in the RA field)
            M::Rdch => match self.channels.read(insn.ra) {
                ChannelAccess::Done(value) => self.write(rt, Quadword::from_preferred_word(value)),
                ChannelAccess::WouldBlock => Flow::Blocked(insn.ra),
                ChannelAccess::Unsupported => Flow::Fault(FaultKind::UnsupportedChannel {
                    channel: insn.ra,
                    access: ChannelOperation::Read,
                }),
            },
            M::Wrch => match self.channels.write(insn.ra, t!().preferred_word()) {
                ChannelAccess::Done(_) => Flow::Next,
                ChannelAccess::WouldBlock => Flow::Blocked(insn.ra),
                ChannelAccess::Unsupported => Flow::Fault(FaultKind::UnsupportedChannel {
                    channel: insn.ra,
                    access: ChannelOperation::Write,
                }),
            },
            M::Rchcnt => match self.channels.count(insn.ra) {
                Some(count) => self.write(rt, Quadword::from_preferred_word(count)),
                None => Flow::Fault(FaultKind::UnsupportedChannel {
                    channel: insn.ra,
                    access: ChannelOperation::Count,
                }),
            },
            // Handled by `apply`; listed so that this match stays exhaustive: a new mnemonic
            // must be given an arm in one of the two.
            M::A
            | M::Addx
            | M::Ah
            | M::Ahi
            | M::Ai
            | M::And
            | M::Andbi
            | M::Andc
            | M::Andhi
            | M::Andi
            | M::Bg
            | M::Bgx
            | M::Bi
            | M::Bihnz
            | M::Bihz
            | M::Binz
            | M::Bisl
            | M::Bisled
            | M::Biz
            | M::Br
            | M::Bra
            | M::Brasl
            | M::Brhnz
            | M::Brhz
            | M::Brnz
            | M::Brsl
            | M::Brz
            | M::Cbd
            | M::Cbx
            | M::Cdd
            | M::Cdx
            | M::Ceq
            | M::Ceqb
            | M::Ceqbi
            | M::Ceqh
            | M::Ceqhi
            | M::Ceqi
            | M::Cg
            | M::Cgt
            | M::Cgtb
            | M::Cgtbi
            | M::Cgth
            | M::Cgthi
            | M::Cgti
            | M::Cgx
            | M::Chd
            | M::Chx
            | M::Clgt
            | M::Clgtb
            | M::Clgtbi
            | M::Clgth
            | M::Clgthi
            | M::Clgti
            | M::Cwd
            | M::Cwx
            | M::Dsync
            | M::Eqv
            | M::Fa
            | M::Fm
            | M::Fma
            | M::Fms
            | M::Fnms
            | M::Fs
            | M::Hbr
            | M::Hbra
            | M::Hbrr
            | M::Il
            | M::Ila
            | M::Ilh
            | M::Ilhu
            | M::Iohl
            | M::Iret
            | M::Lnop
            | M::Lqa
            | M::Lqd
            | M::Lqr
            | M::Lqx
            | M::Nand
            | M::Nop
            | M::Nor
            | M::Or
            | M::Orbi
            | M::Orc
            | M::Orhi
            | M::Ori
            | M::Rot
            | M::Roth
            | M::Rothi
            | M::Rothm
            | M::Rothmi
            | M::Roti
            | M::Rotm
            | M::Rotma
            | M::Rotmah
            | M::Rotmahi
            | M::Rotmai
            | M::Rotmi
            | M::Rotqbi
            | M::Rotqbii
            | M::Rotqby
            | M::Rotqbybi
            | M::Rotqbyi
            | M::Rotqmbi
            | M::Rotqmbii
            | M::Rotqmby
            | M::Rotqmbybi
            | M::Rotqmbyi
            | M::Selb
            | M::Sf
            | M::Sfh
            | M::Sfhi
            | M::Sfi
            | M::Sfx
            | M::Shl
            | M::Shlh
            | M::Shlhi
            | M::Shli
            | M::Shlqbi
            | M::Shlqbii
            | M::Shlqby
            | M::Shlqbybi
            | M::Shlqbyi
            | M::Shufb
            | M::Stqa
            | M::Stqd
            | M::Stqr
            | M::Stqx
            | M::Sync
            | M::Xor
            | M::Xorbi
            | M::Xorhi
            | M::Xori => Flow::Fault(FaultKind::IllegalInstruction),
        }
    }

    #[inline(always)]
    fn compare_immediate(
        &mut self,
        rt: u8,
        a: Quadword,
        imm: i32,
        width: Width,
        kind: Compare,
    ) -> Flow {
        let value = int::compare(a, int::splat_immediate(imm, width), width, kind);
        self.write(rt, value)
    }

    #[inline]
    fn insertion(&mut self, rt: u8, address: u32, size: InsertSize) -> Flow {
        self.write(rt, permute::insertion_control(address, size))
    }
}

fn conditional(condition: bool, target: u32) -> Flow {
    if condition {
        Flow::Branch(instruction_address(target))
    } else {
        Flow::Next
    }
}

/// The DP multiply-accumulate forms use RT as the accumulator.
fn dp_accumulate(
    a: Quadword,
    b: Quadword,
    t: Quadword,
    operation: fn(u64, u64, u64) -> u64,
) -> Quadword {
    let a = a.doublewords();
    let b = b.doublewords();
    let t = t.doublewords();
    Quadword::from_doublewords([operation(a[0], b[0], t[0]), operation(a[1], b[1], t[1])])
}
