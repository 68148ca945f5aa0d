//! The dispatch: which instruction function runs for a mnemonic (see `mod.rs`).

use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::outcome::FaultKind;
use super::{
    branch_hint, compare, control, float_dp, float_sp, integer, load_store, multiply, shift_rotate,
};
use crate::spu::isa::Mnemonic;

/// `INLINE_SP` for instruction mode's run loops: inlined on a hosted target (an FP-bound
/// program takes about 3% less CPU time on x86), called on bare metal, where each inlined
/// copy counts against the firmware image's size budget (`tests/image_size.rs`).
pub(crate) const INLINE_SP_IN_RUN_LOOPS: bool = !cfg!(target_os = "none");

/// The effect of `insn` on registers, local store and channels; the caller retires it.
///
/// The everyday instructions, inline: one match on the mnemonic (a jump table), each arm
/// the instruction's function in its family file. The rest go to
/// [`apply_rare`].
///
/// `INLINE_SP`: whether the SP arithmetic's lane functions (`float_single_lanes`) are
/// inlined into this copy of the interpreter or called. Instruction mode's run loops want
/// them inlined ([`INLINE_SP_IN_RUN_LOOPS`]); the pipeline's copies, which sit inside its
/// fetch and completion steps, compile worse with them (the ideal fetch's fast-forward ran 10%
/// more host instructions with the lanes inlined there).
#[inline(always)]
pub(crate) fn apply<const INLINE_SP: bool>(spu: &mut impl Machine, insn: &Op, pc: u32) -> Flow {
    apply_as::<INLINE_SP, false>(spu, insn.mnemonic(), insn, pc)
}

/// [`apply`] for `insn` as `mnemonic` (its own): the handlers of the dispatch table
/// (`handlers.rs`) give it as a constant, which leaves one arm. `RARE_INLINE`: the rarer
/// instructions inline too (else they go to [`apply_rare`]).
#[inline(always)]
pub(crate) fn apply_as<const INLINE_SP: bool, const RARE_INLINE: bool>(
    spu: &mut impl Machine,
    mnemonic: Mnemonic,
    insn: &Op,
    pc: u32,
) -> Flow {
    use Mnemonic as M;
    match mnemonic {
        // load_store.rs
        M::Cbd => load_store::cbd(spu, insn),
        M::Chd => load_store::chd(spu, insn),
        M::Cwd => load_store::cwd(spu, insn),
        M::Cdd => load_store::cdd(spu, insn),
        M::Cbx => load_store::cbx(spu, insn),
        M::Chx => load_store::chx(spu, insn),
        M::Cwx => load_store::cwx(spu, insn),
        M::Cdx => load_store::cdx(spu, insn),
        M::Lqa => load_store::lqa(spu, insn),
        M::Lqr => load_store::lqr(spu, insn, pc),
        M::Lqd => load_store::lqd(spu, insn),
        M::Lqx => load_store::lqx(spu, insn),
        M::Stqa => load_store::stqa(spu, insn),
        M::Stqr => load_store::stqr(spu, insn, pc),
        M::Stqd => load_store::stqd(spu, insn),
        M::Stqx => load_store::stqx(spu, insn),

        // branch_hint.rs
        M::Hbr | M::Hbra | M::Hbrr => branch_hint::hint(),
        M::Br => branch_hint::br(insn, pc),
        M::Bra => branch_hint::bra(insn),
        M::Brsl => branch_hint::brsl(spu, insn, pc),
        M::Brasl => branch_hint::brasl(spu, insn, pc),
        M::Brz => branch_hint::brz(spu, insn, pc),
        M::Brnz => branch_hint::brnz(spu, insn, pc),
        M::Brhz => branch_hint::brhz(spu, insn, pc),
        M::Brhnz => branch_hint::brhnz(spu, insn, pc),
        M::Bi => branch_hint::bi(spu, insn),
        M::Bisl => branch_hint::bisl(spu, insn, pc),
        M::Biz => branch_hint::biz(spu, insn),
        M::Binz => branch_hint::binz(spu, insn),
        M::Bihz => branch_hint::bihz(spu, insn),
        M::Bihnz => branch_hint::bihnz(spu, insn),

        // integer.rs
        M::Il => integer::il(spu, insn),
        M::Ilh => integer::ilh(spu, insn),
        M::Ilhu => integer::ilhu(spu, insn),
        M::Ila => integer::ila(spu, insn),
        M::Iohl => integer::iohl(spu, insn),
        M::Andbi => integer::andbi(spu, insn),
        M::Andhi => integer::andhi(spu, insn),
        M::Andi => integer::andi(spu, insn),
        M::Orbi => integer::orbi(spu, insn),
        M::Orhi => integer::orhi(spu, insn),
        M::Ori => integer::ori(spu, insn),
        M::Xorbi => integer::xorbi(spu, insn),
        M::Xorhi => integer::xorhi(spu, insn),
        M::Xori => integer::xori(spu, insn),
        M::Ahi => integer::ahi(spu, insn),
        M::Ai => integer::ai(spu, insn),
        M::Sfhi => integer::sfhi(spu, insn),
        M::Sfi => integer::sfi(spu, insn),
        M::A => integer::a(spu, insn),
        M::Ah => integer::ah(spu, insn),
        M::Sf => integer::sf(spu, insn),
        M::Sfh => integer::sfh(spu, insn),
        M::Addx => integer::addx(spu, insn),
        M::Sfx => integer::sfx(spu, insn),
        M::Cg => integer::cg(spu, insn),
        M::Cgx => integer::cgx(spu, insn),
        M::Bg => integer::bg(spu, insn),
        M::Bgx => integer::bgx(spu, insn),
        M::And => integer::and(spu, insn),
        M::Nand => integer::nand(spu, insn),
        M::Or => integer::or(spu, insn),
        M::Nor => integer::nor(spu, insn),
        M::Xor => integer::xor(spu, insn),
        M::Eqv => integer::eqv(spu, insn),
        M::Andc => integer::andc(spu, insn),
        M::Orc => integer::orc(spu, insn),
        M::Selb => integer::selb(spu, insn),

        // compare.rs
        M::Cgtbi => compare::cgtbi(spu, insn),
        M::Cgthi => compare::cgthi(spu, insn),
        M::Cgti => compare::cgti(spu, insn),
        M::Clgtbi => compare::clgtbi(spu, insn),
        M::Clgthi => compare::clgthi(spu, insn),
        M::Clgti => compare::clgti(spu, insn),
        M::Ceqbi => compare::ceqbi(spu, insn),
        M::Ceqhi => compare::ceqhi(spu, insn),
        M::Ceqi => compare::ceqi(spu, insn),
        M::Cgt => compare::cgt(spu, insn),
        M::Cgtb => compare::cgtb(spu, insn),
        M::Cgth => compare::cgth(spu, insn),
        M::Clgt => compare::clgt(spu, insn),
        M::Clgtb => compare::clgtb(spu, insn),
        M::Clgth => compare::clgth(spu, insn),
        M::Ceq => compare::ceq(spu, insn),
        M::Ceqb => compare::ceqb(spu, insn),
        M::Ceqh => compare::ceqh(spu, insn),

        // shift_rotate.rs
        M::Roti => shift_rotate::roti(spu, insn),
        M::Rotmi => shift_rotate::rotmi(spu, insn),
        M::Rotmai => shift_rotate::rotmai(spu, insn),
        M::Shli => shift_rotate::shli(spu, insn),
        M::Rothi => shift_rotate::rothi(spu, insn),
        M::Rothmi => shift_rotate::rothmi(spu, insn),
        M::Rotmahi => shift_rotate::rotmahi(spu, insn),
        M::Shlhi => shift_rotate::shlhi(spu, insn),
        M::Rot => shift_rotate::rot(spu, insn),
        M::Rotm => shift_rotate::rotm(spu, insn),
        M::Rotma => shift_rotate::rotma(spu, insn),
        M::Shl => shift_rotate::shl(spu, insn),
        M::Roth => shift_rotate::roth(spu, insn),
        M::Rothm => shift_rotate::rothm(spu, insn),
        M::Rotmah => shift_rotate::rotmah(spu, insn),
        M::Shlh => shift_rotate::shlh(spu, insn),
        M::Rotqbii => shift_rotate::rotqbii(spu, insn),
        M::Rotqmbii => shift_rotate::rotqmbii(spu, insn),
        M::Shlqbii => shift_rotate::shlqbii(spu, insn),
        M::Rotqbyi => shift_rotate::rotqbyi(spu, insn),
        M::Rotqmbyi => shift_rotate::rotqmbyi(spu, insn),
        M::Shlqbyi => shift_rotate::shlqbyi(spu, insn),
        M::Rotqbi => shift_rotate::rotqbi(spu, insn),
        M::Rotqmbi => shift_rotate::rotqmbi(spu, insn),
        M::Shlqbi => shift_rotate::shlqbi(spu, insn),
        M::Rotqby => shift_rotate::rotqby(spu, insn),
        M::Rotqmby => shift_rotate::rotqmby(spu, insn),
        M::Shlqby => shift_rotate::shlqby(spu, insn),
        M::Rotqbybi => shift_rotate::rotqbybi(spu, insn),
        M::Rotqmbybi => shift_rotate::rotqmbybi(spu, insn),
        M::Shlqbybi => shift_rotate::shlqbybi(spu, insn),
        M::Shufb => shift_rotate::shufb(spu, insn),

        // float_sp.rs
        M::Fa => float_sp::fa::<INLINE_SP>(spu, insn),
        M::Fs => float_sp::fs::<INLINE_SP>(spu, insn),
        M::Fm => float_sp::fm::<INLINE_SP>(spu, insn),
        M::Fma => float_sp::fma::<INLINE_SP>(spu, insn),
        M::Fms => float_sp::fms::<INLINE_SP>(spu, insn),
        M::Fnms => float_sp::fnms::<INLINE_SP>(spu, insn),
        M::Csflt => float_sp::csflt::<INLINE_SP>(spu, insn),
        M::Cuflt => float_sp::cuflt::<INLINE_SP>(spu, insn),

        // control.rs
        M::Nop | M::Lnop => control::nop(),
        M::Sync | M::Dsync => control::sync(),

        _ if RARE_INLINE => rare(spu, mnemonic, insn, pc),
        // By value: an 8-byte op travels in one register.
        _ => apply_rare(spu, *insn, pc),
    }
}

/// [`apply`] for the rarer instructions, out of line (floating-point compares, conversions
/// to fixed point and estimates, DP, integer multiplies, byte operations, masks, stops,
/// halts, channels, special-purpose registers, and the branches that read or change the
/// interrupt state, `iret` and `bisled`).
#[inline(never)]
fn apply_rare(spu: &mut impl Machine, op: Op, pc: u32) -> Flow {
    rare(spu, op.mnemonic(), &op, pc)
}

/// The body of [`apply_rare`], for `insn` as `mnemonic`.
#[inline(always)]
fn rare(spu: &mut impl Machine, mnemonic: Mnemonic, insn: &Op, pc: u32) -> Flow {
    use Mnemonic as M;
    match mnemonic {
        // integer.rs
        M::Clz => integer::clz(spu, insn),
        M::Xsbh => integer::xsbh(spu, insn),
        M::Xshw => integer::xshw(spu, insn),
        M::Xswd => integer::xswd(spu, insn),
        M::Cntb => integer::cntb(spu, insn),
        M::Absdb => integer::absdb(spu, insn),
        M::Avgb => integer::avgb(spu, insn),
        M::Sumb => integer::sumb(spu, insn),
        M::Fsmbi => integer::fsmbi(spu, insn),
        M::Fsm => integer::fsm(spu, insn),
        M::Fsmh => integer::fsmh(spu, insn),
        M::Fsmb => integer::fsmb(spu, insn),
        M::Gb => integer::gb(spu, insn),
        M::Gbh => integer::gbh(spu, insn),
        M::Gbb => integer::gbb(spu, insn),
        M::Orx => integer::orx(spu, insn),

        // multiply.rs
        M::Mpyi => multiply::mpyi(spu, insn),
        M::Mpyui => multiply::mpyui(spu, insn),
        M::Mpy => multiply::mpy(spu, insn),
        M::Mpyu => multiply::mpyu(spu, insn),
        M::Mpyh => multiply::mpyh(spu, insn),
        M::Mpyhh => multiply::mpyhh(spu, insn),
        M::Mpyhhu => multiply::mpyhhu(spu, insn),
        M::Mpys => multiply::mpys(spu, insn),
        M::Mpyhha => multiply::mpyhha(spu, insn),
        M::Mpyhhau => multiply::mpyhhau(spu, insn),
        M::Mpya => multiply::mpya(spu, insn),

        // float_sp.rs
        M::Fceq => float_sp::fceq(spu, insn),
        M::Fcmeq => float_sp::fcmeq(spu, insn),
        M::Fcgt => float_sp::fcgt(spu, insn),
        M::Fcmgt => float_sp::fcmgt(spu, insn),
        M::Cflts => float_sp::cflts(spu, insn),
        M::Cfltu => float_sp::cfltu(spu, insn),
        M::Fi => float_sp::fi(spu, insn),
        M::Frest => float_sp::frest(spu, insn),
        M::Frsqest => float_sp::frsqest(spu, insn),

        // float_dp.rs
        M::Dfa => float_dp::dfa(spu, insn),
        M::Dfs => float_dp::dfs(spu, insn),
        M::Dfm => float_dp::dfm(spu, insn),
        M::Dfma => float_dp::dfma(spu, insn),
        M::Dfms => float_dp::dfms(spu, insn),
        M::Dfnms => float_dp::dfnms(spu, insn),
        M::Dfnma => float_dp::dfnma(spu, insn),
        M::Dfceq => float_dp::dfceq(spu, insn),
        M::Dfcmeq => float_dp::dfcmeq(spu, insn),
        M::Dfcgt => float_dp::dfcgt(spu, insn),
        M::Dfcmgt => float_dp::dfcmgt(spu, insn),
        M::Dftsv => float_dp::dftsv(spu, insn),
        M::Fesd => float_dp::fesd(spu, insn),
        M::Frds => float_dp::frds(spu, insn),
        M::Fscrrd => float_dp::fscrrd(spu, insn),
        M::Fscrwr => float_dp::fscrwr(spu, insn),

        // control.rs
        M::Stop | M::Stopd => control::stop(insn),
        M::Hgti => control::hgti(spu, insn),
        M::Hlgti => control::hlgti(spu, insn),
        M::Heqi => control::heqi(spu, insn),
        M::Hgt => control::hgt(spu, insn),
        M::Hlgt => control::hlgt(spu, insn),
        M::Heq => control::heq(spu, insn),
        M::Mfspr => control::mfspr(spu, insn),
        M::Mtspr => control::mtspr(),
        M::Rdch => control::rdch(insn),
        M::Wrch => control::wrch(insn),
        M::Rchcnt => control::rchcnt(insn),
        M::Iret => branch_hint::iret(spu, insn),
        M::Bisled => branch_hint::bisled(spu, insn, pc),

        // Handled by `apply`; listed so that this match stays exhaustive: a new mnemonic
        // must be given an arm in one of the two.
        #[rustfmt::skip]
        M::Lqa | M::Lqr | M::Lqd | M::Lqx | M::Stqa | M::Stqr | M::Stqd | M::Stqx | M::Cbd
        | M::Chd | M::Cwd | M::Cdd | M::Cbx | M::Chx | M::Cwx | M::Cdx | M::Br | M::Bra
        | M::Brsl | M::Brasl | M::Brz | M::Brnz | M::Brhz | M::Brhnz | M::Bi | M::Bisl
        | M::Biz | M::Binz | M::Bihz | M::Bihnz | M::Hbr | M::Hbra
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
        | M::Shlqbybi | M::Shufb | M::Fa | M::Fs | M::Fm | M::Fma | M::Fms | M::Fnms | M::Csflt | M::Cuflt | M::Nop
        | M::Lnop | M::Sync | M::Dsync => Flow::Fault(FaultKind::IllegalInstruction),
    }
}
