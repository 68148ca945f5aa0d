//! What each instruction does to the SPU state: one function per instruction, named after
//! its mnemonic, in one file per instruction family.
//!
//! | file | instructions |
//! |---|---|
//! | [`load_store`] | `lq*`, `stq*` and the insertion controls `cbd` .. `cdx` |
//! | [`branch_hint`] | branches (`br` .. `bihnz`, `iret`, `bisled`) and hints (`hbr`, `hbra`, `hbrr`) |
//! | [`integer`] | constant formation, logical and arithmetic operations, `selb`, counting, byte operations, masks and gathers |
//! | [`compare`] | integer compares `ceq*`, `cgt*`, `clgt*` |
//! | [`multiply`] | integer multiplies `mpy*` |
//! | [`shift_rotate`] | word and halfword shifts and rotates, quadword shifts and rotates, `shufb` |
//! | [`float_sp`] | single precision: arithmetic, compares, conversions, estimates |
//! | [`float_dp`] | double precision, and the FPSCR (`fscrrd`, `fscrwr`) |
//! | [`control`] | `stop`, halts, no-ops, `sync`, special-purpose registers, channels |
//!
//! The element arithmetic they use is in `ops_integer`, `ops_shift`, `permute`,
//! `float_single` and `float_double`, next to this folder.
//!
//! This file is the dispatch, in two tables. [`apply`](SpuState::apply) maps the everyday
//! instructions to their functions inline: one match on the mnemonic, compiled to one jump.
//! The rest go to [`apply_rare`](SpuState::apply_rare), out of line, so the body that the
//! interpreter's entry points inline stays small (with every instruction inline the
//! interpreter executed about a fifth more host instructions per SPU instruction, for every
//! instruction). Each table calls the instruction's function directly: a family function
//! with its own match would be a second jump, which the compiler does not merge into the
//! first.

mod branch_hint;
mod compare;
mod control;
mod float_dp;
mod float_sp;
mod integer;
mod load_store;
mod multiply;
mod shift_rotate;

use super::local_store::LS_ADDRESS_MASK;
use super::outcome::FaultKind;
use super::quadword::Quadword;
use super::state::SpuState;
use crate::spu::isa::Instruction;
use crate::spu::isa::Mnemonic;

/// Control-flow effect of one instruction, and how it counts for the statistics.
pub(in crate::spu::exec) enum Flow {
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

/// Word-aligned LS address for branch targets.
pub(in crate::spu::exec) fn instruction_address(address: u32) -> u32 {
    address & LS_ADDRESS_MASK & !3
}

/// Byte offset of an I16 word-address field (`imm << 2`).
fn word_offset(imm: i32) -> u32 {
    (imm as u32).wrapping_shl(2)
}

/// RT, RA, RB and RC packed into one word, to hand an instruction to the out-of-line
/// [`apply_rare`](SpuState::apply_rare) in registers: an `Instruction` passed whole goes through memory, and the
/// interpreter would then read its fields right after storing it (a store-forwarding stall on
/// every instruction).
#[derive(Clone, Copy)]
struct RegisterFields(u32);

impl RegisterFields {
    #[inline(always)]
    fn of(insn: &Instruction) -> Self {
        RegisterFields(u32::from_le_bytes([insn.rt, insn.ra, insn.rb, insn.rc]))
    }

    /// The instruction again, in `apply_rare`. Execution never reads `hint_offset` there
    /// (the hints are inline).
    #[inline(always)]
    fn instruction(self, mnemonic: Mnemonic, word: u32, imm: i32) -> Instruction {
        let [rt, ra, rb, rc] = self.0.to_le_bytes();
        Instruction {
            word,
            mnemonic,
            rt,
            ra,
            rb,
            rc,
            imm,
            hint_offset: 0,
        }
    }
}

impl SpuState {
    /// The effect of `insn` on registers, local store and channels; the caller retires it.
    ///
    /// The everyday instructions, inline: one match on the mnemonic (a jump table), each arm
    /// the instruction's function in its family file. The rest go to
    /// [`apply_rare`](Self::apply_rare).
    #[inline(always)]
    pub(in crate::spu::exec) fn apply(&mut self, insn: &Instruction, pc: u32) -> Flow {
        use Mnemonic as M;
        match insn.mnemonic {
            // load_store.rs
            M::Cbd => load_store::cbd(self, insn),
            M::Chd => load_store::chd(self, insn),
            M::Cwd => load_store::cwd(self, insn),
            M::Cdd => load_store::cdd(self, insn),
            M::Cbx => load_store::cbx(self, insn),
            M::Chx => load_store::chx(self, insn),
            M::Cwx => load_store::cwx(self, insn),
            M::Cdx => load_store::cdx(self, insn),
            M::Lqa => load_store::lqa(self, insn),
            M::Lqr => load_store::lqr(self, insn, pc),
            M::Lqd => load_store::lqd(self, insn),
            M::Lqx => load_store::lqx(self, insn),
            M::Stqa => load_store::stqa(self, insn),
            M::Stqr => load_store::stqr(self, insn, pc),
            M::Stqd => load_store::stqd(self, insn),
            M::Stqx => load_store::stqx(self, insn),

            // branch_hint.rs
            M::Hbr | M::Hbra | M::Hbrr => branch_hint::hint(),
            M::Br => branch_hint::br(insn, pc),
            M::Bra => branch_hint::bra(insn),
            M::Brsl => branch_hint::brsl(self, insn, pc),
            M::Brasl => branch_hint::brasl(self, insn, pc),
            M::Brz => branch_hint::brz(self, insn, pc),
            M::Brnz => branch_hint::brnz(self, insn, pc),
            M::Brhz => branch_hint::brhz(self, insn, pc),
            M::Brhnz => branch_hint::brhnz(self, insn, pc),
            M::Bi => branch_hint::bi(self, insn),
            M::Bisl => branch_hint::bisl(self, insn, pc),
            M::Iret => branch_hint::iret(self, insn),
            M::Bisled => branch_hint::bisled(self, insn, pc),
            M::Biz => branch_hint::biz(self, insn),
            M::Binz => branch_hint::binz(self, insn),
            M::Bihz => branch_hint::bihz(self, insn),
            M::Bihnz => branch_hint::bihnz(self, insn),

            // integer.rs
            M::Il => integer::il(self, insn),
            M::Ilh => integer::ilh(self, insn),
            M::Ilhu => integer::ilhu(self, insn),
            M::Ila => integer::ila(self, insn),
            M::Iohl => integer::iohl(self, insn),
            M::Andbi => integer::andbi(self, insn),
            M::Andhi => integer::andhi(self, insn),
            M::Andi => integer::andi(self, insn),
            M::Orbi => integer::orbi(self, insn),
            M::Orhi => integer::orhi(self, insn),
            M::Ori => integer::ori(self, insn),
            M::Xorbi => integer::xorbi(self, insn),
            M::Xorhi => integer::xorhi(self, insn),
            M::Xori => integer::xori(self, insn),
            M::Ahi => integer::ahi(self, insn),
            M::Ai => integer::ai(self, insn),
            M::Sfhi => integer::sfhi(self, insn),
            M::Sfi => integer::sfi(self, insn),
            M::A => integer::a(self, insn),
            M::Ah => integer::ah(self, insn),
            M::Sf => integer::sf(self, insn),
            M::Sfh => integer::sfh(self, insn),
            M::Addx => integer::addx(self, insn),
            M::Sfx => integer::sfx(self, insn),
            M::Cg => integer::cg(self, insn),
            M::Cgx => integer::cgx(self, insn),
            M::Bg => integer::bg(self, insn),
            M::Bgx => integer::bgx(self, insn),
            M::And => integer::and(self, insn),
            M::Nand => integer::nand(self, insn),
            M::Or => integer::or(self, insn),
            M::Nor => integer::nor(self, insn),
            M::Xor => integer::xor(self, insn),
            M::Eqv => integer::eqv(self, insn),
            M::Andc => integer::andc(self, insn),
            M::Orc => integer::orc(self, insn),
            M::Selb => integer::selb(self, insn),

            // compare.rs
            M::Cgtbi => compare::cgtbi(self, insn),
            M::Cgthi => compare::cgthi(self, insn),
            M::Cgti => compare::cgti(self, insn),
            M::Clgtbi => compare::clgtbi(self, insn),
            M::Clgthi => compare::clgthi(self, insn),
            M::Clgti => compare::clgti(self, insn),
            M::Ceqbi => compare::ceqbi(self, insn),
            M::Ceqhi => compare::ceqhi(self, insn),
            M::Ceqi => compare::ceqi(self, insn),
            M::Cgt => compare::cgt(self, insn),
            M::Cgtb => compare::cgtb(self, insn),
            M::Cgth => compare::cgth(self, insn),
            M::Clgt => compare::clgt(self, insn),
            M::Clgtb => compare::clgtb(self, insn),
            M::Clgth => compare::clgth(self, insn),
            M::Ceq => compare::ceq(self, insn),
            M::Ceqb => compare::ceqb(self, insn),
            M::Ceqh => compare::ceqh(self, insn),

            // shift_rotate.rs
            M::Roti => shift_rotate::roti(self, insn),
            M::Rotmi => shift_rotate::rotmi(self, insn),
            M::Rotmai => shift_rotate::rotmai(self, insn),
            M::Shli => shift_rotate::shli(self, insn),
            M::Rothi => shift_rotate::rothi(self, insn),
            M::Rothmi => shift_rotate::rothmi(self, insn),
            M::Rotmahi => shift_rotate::rotmahi(self, insn),
            M::Shlhi => shift_rotate::shlhi(self, insn),
            M::Rot => shift_rotate::rot(self, insn),
            M::Rotm => shift_rotate::rotm(self, insn),
            M::Rotma => shift_rotate::rotma(self, insn),
            M::Shl => shift_rotate::shl(self, insn),
            M::Roth => shift_rotate::roth(self, insn),
            M::Rothm => shift_rotate::rothm(self, insn),
            M::Rotmah => shift_rotate::rotmah(self, insn),
            M::Shlh => shift_rotate::shlh(self, insn),
            M::Rotqbii => shift_rotate::rotqbii(self, insn),
            M::Rotqmbii => shift_rotate::rotqmbii(self, insn),
            M::Shlqbii => shift_rotate::shlqbii(self, insn),
            M::Rotqbyi => shift_rotate::rotqbyi(self, insn),
            M::Rotqmbyi => shift_rotate::rotqmbyi(self, insn),
            M::Shlqbyi => shift_rotate::shlqbyi(self, insn),
            M::Rotqbi => shift_rotate::rotqbi(self, insn),
            M::Rotqmbi => shift_rotate::rotqmbi(self, insn),
            M::Shlqbi => shift_rotate::shlqbi(self, insn),
            M::Rotqby => shift_rotate::rotqby(self, insn),
            M::Rotqmby => shift_rotate::rotqmby(self, insn),
            M::Shlqby => shift_rotate::shlqby(self, insn),
            M::Rotqbybi => shift_rotate::rotqbybi(self, insn),
            M::Rotqmbybi => shift_rotate::rotqmbybi(self, insn),
            M::Shlqbybi => shift_rotate::shlqbybi(self, insn),
            M::Shufb => shift_rotate::shufb(self, insn),

            // float_sp.rs
            M::Fa => float_sp::fa(self, insn),
            M::Fs => float_sp::fs(self, insn),
            M::Fm => float_sp::fm(self, insn),
            M::Fma => float_sp::fma(self, insn),
            M::Fms => float_sp::fms(self, insn),
            M::Fnms => float_sp::fnms(self, insn),

            // control.rs
            M::Nop | M::Lnop => control::nop(),
            M::Sync | M::Dsync => control::sync(),

            _ => self.apply_rare(insn.mnemonic, insn.word, RegisterFields::of(insn), insn.imm),
        }
    }

    /// [`apply`](Self::apply) for the rarer instructions, out of line (floating-point compares
    /// and conversions, DP, integer multiplies, byte operations, masks, stops, halts, channels,
    /// special-purpose registers).
    #[inline(never)]
    fn apply_rare(
        &mut self,
        mnemonic: Mnemonic,
        word: u32,
        registers: RegisterFields,
        imm: i32,
    ) -> Flow {
        use Mnemonic as M;
        let insn = &registers.instruction(mnemonic, word, imm);
        match insn.mnemonic {
            // integer.rs
            M::Clz => integer::clz(self, insn),
            M::Xsbh => integer::xsbh(self, insn),
            M::Xshw => integer::xshw(self, insn),
            M::Xswd => integer::xswd(self, insn),
            M::Cntb => integer::cntb(self, insn),
            M::Absdb => integer::absdb(self, insn),
            M::Avgb => integer::avgb(self, insn),
            M::Sumb => integer::sumb(self, insn),
            M::Fsmbi => integer::fsmbi(self, insn),
            M::Fsm => integer::fsm(self, insn),
            M::Fsmh => integer::fsmh(self, insn),
            M::Fsmb => integer::fsmb(self, insn),
            M::Gb => integer::gb(self, insn),
            M::Gbh => integer::gbh(self, insn),
            M::Gbb => integer::gbb(self, insn),
            M::Orx => integer::orx(self, insn),

            // multiply.rs
            M::Mpyi => multiply::mpyi(self, insn),
            M::Mpyui => multiply::mpyui(self, insn),
            M::Mpy => multiply::mpy(self, insn),
            M::Mpyu => multiply::mpyu(self, insn),
            M::Mpyh => multiply::mpyh(self, insn),
            M::Mpyhh => multiply::mpyhh(self, insn),
            M::Mpyhhu => multiply::mpyhhu(self, insn),
            M::Mpys => multiply::mpys(self, insn),
            M::Mpyhha => multiply::mpyhha(self, insn),
            M::Mpyhhau => multiply::mpyhhau(self, insn),
            M::Mpya => multiply::mpya(self, insn),

            // float_sp.rs
            M::Fceq => float_sp::fceq(self, insn),
            M::Fcmeq => float_sp::fcmeq(self, insn),
            M::Fcgt => float_sp::fcgt(self, insn),
            M::Fcmgt => float_sp::fcmgt(self, insn),
            M::Cflts => float_sp::cflts(self, insn),
            M::Cfltu => float_sp::cfltu(self, insn),
            M::Csflt => float_sp::csflt(self, insn),
            M::Cuflt => float_sp::cuflt(self, insn),
            M::Fi => float_sp::fi(self, insn),
            M::Frest => float_sp::frest(self, insn),
            M::Frsqest => float_sp::frsqest(self, insn),

            // float_dp.rs
            M::Dfa => float_dp::dfa(self, insn),
            M::Dfs => float_dp::dfs(self, insn),
            M::Dfm => float_dp::dfm(self, insn),
            M::Dfma => float_dp::dfma(self, insn),
            M::Dfms => float_dp::dfms(self, insn),
            M::Dfnms => float_dp::dfnms(self, insn),
            M::Dfnma => float_dp::dfnma(self, insn),
            M::Dfceq => float_dp::dfceq(self, insn),
            M::Dfcmeq => float_dp::dfcmeq(self, insn),
            M::Dfcgt => float_dp::dfcgt(self, insn),
            M::Dfcmgt => float_dp::dfcmgt(self, insn),
            M::Dftsv => float_dp::dftsv(self, insn),
            M::Fesd => float_dp::fesd(self, insn),
            M::Frds => float_dp::frds(self, insn),
            M::Fscrrd => float_dp::fscrrd(self, insn),
            M::Fscrwr => float_dp::fscrwr(self, insn),

            // control.rs
            M::Stop | M::Stopd => control::stop(insn),
            M::Hgti => control::hgti(self, insn),
            M::Hlgti => control::hlgti(self, insn),
            M::Heqi => control::heqi(self, insn),
            M::Hgt => control::hgt(self, insn),
            M::Hlgt => control::hlgt(self, insn),
            M::Heq => control::heq(self, insn),
            M::Mfspr => control::mfspr(self, insn),
            M::Mtspr => control::mtspr(),
            M::Rdch => control::rdch(self, insn),
            M::Wrch => control::wrch(self, insn),
            M::Rchcnt => control::rchcnt(self, insn),

            // Handled by `apply`; listed so that this match stays exhaustive: a new mnemonic
            // must be given an arm in one of the two.
            #[rustfmt::skip]
            M::Lqa | M::Lqr | M::Lqd | M::Lqx | M::Stqa | M::Stqr | M::Stqd | M::Stqx | M::Cbd
            | M::Chd | M::Cwd | M::Cdd | M::Cbx | M::Chx | M::Cwx | M::Cdx | M::Br | M::Bra
            | M::Brsl | M::Brasl | M::Brz | M::Brnz | M::Brhz | M::Brhnz | M::Bi | M::Bisl
            | M::Iret | M::Bisled | M::Biz | M::Binz | M::Bihz | M::Bihnz | M::Hbr | M::Hbra
            | M::Hbrr | M::Il | M::Ilh | M::Ilhu | M::Ila | M::Iohl | M::Andbi | M::Andhi
            | M::Andi | M::Orbi | M::Orhi | M::Ori | M::Xorbi | M::Xorhi | M::Xori | M::Ahi
            | M::Ai | M::Sfhi | M::Sfi | M::Cgtbi | M::Cgthi | M::Cgti | M::Clgtbi | M::Clgthi
            | M::Clgti | M::Ceqbi | M::Ceqhi | M::Ceqi | M::A | M::Ah | M::Sf | M::Sfh | M::Addx
            | M::Sfx | M::Cg | M::Cgx | M::Bg | M::Bgx | M::Cgt | M::Cgtb | M::Cgth | M::Clgt
            | M::Clgtb | M::Clgth | M::Ceq | M::Ceqb | M::Ceqh | M::And | M::Nand | M::Or | M::Nor
            | M::Xor | M::Eqv | M::Andc | M::Orc | M::Selb | M::Roti | M::Rotmi | M::Rotmai
            | M::Shli | M::Rothi | M::Rothmi | M::Rotmahi | M::Shlhi | M::Rot | M::Rotm | M::Rotma
            | M::Shl | M::Roth | M::Rothm | M::Rotmah | M::Shlh | M::Rotqbii | M::Rotqmbii
            | M::Shlqbii | M::Rotqbyi | M::Rotqmbyi | M::Shlqbyi | M::Rotqbi | M::Rotqmbi
            | M::Shlqbi | M::Rotqby | M::Rotqmby | M::Shlqby | M::Rotqbybi | M::Rotqmbybi
            | M::Shlqbybi | M::Shufb | M::Fa | M::Fs | M::Fm | M::Fma | M::Fms | M::Fnms | M::Nop
            | M::Lnop | M::Sync | M::Dsync => Flow::Fault(FaultKind::IllegalInstruction),
        }
    }

    /// Writes `value` to register `rt` and falls through.
    #[inline(always)]
    fn write(&mut self, rt: u8, value: Quadword) -> Flow {
        self.set_register(rt, value);
        Flow::Next
    }

    /// The value of the instruction's RA register.
    #[inline(always)]
    fn ra(&self, insn: &Instruction) -> Quadword {
        self.register(insn.ra)
    }

    /// The value of the instruction's RB register.
    #[inline(always)]
    fn rb(&self, insn: &Instruction) -> Quadword {
        self.register(insn.rb)
    }

    /// The value of the instruction's RC register.
    #[inline(always)]
    fn rc(&self, insn: &Instruction) -> Quadword {
        self.register(insn.rc)
    }

    /// The value of the instruction's RT register (read by stores, conditional branches,
    /// `iohl`, the extended and accumulating arithmetic).
    #[inline(always)]
    fn rt(&self, insn: &Instruction) -> Quadword {
        self.register(insn.rt)
    }
}
