//! Double-precision instructions (IEEE 754, round to nearest) and the FPSCR.
//!
//! `dfa`, `dfs`, `dfm`, the multiply-accumulates (`dfma`, `dfms`, `dfnms`, `dfnma`, with RT as
//! the accumulator), the compares and `dftsv`, the conversions between precisions (`fesd`,
//! `frds`), and `fscrrd`/`fscrwr` (the model keeps the FPSCR as written and records no status
//! flags). All out of line: DP is rare in SPU code. The arithmetic is in `float_double`.

use super::super::float_double as dp;
use super::super::flow::Flow;
use super::super::machine::Machine;
use super::super::op::Op;
use super::super::quadword::Quadword;

/// All ones when `condition` holds (a compare's doubleword result).
fn mask64(condition: bool) -> u64 {
    if condition { u64::MAX } else { 0 }
}

// arithmetic

#[inline(always)]
pub(super) fn dfa(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn).zip_doublewords(spu.rb(insn), dp::add),
    )
}

#[inline(always)]
pub(super) fn dfs(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn).zip_doublewords(spu.rb(insn), dp::sub),
    )
}

#[inline(always)]
pub(super) fn dfm(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn).zip_doublewords(spu.rb(insn), dp::mul),
    )
}

#[inline(always)]
pub(super) fn dfma(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        dp_accumulate(spu.ra(insn), spu.rb(insn), spu.rt(insn), dp::dfma),
    )
}

#[inline(always)]
pub(super) fn dfms(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        dp_accumulate(spu.ra(insn), spu.rb(insn), spu.rt(insn), dp::dfms),
    )
}

#[inline(always)]
pub(super) fn dfnms(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        dp_accumulate(spu.ra(insn), spu.rb(insn), spu.rt(insn), dp::dfnms),
    )
}

#[inline(always)]
pub(super) fn dfnma(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        dp_accumulate(spu.ra(insn), spu.rb(insn), spu.rt(insn), dp::dfnma),
    )
}

// compares and class test

#[inline(always)]
pub(super) fn dfceq(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_doublewords(spu.rb(insn), |x, y| mask64(dp::equal(x, y))),
    )
}

#[inline(always)]
pub(super) fn dfcmeq(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_doublewords(spu.rb(insn), |x, y| mask64(dp::magnitude_equal(x, y))),
    )
}

#[inline(always)]
pub(super) fn dfcgt(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_doublewords(spu.rb(insn), |x, y| mask64(dp::greater(x, y))),
    )
}

#[inline(always)]
pub(super) fn dfcmgt(spu: &mut impl Machine, insn: &Op) -> Flow {
    spu.write(
        insn.rt(),
        spu.ra(insn)
            .zip_doublewords(spu.rb(insn), |x, y| mask64(dp::magnitude_greater(x, y))),
    )
}

#[inline(always)]
pub(super) fn dftsv(spu: &mut impl Machine, insn: &Op) -> Flow {
    let classes = (insn.imm() as u8) & 0x7f;
    spu.write(
        insn.rt(),
        spu.ra(insn).zip_doublewords(spu.ra(insn), |x, _| {
            mask64(dp::test_special_value(x, classes))
        }),
    )
}

// conversions between precisions

#[inline(always)]
pub(super) fn fesd(spu: &mut impl Machine, insn: &Op) -> Flow {
    let w = spu.ra(insn).words();
    spu.write(
        insn.rt(),
        Quadword::from_doublewords([dp::extend_single(w[0]), dp::extend_single(w[2])]),
    )
}

#[inline(always)]
pub(super) fn frds(spu: &mut impl Machine, insn: &Op) -> Flow {
    let d = spu.ra(insn).doublewords();
    spu.write(
        insn.rt(),
        Quadword::from_words([dp::round_to_single(d[0]), 0, dp::round_to_single(d[1]), 0]),
    )
}

// the FPSCR

#[inline(always)]
pub(super) fn fscrrd(spu: &mut impl Machine, insn: &Op) -> Flow {
    let value = spu.fpscr();
    spu.write(insn.rt(), value)
}

#[inline(always)]
pub(super) fn fscrwr(spu: &mut impl Machine, insn: &Op) -> Flow {
    let value = spu.ra(insn);
    spu.set_fpscr(value);
    Flow::Next
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
