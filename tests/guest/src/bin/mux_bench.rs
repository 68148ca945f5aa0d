//! Benchmark (prints figures; not a timed test): what multiplexing costs in instructions, on
//! the real PMU of QEMU's cortex-a57 and on the emulated PMU the demo's SPUs use (with the SPU
//! feed's ten event inputs connected), with the
//! demo's shape: 13 events in a pinned group of four (CPU_CYCLES on PMCCNTR and three event
//! counters) and three flexible groups of three on the other three counters.
//!
//! - one reading (`Multiplexer::read_into`: every event's raw count, time enabled and time
//!   running; seven counters read);
//! - one interval reading, what `--interval-ms` takes between two slices: the generic timer
//!   read, `Multiplexer::read` and the push into an `IntervalRing` (printing it is apart);
//! - one rotation (`Multiplexer::rotate`: three counters read and freed, three programmed).
//!
//! Instrument: PMCCNTR before and after the call (with `-icount shift=0` one instruction is
//! one cycle), minus the difference of two back-to-back reads, each operation a call of its
//! own that takes one pointer (as `pmu_bench`). Exact and repeatable.
#![no_std]
#![no_main]

use core::arch::asm;
use core::hint::black_box;

use pmprobe::pmu::{
    EmulatedPmu, Event, GroupKind, IntervalReading, IntervalRing, Multiplexer, Pmu, PmuBackend,
    Readings, SysRegPmu,
};
use pmprobe::spu::probes::SpuPmuFeed;

pmprobe::entry!(main);

const EVENTS: usize = 13;
const GROUPS: usize = 4;

#[inline(always)]
fn pmccntr() -> u64 {
    let v: u64;
    // SAFETY: reading the cycle counter has no side effect.
    unsafe { asm!("mrs {v}, pmccntr_el0", v = out(reg) v, options(nostack, preserves_flags)) };
    v
}

/// Instructions of `f` by the PMCCNTR instrument (counting must be on).
fn exact(mut f: impl FnMut()) -> u64 {
    let empty = {
        let a = pmccntr();
        let b = pmccntr();
        b - a
    };
    let a = pmccntr();
    f();
    let b = pmccntr();
    (b - a).saturating_sub(empty)
}

/// What the measured calls work on.
struct State<'p, B: PmuBackend> {
    mux: Multiplexer<'p, B, EVENTS, GROUPS>,
    readings: Readings<EVENTS>,
    ring: IntervalRing<8, EVENTS>,
    now: u64,
}

#[inline(never)]
fn read_into<B: PmuBackend>(state: &mut State<'_, B>) {
    state.now += 1;
    let _ = state.mux.read_into(state.now, &mut state.readings);
}

#[inline(never)]
fn interval_reading<B: PmuBackend>(state: &mut State<'_, B>) {
    let time = pmprobe::rt::timer::now();
    state.now += 1;
    if let Ok(readings) = state.mux.read(state.now) {
        state.ring.push(IntervalReading { time, readings });
    }
}

#[inline(never)]
fn rotate<B: PmuBackend>(state: &mut State<'_, B>) {
    state.now += 1;
    let _ = state.mux.rotate(state.now);
}

/// The figures of one back end: (read_into, interval reading, three rotations).
fn measure<B: PmuBackend>(
    t: &mut pmprobe_guest::Checks,
    name: &str,
    pmu: &mut Pmu<B>,
    pinned: &[Event],
    flexible: &[[Event; 3]; 3],
) -> Option<(u64, u64, [u64; 3])> {
    let mut mux = Multiplexer::new(pmu);
    let added = mux.add_group(pinned, GroupKind::Pinned).is_ok()
        && flexible
            .iter()
            .all(|group| mux.add_group(group, GroupKind::Flexible).is_ok());
    t.check_with(
        "groups_added",
        added,
        format_args!("{name}: the demo's groups"),
    );
    t.check_with("started", mux.start(0).is_ok(), format_args!("{name}"));
    let mut state = State {
        mux,
        readings: Readings::new(),
        ring: IntervalRing::new(),
        now: 0,
    };
    // The first calls warm nothing up that later ones would not: each figure is one call.
    let reading = exact(|| read_into(black_box(&mut state)));
    t.check_eq("read_13_events", state.readings.len(), EVENTS);
    let interval = exact(|| interval_reading(black_box(&mut state)));
    t.check_eq("interval_reading_kept", state.ring.len(), 1);
    let mut rotations = [0; 3];
    for rotation in &mut rotations {
        *rotation = exact(|| rotate(black_box(&mut state)));
    }
    let pinned_exact = state
        .readings
        .iter()
        .take(pinned.len())
        .all(|r| r.running == r.enabled && r.running > 0);
    t.check("pinned_ran_all_the_time", pinned_exact);
    let _ = state.mux.stop(state.now + 1);
    Some((reading, interval, rotations))
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("mux_bench");
    let Ok(mut real) = Pmu::new(SysRegPmu::new()) else {
        t.check("detect", false);
        return t.finish();
    };
    // QEMU's cortex-a57 counts SW_INCR, INST_RETIRED and CPU_CYCLES: the demo's shape with
    // those.
    let real_pinned = [
        Event::CPU_CYCLES,
        Event::INST_RETIRED,
        Event::INST_RETIRED,
        Event::SW_INCR,
    ];
    let real_flexible = [[Event::INST_RETIRED, Event::SW_INCR, Event::INST_RETIRED]; 3];
    let real_figures = measure(&mut t, "real", &mut real, &real_pinned, &real_flexible);

    // The emulated PMU as the demo's SPUs have it: fed through the SPU's ten event inputs,
    // whose budgets every register write recomputes.
    let cpu = EmulatedPmu::neoverse_v1_like();
    let feed = SpuPmuFeed::new(&cpu);
    t.check("spu_feed_connected", feed.is_ok());
    let Ok(mut emulated) = Pmu::new(&cpu) else {
        t.check("emulated", false);
        return t.finish();
    };
    let spu_pinned = [
        Event::CPU_CYCLES,
        Event::INST_RETIRED,
        Event::LD_RETIRED,
        Event::ST_RETIRED,
    ];
    let spu_flexible = [
        [
            Event::BR_RETIRED,
            Event::BR_MIS_PRED,
            Event::BR_MIS_PRED_RETIRED,
        ],
        [
            Event::CPU_CYCLES,
            Event::STALL_FRONTEND,
            Event::STALL_BACKEND,
        ],
        [Event::MEM_ACCESS, Event::LD_RETIRED, Event::ST_RETIRED],
    ];
    // The emulated PMU needs PMCCNTR of the real one for the instrument: keep it counting.
    let _ = real.program(Event::CPU_CYCLES);
    let _ = real.start();
    let emulated_figures = measure(
        &mut t,
        "emulated",
        &mut emulated,
        &spu_pinned,
        &spu_flexible,
    );

    pmprobe::println!(
        "Multiplexer cost, instructions (QEMU cortex-a57, -icount shift=0; 13 events, PMCCNTR + 6 counters)"
    );
    pmprobe::println!("back end | read_into | interval reading | rotate (3 in a row)");
    for (name, figures) in [("real", real_figures), ("emulated", emulated_figures)] {
        if let Some((reading, interval, [a, b, c])) = figures {
            pmprobe::println!("{name:<8} | {reading:>9} | {interval:>16} | {a} {b} {c}");
        }
    }
    t.finish()
}
