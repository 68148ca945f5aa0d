//! The debug-exception state machine on the emulated debug unit: a simulated core runs
//! "instructions", asks the unit whether a comparator fires, and calls the monitor's hooks the
//! way the runtime's exception handler will.
use std::cell::Cell;

use pmprobe::hwdebug::{
    BreakpointHit, DebugExceptionContext, DebugMonitor, EmulatedDebug, HwDebug, HwDebugError,
    MonitorError, Resume, Unclaimed, WatchKind,
};
use pmprobe::hwdebug::{SPSR_IRQ_FIQ, SPSR_SS};
use pmprobe::probe::listeners::{AccessKind, MemAccess, MemTrace, OverflowPolicy, StackDistance};
use pmprobe::probe::{BreakPcEvent, Listener, MutListener, PcEventError};

/// SPSR of EL1h code with interrupts enabled.
const SPSR_EL1H: u64 = 0x5;
const BREAKPOINT_ESR: u64 = (0x31 << 26) | (1 << 25) | 0x22;
const STEP_ESR: u64 = (0x33 << 26) | (1 << 25) | 0x22;
fn watchpoint_esr(write: bool) -> u64 {
    (0x35 << 26) | (1 << 25) | (u64::from(write) << 6) | 0x22
}
/// `str w1, [x0]` and `ldr x0, [x1]`.
const STR_W: u32 = 0xb900_0001;
const LDR_X: u32 = 0xf940_0020;

fn monitor(unit: &EmulatedDebug) -> DebugMonitor<'_, &EmulatedDebug> {
    let monitor = DebugMonitor::new(HwDebug::new(unit).unwrap());
    monitor.debug().enable_debug_exceptions().unwrap();
    monitor
}

/// Executes the instruction at `pc` on a core with this debug unit: takes the breakpoint
/// exception if one fires, then the step exception; returns the SPSR the core ends with.
fn execute(
    unit: &EmulatedDebug,
    monitor: &mut DebugMonitor<'_, &EmulatedDebug>,
    pc: u64,
    spsr: u64,
) -> u64 {
    if unit.breakpoint_hit(pc).is_none() {
        return spsr;
    }
    let ctx = DebugExceptionContext {
        esr: BREAKPOINT_ESR,
        far: 0,
        elr: pc,
        spsr,
        instruction: None,
    };
    let resume = monitor.on_debug_exception(&ctx).unwrap();
    assert_eq!(resume.elr, pc, "returns to the breakpointed instruction");
    if resume.spsr & SPSR_SS == 0 {
        return resume.spsr;
    }
    assert!(unit.software_step_armed());
    assert_eq!(
        unit.breakpoint_hit(pc),
        None,
        "the stepped instruction must not fire again"
    );
    let step = DebugExceptionContext {
        esr: STEP_ESR,
        elr: pc + 4,
        spsr: resume.spsr,
        ..ctx
    };
    monitor.on_debug_exception(&step).unwrap().spsr
}

#[test]
fn a_breakpoint_fires_once_per_call_and_steps_past() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut monitor = monitor(&unit);
    let function = 0x4008_1000;
    let breakpoint = monitor.install_breakpoint(function).unwrap();
    for calls in 1..=25u64 {
        // A call: the function's first instruction, then its body.
        let spsr = execute(&unit, &mut monitor, function, SPSR_EL1H);
        assert_eq!(spsr, SPSR_EL1H, "SS clear and the interrupt mask restored");
        for body in 1..8 {
            execute(&unit, &mut monitor, function + 4 * body, SPSR_EL1H);
        }
        assert_eq!(monitor.breakpoint_hits(breakpoint), calls);
        assert!(!monitor.is_stepping());
        assert!(!unit.software_step_armed());
    }
}

#[test]
fn the_step_masks_interrupts_and_restores_the_interrupted_mask() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut monitor = monitor(&unit);
    monitor.install_breakpoint(0x1000).unwrap();
    for original in [SPSR_EL1H, SPSR_EL1H | SPSR_IRQ_FIQ, SPSR_EL1H | (1 << 7)] {
        let resume = monitor.on_breakpoint(0x1000, original).unwrap();
        assert_eq!(resume.spsr & SPSR_SS, SPSR_SS);
        assert_eq!(resume.spsr & SPSR_IRQ_FIQ, SPSR_IRQ_FIQ);
        let after = monitor.on_step(0x1004, resume.spsr).unwrap();
        assert_eq!(
            after,
            Resume {
                elr: 0x1004,
                spsr: original
            }
        );
    }
}

struct Hits(Cell<Vec<BreakpointHit>>);
impl Listener<BreakpointHit> for Hits {
    fn notify(&self, hit: &BreakpointHit) {
        let mut hits = self.0.take();
        hits.push(*hit);
        self.0.set(hits);
    }
}

#[test]
fn listeners_see_every_hit_with_its_pc_comparator_and_count() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let hits = Hits(Cell::new(Vec::new()));
    let mut monitor: DebugMonitor<'_, &EmulatedDebug> =
        DebugMonitor::new(HwDebug::new(&unit).unwrap());
    monitor.debug().enable_debug_exceptions().unwrap();
    monitor.breakpoint_point().add_object(&hits).unwrap();
    let a = monitor.install_breakpoint(0x2000).unwrap();
    let b = monitor.install_breakpoint(0x3000).unwrap();
    for pc in [0x2000, 0x3000, 0x2000] {
        execute(&unit, &mut monitor, pc, SPSR_EL1H);
    }
    let seen = hits.0.take();
    let summary: Vec<(u64, u8, u64)> = seen.iter().map(|h| (h.pc, h.comparator, h.hits)).collect();
    assert_eq!(
        summary,
        [
            (0x2000, a.comparator(), 1),
            (0x3000, b.comparator(), 1),
            (0x2000, a.comparator(), 2)
        ]
    );
}

#[test]
fn unowned_exceptions_are_unclaimed() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut monitor = monitor(&unit);
    assert_eq!(
        monitor.on_breakpoint(0x5000, SPSR_EL1H),
        Err(Unclaimed::NoBreakpointAt { pc: 0x5000 })
    );
    assert_eq!(
        monitor.on_step(0x5004, SPSR_EL1H),
        Err(Unclaimed::UnexpectedStep { pc: 0x5004 })
    );
    assert_eq!(
        monitor.on_watchpoint(0x9000, Some(4), true, 0x5000, SPSR_EL1H),
        Err(Unclaimed::NoWatchpointFor { address: 0x9000 })
    );
    let undefined = DebugExceptionContext {
        esr: 1 << 25,
        far: 0,
        elr: 0x5000,
        spsr: SPSR_EL1H,
        instruction: None,
    };
    assert_eq!(
        monitor.on_debug_exception(&undefined),
        Err(Unclaimed::NotMonitored { ec: 0 })
    );
}

#[test]
fn watchpoint_hits_reach_mem_trace_and_stack_distance_unchanged() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let trace: MutListener<MemTrace<64>> =
        MutListener::new(MemTrace::new(OverflowPolicy::DropNewest));
    let distance: MutListener<StackDistance<64, 8>> =
        MutListener::new(StackDistance::new(16).unwrap());
    let mut monitor: DebugMonitor<'_, &EmulatedDebug> =
        DebugMonitor::new(HwDebug::new(&unit).unwrap());
    monitor.debug().enable_debug_exceptions().unwrap();
    monitor.watchpoint_point().add_object(&trace).unwrap();
    monitor.watchpoint_point().add_object(&distance).unwrap();
    let variable = 0x4010_0010u64;
    let watchpoint = monitor
        .install_watchpoint(variable, 4, WatchKind::ReadWrite)
        .unwrap();

    // A loop storing to the variable 5 times (pc 0x100) and loading a doubleword that covers
    // it once (pc 0x200); a store next to it (pc 0x300) does not fire.
    let mut program: Vec<(u64, u32, u64, u64, bool)> = vec![(0x100, STR_W, variable, 4, true); 5];
    program.push((0x200, LDR_X, variable & !7, 8, false));
    program.push((0x300, STR_W, variable + 4, 4, true));
    for &(pc, word, address, size, write) in &program {
        let Some(comparator) = unit.watchpoint_hit(address, size, write) else {
            continue;
        };
        assert_eq!(comparator, watchpoint.comparator());
        let ctx = DebugExceptionContext {
            esr: watchpoint_esr(write),
            far: address.max(variable),
            elr: pc,
            spsr: SPSR_EL1H,
            instruction: Some(word),
        };
        let resume = monitor.on_debug_exception(&ctx).unwrap();
        assert_eq!(
            unit.watchpoint_hit(address, size, write),
            None,
            "off for the step"
        );
        let step = DebugExceptionContext {
            esr: STEP_ESR,
            elr: pc + 4,
            spsr: resume.spsr,
            ..ctx
        };
        assert_eq!(monitor.on_debug_exception(&step).unwrap().spsr, SPSR_EL1H);
        assert!(
            unit.watchpoint_hit(address, size, write).is_some(),
            "on again"
        );
    }
    assert_eq!(monitor.watchpoint_hits(watchpoint), 6);
    let records: Vec<MemAccess> = trace.with(|t| t.iter().copied().collect()).unwrap();
    let summary: Vec<(u64, u64, u32, AccessKind)> = records
        .iter()
        .map(|r| (r.pc, r.address, r.size, r.kind))
        .collect();
    let mut expected = vec![(0x100, variable, 4, AccessKind::Write); 5];
    expected.push((0x200, variable, 8, AccessKind::Read));
    assert_eq!(summary, expected);
    let ticks: Vec<u64> = records.iter().map(|r| r.tick).collect();
    assert_eq!(ticks, [1, 2, 3, 4, 5, 6]);
    let (reads, writes) = distance
        .with(|d| (d.reads().total(), d.writes().total()))
        .unwrap();
    assert_eq!((reads, writes), (1, 5));
}

#[test]
fn a_hit_during_the_step_is_reported_and_re_enabled_with_the_first() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let mut monitor = monitor(&unit);
    // The breakpointed instruction is itself a store to a watched variable.
    let breakpoint = monitor.install_breakpoint(0x1000).unwrap();
    let watchpoint = monitor
        .install_watchpoint(0x8000, 8, WatchKind::Write)
        .unwrap();
    let resume = monitor.on_breakpoint(0x1000, SPSR_EL1H).unwrap();
    let during = monitor
        .on_watchpoint(0x8000, Some(8), true, 0x1000, resume.spsr)
        .unwrap();
    assert_eq!(unit.breakpoint_hit(0x1000), None);
    assert_eq!(unit.watchpoint_hit(0x8000, 8, true), None);
    let after = monitor.on_step(0x1004, during.spsr).unwrap();
    assert_eq!(
        after.spsr, SPSR_EL1H,
        "the first hit's saved mask is restored"
    );
    assert_eq!(unit.breakpoint_hit(0x1000), Some(breakpoint.comparator()));
    assert_eq!(
        unit.watchpoint_hit(0x8000, 8, true),
        Some(watchpoint.comparator())
    );
    assert_eq!(monitor.watchpoint_hits(watchpoint), 1);
}

/// BreakPcEvent counts its own firings; the hook has nothing to add.
fn count_hook(_hit: &mut BreakpointHit, _event: &BreakPcEvent<'_, BreakpointHit>) {}

#[test]
fn pc_events_run_on_real_addresses_and_take_their_breakpoint_with_them() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let once = BreakPcEvent::new(0x4000, "once", count_hook, true);
    let always = BreakPcEvent::new(0x5000, "always", count_hook, false);
    let mut monitor: DebugMonitor<'_, &EmulatedDebug> =
        DebugMonitor::new(HwDebug::new(&unit).unwrap());
    monitor.debug().enable_debug_exceptions().unwrap();
    monitor.schedule(&once).unwrap();
    monitor.schedule(&always).unwrap();
    for _ in 0..3 {
        execute(&unit, &mut monitor, 0x4000, SPSR_EL1H);
        execute(&unit, &mut monitor, 0x5000, SPSR_EL1H);
    }
    assert_eq!(once.hits(), 1);
    assert_eq!(always.hits(), 3);
    assert_eq!(
        unit.breakpoint_hit(0x4000),
        None,
        "removed with its last event"
    );
    assert_eq!(monitor.debug().breakpoints().count(), 1);
    monitor.deschedule(&always).unwrap();
    assert_eq!(monitor.debug().breakpoints().count(), 0);
    assert_eq!(
        monitor.deschedule(&always),
        Err(MonitorError::PcEvent(PcEventError::NotScheduled))
    );
}

#[test]
fn a_full_pc_event_queue_leaks_no_comparator() {
    let unit = EmulatedDebug::qemu_cortex_a57();
    let events: Vec<BreakPcEvent<'_, BreakpointHit>> = (0..3)
        .map(|i| BreakPcEvent::new(0x1000 + 4 * i, "e", count_hook, false))
        .collect();
    let mut monitor: DebugMonitor<'_, &EmulatedDebug, 4, 2> =
        DebugMonitor::new(HwDebug::new(&unit).unwrap());
    monitor.schedule(&events[0]).unwrap();
    monitor.schedule(&events[1]).unwrap();
    assert_eq!(
        monitor.schedule(&events[2]),
        Err(MonitorError::PcEvent(PcEventError::CapacityExceeded {
            capacity: 2
        }))
    );
    assert_eq!(monitor.debug().breakpoints().count(), 2);
    // Comparators run out before the queue does on a small core.
    let small = EmulatedDebug::new(1, 1, 1);
    let mut monitor: DebugMonitor<'_, &EmulatedDebug> =
        DebugMonitor::new(HwDebug::new(&small).unwrap());
    monitor.schedule(&events[0]).unwrap();
    assert_eq!(
        monitor.schedule(&events[1]),
        Err(MonitorError::Comparator(HwDebugError::NoFreeBreakpoint {
            implemented: 1
        }))
    );
}

#[test]
fn removing_frees_the_comparator_and_a_reinstall_counts_from_zero() {
    let unit = EmulatedDebug::new(1, 1, 1);
    let mut monitor = monitor(&unit);
    let first = monitor.install_breakpoint(0x1000).unwrap();
    execute(&unit, &mut monitor, 0x1000, SPSR_EL1H);
    execute(&unit, &mut monitor, 0x1000, SPSR_EL1H);
    assert_eq!(monitor.breakpoint_hits(first), 2);
    monitor.remove_breakpoint(first).unwrap();
    assert_eq!(unit.breakpoint_hit(0x1000), None);
    let second = monitor.install_breakpoint(0x2000).unwrap();
    assert_eq!(second.comparator(), first.comparator());
    assert_eq!(monitor.breakpoint_hits(second), 0);
    assert_eq!(
        monitor.remove_breakpoint(first),
        Err(HwDebugError::NotInstalled)
    );
    let watch = monitor
        .install_watchpoint(0x3000, 2, WatchKind::Read)
        .unwrap();
    monitor.remove_watchpoint(watch).unwrap();
    assert_eq!(unit.watchpoint_hit(0x3000, 2, false), None);
}
