//! The two sample sources (PMU overflow, virtual timer): arming them, their interrupt handlers,
//! the probe of the PMU overflow interrupt, and the live stack the handlers walk.

use core::hint::black_box;
use core::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

use aarch64_cpu::registers::{CNTV_CTL_EL0, CNTV_CVAL_EL0, CNTVCT_EL0, Readable, Writeable};

use crate::pmu::{Event, ExceptionLevel, PmuBackend, PmuRegister, SysRegPmu, detect};
use crate::sampling::SampleSource;

use super::super::irq::{self, Interrupted, IrqError};
use super::fallback::Fallback;
use super::per_core::take_sample;

/// The PMU overflow interrupt on QEMU `virt` (PPI 7).
pub const PMU_INTID: u32 = 23;
/// The EL1 virtual timer interrupt on QEMU `virt` (PPI 11).
pub const VIRTUAL_TIMER_INTID: u32 = 27;
/// The probe of the PMU overflow interrupt loads the counter this many events before overflow.
pub const PROBE_PERIOD: u64 = 1024;
/// ... and waits at least this many events (a loop that touches no PMU register) for it.
pub const PROBE_WAIT: u64 = 64 * PROBE_PERIOD;

/// PMCR_EL0 bits: E (enable), LP (64-bit event counters).
const PMCR_E: u64 = 1 << 0;
const PMCR_LP: u64 = 1 << 7;
/// PMEVTYPER.NSH: count at EL2 (set when running at EL2, as the PMU driver does).
const FILTER_NSH: u64 = 1 << 27;

/// Events (PMU) or ticks (timer) between samples, which the handlers reload: set by
/// [`start`](super::start).
pub(super) static PERIOD: AtomicU64 = AtomicU64::new(0);
/// The event counter the profiler uses (the highest-numbered one).
static COUNTER: AtomicU8 = AtomicU8::new(0);
/// The counter's width in bits (32, or 64 with PMCR.LP).
static WIDTH: AtomicU8 = AtomicU8::new(32);
/// The probe is running: the handler only counts.
static PROBING: AtomicBool = AtomicBool::new(false);
static PROBE_HITS: AtomicU64 = AtomicU64::new(0);

/// Whether the PMU can sample `event` from its overflow interrupt, tested as the module
/// documentation of [`super`] describes. Leaves the PMU handler installed when it can.
pub(super) fn probe_pmu(event: Event) -> Result<(), Fallback> {
    let pmu = SysRegPmu::new();
    let info = detect(&pmu).map_err(|_| Fallback::NoPmu)?;
    let Some(counter) = info.counters.checked_sub(1) else {
        return Err(Fallback::NoPmu);
    };
    if event.is_common() && !info.events.contains(event) {
        return Err(Fallback::EventNotCountable {
            event: event.number(),
        });
    }
    COUNTER.store(counter, Ordering::Relaxed);
    if irq::enable_with_context(PMU_INTID, on_pmu_overflow).is_err() {
        return Err(Fallback::NoPmu);
    }
    PROBE_HITS.store(0, Ordering::Relaxed);
    PROBING.store(true, Ordering::Release);
    program_counter(&pmu, event.number(), PROBE_PERIOD);
    // At least PROBE_WAIT events past the overflow: each iteration retires several
    // instructions and takes several cycles, whichever of the two the event counts.
    let mut i = 0u64;
    while i < PROBE_PERIOD + PROBE_WAIT && PROBE_HITS.load(Ordering::Relaxed) == 0 {
        i = black_box(i + 1);
    }
    let arrived = PROBE_HITS.load(Ordering::Acquire) > 0;
    stop_counter(&pmu);
    PROBING.store(false, Ordering::Release);
    if arrived {
        Ok(())
    } else {
        let _ = irq::disable(PMU_INTID);
        Err(Fallback::NoOverflowInterrupt { events: PROBE_WAIT })
    }
}

/// Installs the PMU handler after a probe that saw no interrupt ([`super::SourceChoice::Pmu`]
/// samples such a PMU anyway, to measure it).
pub(super) fn keep_pmu_handler() -> Result<(), IrqError> {
    irq::enable_with_context(PMU_INTID, on_pmu_overflow)
}

/// Removes the handler of `source` (on this core's GIC side; the other cores' PPIs were
/// disabled by their `pause`).
pub(super) fn release(source: SampleSource) {
    disarm(source);
    let _ = irq::disable(match source {
        SampleSource::PmuOverflow => PMU_INTID,
        SampleSource::GenericTimer => VIRTUAL_TIMER_INTID,
    });
}

/// Loads the profiler's counter `period` events before overflow and starts it, with its
/// overflow interrupt; PMCR.E on (other counters keep their settings).
fn program_counter(pmu: &SysRegPmu, event: u16, period: u64) {
    let counter = COUNTER.load(Ordering::Relaxed);
    let bit = 1u64 << counter;
    let pmcr = pmu.read(PmuRegister::Pmcr).unwrap_or(0);
    let width = if pmcr & PMCR_LP != 0 { 64 } else { 32 };
    WIDTH.store(width, Ordering::Relaxed);
    let filter = if pmu.current_el() == ExceptionLevel::El2 {
        FILTER_NSH
    } else {
        0
    };
    let _ = pmu.write(PmuRegister::CntenClr, bit);
    let _ = pmu.write(PmuRegister::EvTyper(counter), u64::from(event) | filter);
    let _ = pmu.write(PmuRegister::EvCntr(counter), reload_value(period, width));
    let _ = pmu.write(PmuRegister::OvsClr, bit);
    let _ = pmu.write(PmuRegister::IntenSet, bit);
    let _ = pmu.write(PmuRegister::CntenSet, bit);
    // PMCR.P and C read as 0: writing back what was read only sets E.
    let _ = pmu.write(PmuRegister::Pmcr, pmcr | PMCR_E);
    pmu.isb();
}

/// Stops the profiler's counter and its interrupt; the other counters are left alone.
fn stop_counter(pmu: &SysRegPmu) {
    let bit = 1u64 << COUNTER.load(Ordering::Relaxed);
    let _ = pmu.write(PmuRegister::CntenClr, bit);
    let _ = pmu.write(PmuRegister::IntenClr, bit);
    let _ = pmu.write(PmuRegister::OvsClr, bit);
    pmu.isb();
}

/// `2^width - period`: the counter wraps through zero after `period` events.
fn reload_value(period: u64, width: u8) -> u64 {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    period.clamp(1, mask).wrapping_neg() & mask
}

/// Arms `source` on this core (its PPI enabled in the GIC for this core).
pub(super) fn arm(source: SampleSource, event: u16, period: u64) -> Result<(), IrqError> {
    match source {
        SampleSource::PmuOverflow => {
            irq::enable_with_context(PMU_INTID, on_pmu_overflow)?;
            program_counter(&SysRegPmu::new(), event, period);
        }
        SampleSource::GenericTimer => {
            irq::enable_with_context(VIRTUAL_TIMER_INTID, on_timer)?;
            CNTV_CVAL_EL0.set(CNTVCT_EL0.get().wrapping_add(period));
            CNTV_CTL_EL0.write(CNTV_CTL_EL0::ENABLE::SET + CNTV_CTL_EL0::IMASK::CLEAR);
        }
    }
    Ok(())
}

/// Disarms `source` on this core.
pub(super) fn disarm(source: SampleSource) {
    match source {
        SampleSource::PmuOverflow => stop_counter(&SysRegPmu::new()),
        SampleSource::GenericTimer => {
            CNTV_CTL_EL0.write(CNTV_CTL_EL0::ENABLE::CLEAR + CNTV_CTL_EL0::IMASK::SET);
        }
    }
}

/// INTID 23: reads the counter before anything else (its value is the skid: it wrapped
/// through zero at the programmed overflow), samples, reloads, clears the overflow flag.
fn on_pmu_overflow(_intid: u32, interrupted: &Interrupted) {
    let pmu = SysRegPmu::new();
    let counter = COUNTER.load(Ordering::Relaxed);
    let raw = pmu.read(PmuRegister::EvCntr(counter)).unwrap_or(0);
    let bit = 1u64 << counter;
    if pmu.read(PmuRegister::OvsSet).unwrap_or(0) & bit == 0 {
        return;
    }
    if PROBING.load(Ordering::Acquire) {
        PROBE_HITS.fetch_add(1, Ordering::AcqRel);
        stop_counter(&pmu);
        return;
    }
    let width = WIDTH.load(Ordering::Relaxed);
    let skid = if width >= 64 {
        raw
    } else {
        raw & ((1u64 << width) - 1)
    };
    take_sample(interrupted, skid);
    let period = PERIOD.load(Ordering::Relaxed);
    let _ = pmu.write(PmuRegister::EvCntr(counter), reload_value(period, width));
    let _ = pmu.write(PmuRegister::OvsClr, bit);
    pmu.isb();
}

/// INTID 27: the ticks since the deadline are the skid; the next deadline is one period after
/// this one (or after now, when the handler ran more than a period late).
fn on_timer(_intid: u32, interrupted: &Interrupted) {
    let now = CNTVCT_EL0.get();
    let deadline = CNTV_CVAL_EL0.get();
    take_sample(interrupted, now.saturating_sub(deadline));
    let period = PERIOD.load(Ordering::Relaxed);
    let mut next = deadline.wrapping_add(period);
    let after = CNTVCT_EL0.get();
    if next <= after {
        next = after.wrapping_add(period);
    }
    CNTV_CVAL_EL0.set(next);
}
