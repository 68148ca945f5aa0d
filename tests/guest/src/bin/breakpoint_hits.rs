//! Hardware breakpoints through the runtime's debug exception handler: a breakpoint on a
//! function fires exactly once per call, its listener and a PC event see every hit, the
//! function still computes the right results (the handler steps past the breakpoint and
//! resumes), removing it stops the hits, and with every comparator in use the next install is
//! the typed error, with the count read from ID_AA64DFR0_EL1.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicU64, Ordering};

use aarch64_cpu::registers::{ID_AA64DFR0_EL1, Readable};
use pmprobe::hwdebug::{BreakpointHit, HwDebugError};
use pmprobe::probe::{Listener, PcEvent, PcEventAction};
use pmprobe::rt::debug_exceptions;

pmprobe::entry!(main);

/// Calls of `target` to make.
const CALLS: u64 = 7;

#[inline(never)]
fn target(x: u64) -> u64 {
    black_box(x) * 3 + 1
}

#[inline(never)]
fn other(x: u64) -> u64 {
    black_box(x) ^ 0x55
}

/// Counts the hits it is notified of and remembers the last PC.
struct HitCounter {
    hits: AtomicU64,
    last_pc: AtomicU64,
}

impl Listener<BreakpointHit> for HitCounter {
    fn notify(&self, hit: &BreakpointHit) {
        self.hits.fetch_add(1, Ordering::Relaxed);
        self.last_pc.store(hit.pc, Ordering::Relaxed);
    }
}

static LISTENER: HitCounter = HitCounter {
    hits: AtomicU64::new(0),
    last_pc: AtomicU64::new(0),
};

/// A PC event on `other`, counting the hits the monitor runs it for.
struct CountingEvent {
    pc: AtomicU64,
    runs: AtomicU64,
}

impl PcEvent<BreakpointHit> for CountingEvent {
    fn pc(&self) -> u64 {
        self.pc.load(Ordering::Relaxed)
    }
    fn description(&self) -> &str {
        "counts calls of other()"
    }
    fn process(&self, _hit: &mut BreakpointHit) -> PcEventAction {
        self.runs.fetch_add(1, Ordering::Relaxed);
        PcEventAction::Keep
    }
}

static EVENT: CountingEvent = CountingEvent {
    pc: AtomicU64::new(0),
    runs: AtomicU64::new(0),
};

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("breakpoint_hits");
    if let Err(e) = debug_exceptions::enable() {
        t.check_with("enable", false, format_args!("{e}"));
        return t.finish();
    }
    let target_pc = target as *const () as usize as u64;
    let installed = debug_exceptions::with_monitor(|m| {
        m.breakpoint_point().add_object(&LISTENER).ok()?;
        m.install_breakpoint(target_pc).ok()
    });
    let Ok(Some(breakpoint)) = installed else {
        t.check("install", false);
        return t.finish();
    };
    let mut sum = 0;
    for i in 0..CALLS {
        sum += target(i);
    }
    t.check_eq(
        "results_unchanged_by_stepping",
        sum,
        3 * (CALLS * (CALLS - 1) / 2) + CALLS,
    );
    let hits = debug_exceptions::with_monitor(|m| m.breakpoint_hits(breakpoint));
    t.check_eq("breakpoint_fires_once_per_call", hits, Ok(CALLS));
    t.check_eq(
        "listener_saw_every_hit",
        LISTENER.hits.load(Ordering::Relaxed),
        CALLS,
    );
    t.check_eq(
        "hit_pc_is_the_function",
        LISTENER.last_pc.load(Ordering::Relaxed),
        target_pc,
    );
    let removed = debug_exceptions::with_monitor(|m| m.remove_breakpoint(breakpoint));
    t.check_eq("remove", removed, Ok(Ok(())));
    black_box(target(100));
    t.check_eq(
        "no_hit_after_removal",
        LISTENER.hits.load(Ordering::Relaxed),
        CALLS,
    );

    // A PC event on real code: the monitor places the breakpoint and runs the event per hit.
    EVENT
        .pc
        .store(other as *const () as usize as u64, Ordering::Relaxed);
    let scheduled = debug_exceptions::with_monitor(|m| m.schedule(&EVENT).is_ok());
    t.check_eq("pc_event_scheduled", scheduled, Ok(true));
    for i in 0..3 {
        black_box(other(i));
    }
    t.check_eq(
        "pc_event_runs_per_hit",
        EVENT.runs.load(Ordering::Relaxed),
        3,
    );
    let descheduled = debug_exceptions::with_monitor(|m| m.deschedule(&EVENT).is_ok());
    t.check_eq("pc_event_descheduled", descheduled, Ok(true));

    // Every comparator in use: the next install is the typed error with the real count.
    let implemented = (ID_AA64DFR0_EL1.read(ID_AA64DFR0_EL1::BRPs) + 1) as u8;
    pmprobe::println!("breakpoint comparators (ID_AA64DFR0_EL1.BRPs + 1): {implemented}");
    let exhausted = debug_exceptions::with_monitor(|m| {
        let counts = m.debug().counts();
        let mut installed = 0u8;
        for i in 0..u64::from(implemented) {
            if m.install_breakpoint(0x4000_0000 + 4 * i).is_ok() {
                installed += 1;
            }
        }
        let next = m.install_breakpoint(0x4000_1000);
        for i in 0..u64::from(implemented) {
            if let Some(breakpoint) = m.debug().breakpoint_at(0x4000_0000 + 4 * i) {
                let _ = m.remove_breakpoint(breakpoint);
            }
        }
        (counts.breakpoints, installed, next)
    });
    t.check_eq(
        "all_breakpoints_in_use_is_a_typed_error",
        exhausted,
        Ok((
            implemented,
            implemented,
            Err(HwDebugError::NoFreeBreakpoint { implemented }),
        )),
    );
    t.finish()
}
