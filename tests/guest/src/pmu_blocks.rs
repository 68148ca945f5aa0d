//! Fixed inline-asm instruction blocks shared by the PMU guest programs (included with
//! `#[path]`), and the instruction counts derived from them.
//!
//! QEMU 7.2 with `-icount shift=0` retires exactly the instructions written here, and a PMU
//! register access observes the count *including the accessing instruction itself* (QEMU
//! updates icount before the access takes effect; measured: two `mrs` of a counter around K
//! instructions differ by K + 1, a counter enabled by an `msr` and disabled by another counts
//! the instructions after the first up to and including the second).
#![allow(dead_code)]

use core::arch::asm;

/// PMCR_EL0.E.
pub const PMCR_E: u64 = 1 << 0;
/// PMCR_EL0.LC.
pub const PMCR_LC: u64 = 1 << 6;
/// PMCR_EL0.LP.
pub const PMCR_LP: u64 = 1 << 7;

/// Instructions counted by [`gated_block`]: after the enabling `msr pmcr_el0` come
/// `isb`, 10 `nop`, 2 `msr pmswinc_el0`, `isb`, and the disabling `msr pmcr_el0` (counted) = 15.
pub const GATED_BLOCK_INSTRUCTIONS: u64 = 1 + 10 + 2 + 1 + 1;
/// PMSWINC writes in [`gated_block`].
pub const GATED_BLOCK_SW_INCREMENTS: u64 = 2;

/// Turns counting on (PMCR = `pmcr_base` | E), runs 10 nops and 2 PMSWINC writes of `sw_mask`,
/// turns counting off (PMCR = `pmcr_base`). Everything the PMU counts happens inside this block.
#[inline(always)]
pub fn gated_block(pmcr_base: u64, sw_mask: u64) {
    // SAFETY: only PMU registers are written; the caller owns the PMU.
    unsafe {
        asm!(
            "msr pmcr_el0, {on}",
            "isb",
            "nop", "nop", "nop", "nop", "nop", "nop", "nop", "nop", "nop", "nop",
            "msr pmswinc_el0, {sw}",
            "msr pmswinc_el0, {sw}",
            "isb",
            "msr pmcr_el0, {off}",
            on = in(reg) pmcr_base | PMCR_E,
            off = in(reg) pmcr_base,
            sw = in(reg) sw_mask,
            options(nostack, preserves_flags),
        );
    }
}

/// Instructions strictly between the two PMEVCNTR0 reads of [`read_around_block`]:
/// `mrs pmccntr_el0`, 12 `nop`, 3 `add` = 16 (between the two PMCCNTR reads: 12 `nop`, 3 `add`,
/// `mrs pmevcntr0_el0` = 16 too).
pub const READ_BLOCK_BETWEEN: u64 = 1 + 12 + 3;

/// Reads PMEVCNTR0 and PMCCNTR, runs a fixed block, reads them again (counting must be on).
/// Returns (PMEVCNTR0 delta, PMCCNTR delta). Between the two PMEVCNTR0 reads lie
/// [`READ_BLOCK_BETWEEN`] instructions; the second read counts itself, so the expected
/// INST_RETIRED delta is `READ_BLOCK_BETWEEN + 1`. The PMCCNTR reads bracket the same number.
#[inline(always)]
pub fn read_around_block() -> (u64, u64) {
    let (e0, c0, e1, c1): (u64, u64, u64, u64);
    // SAFETY: reads of PMU counters and arithmetic on scratch registers only.
    unsafe {
        asm!(
            "isb",
            "mrs {e0}, pmevcntr0_el0",
            "mrs {c0}, pmccntr_el0",
            "nop", "nop", "nop", "nop", "nop", "nop", "nop", "nop", "nop", "nop", "nop", "nop",
            "add {t}, {t}, #1",
            "add {t}, {t}, #2",
            "add {t}, {t}, #3",
            "mrs {e1}, pmevcntr0_el0",
            "mrs {c1}, pmccntr_el0",
            e0 = out(reg) e0,
            c0 = out(reg) c0,
            e1 = out(reg) e1,
            c1 = out(reg) c1,
            t = inout(reg) 0u64 => _,
            options(nostack, nomem),
        );
    }
    (e1.wrapping_sub(e0), c1.wrapping_sub(c0))
}

/// Detects (and resets) the real PMU through the driver and prints what it found; when there is
/// no usable PMU it records a failed `detect` check and returns `None`.
pub fn detect_real_pmu(
    t: &mut pmprobe_guest::Checks,
) -> Option<pmprobe::pmu::Pmu<pmprobe::pmu::SysRegPmu>> {
    let pmu = match pmprobe::pmu::Pmu::new(pmprobe::pmu::SysRegPmu::new()) {
        Ok(p) => p,
        Err(e) => {
            pmprobe::println!("detect failed: {e}");
            t.check("detect", false);
            return None;
        }
    };
    let info = pmu.info();
    pmprobe::println!(
        "PMU: {} on {}, N = {}, events {}",
        info.version,
        info.cpu,
        info.counters,
        info.events
    );
    Some(pmu)
}
