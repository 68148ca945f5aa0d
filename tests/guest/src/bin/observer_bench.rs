//! Guest benchmark (prints figures; its checks only cover the measurement set-up): what each
//! way of observing the SPU costs per event, counted with the PMU driver (INST_RETIRED) under
//! `-icount shift=0`, where the count is exact.
//!
//! - PMU feed: one event into the emulated PMU: an `EventInput::add` (lazy), `EmulatedPmu::count`
//!   (eager, no input), and gem5's `PmuFeed` on a `dyn` probe point (the SPU's wiring before
//!   `SpuPmuFeed`), with and without an input connected for its event;
//! - `SpuPmuFeed`'s notifications as the SPU model makes them;
//! - the stall feed: `IssueStall` through a `dyn` point to an eager count (the listener the demo
//!   and spusim used before) against `SpuPmuFeed::issue_stall` and `stalled_cycles`;
//! - stack distance and memory trace listeners on a `dyn` `DataAccess` point (the access record
//!   built per notification, as `SpuProbes` does).
//!
//! Method: a loop of `ITERATIONS` events minus the same loop without them (identical
//! `black_box` pattern), divided by `ITERATIONS`; the driver's read cost cancels.
#![no_std]
#![no_main]

use core::cell::RefCell;
use core::hint::black_box;

use pmprobe::pmu::{EmulatedPmu, Event, EventInput, PmuBackend, PmuRegister};
use pmprobe::probe::listeners::{
    AccessKind, MemAccess, MemTrace, OverflowPolicy, PmuEventCounter, StackDistance,
};
use pmprobe::probe::{Listener, MutListener, ProbePoint};
use pmprobe::spu::exec::{Executed, LsAccess};
use pmprobe::spu::isa::decode;
use pmprobe::spu::probes::{SpuObserver, SpuPmuFeed, StallReason};
use pmprobe::sync::{IrqMutex, free};
use pmprobe_guest::{Hundredths, InstructionMeter};

pmprobe::entry!(main);

const ITERATIONS: u64 = 10_000;

type Trace = MutListener<MemTrace<16_384>>;
type Distances = MutListener<StackDistance<4096, 64>>;

static TRACE: IrqMutex<Trace> =
    IrqMutex::new(MutListener::new(MemTrace::new(OverflowPolicy::DropNewest)));
static DISTANCES: IrqMutex<RefCell<Option<Distances>>> = IrqMutex::new(RefCell::new(None));

#[inline(never)]
fn empty_loop() {
    for i in 0..ITERATIONS {
        black_box(i);
    }
}

/// Records per batch in the batched measurements, and how many records they make in all.
const BATCH: usize = 32;
const BATCHED_RECORDS: u64 = ITERATIONS / BATCH as u64 * BATCH as u64;

/// `BATCHED_RECORDS` records in batches of `BATCH`, each batch handed to `notify` (the batch is
/// built once: the SPU writes its records as it runs, not per notification).
#[inline(never)]
fn batch_loop<F: Fn(&[MemAccess])>(notify: F) {
    let batch: [MemAccess; BATCH] = core::array::from_fn(|i| access(i as u64, 64));
    for _ in 0..BATCHED_RECORDS / BATCH as u64 {
        notify(black_box(&batch));
    }
}

#[inline(never)]
fn event_loop<F: Fn(u64)>(event: F) {
    for i in 0..ITERATIONS {
        event(black_box(i));
    }
}

/// A Neoverse-V1-like PMU counting every event `SpuPmuFeed` drives (the demo's preset has 6
/// event counters: the last four events are left to the first six's overflow checks).
fn counting_pmu() -> EmulatedPmu {
    let pmu = EmulatedPmu::neoverse_v1_like();
    for (i, event) in SpuPmuFeed::EVENTS.iter().take(6).enumerate() {
        let _ = pmu.write(PmuRegister::EvTyper(i as u8), u64::from(event.number()));
    }
    let _ = pmu.write(PmuRegister::CntenSet, 0x3F | 1 << 31);
    let _ = pmu.write(PmuRegister::Pmcr, 1);
    pmu
}

/// The stall listener the demo and spusim attached to `IssueStall` before `SpuPmuFeed`.
struct EagerStallFeed<'p>(&'p EmulatedPmu);

impl Listener<StallReason> for EagerStallFeed<'_> {
    fn notify(&self, reason: &StallReason) {
        self.0.count(reason.pmu_event().number(), 1);
    }
}

/// A data access as `SpuProbes` builds it from a completed load.
fn access(i: u64, lines: u64) -> MemAccess {
    MemAccess {
        tick: i,
        pc: 0x100,
        address: (i % lines) * 16,
        size: 16,
        kind: AccessKind::Read,
    }
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("observer_bench");
    let Some(mut meter) = InstructionMeter::start(&mut t) else {
        return t.finish();
    };
    let Some(baseline) = meter.count(empty_loop) else {
        t.check("pmu_read", false);
        return t.finish();
    };
    let mut measure = |what: &str, per_event: u64, f: &dyn Fn()| {
        let total = meter.count(f).unwrap_or(0);
        if per_event == 0 {
            // Asked for the plain total (the batched measurements subtract their own baseline).
            return total;
        }
        let hundredths = total.saturating_sub(baseline) * 100 / (ITERATIONS * per_event);
        pmprobe::println!("observer_bench: {:>8}  {what}", Hundredths(hundredths));
        total
    };
    pmprobe::println!(
        "observer_bench: INST_RETIRED, -icount shift=0, {ITERATIONS} events minus an empty loop: instructions per event"
    );

    // PMU feed: one event.
    let spu = counting_pmu();
    let insts = spu.event_input(Event::INST_RETIRED.number());
    let eager = counting_pmu();
    t.check("input_connected", insts.is_ok());
    if let Ok(insts) = insts {
        let insts: EventInput<'_> = black_box(insts);
        measure("PMU feed: EventInput::add (lazy)", 1, &|| {
            event_loop(|_| insts.add(1))
        });
    }
    measure("PMU feed: EmulatedPmu::count, no input (eager)", 1, &|| {
        event_loop(|_| eager.count(Event::INST_RETIRED.number(), 1))
    });
    for (label, connect) in [
        ("PMU feed: gem5 PmuFeed on a dyn point, eager", false),
        (
            "PMU feed: gem5 PmuFeed on a dyn point, input connected",
            true,
        ),
    ] {
        let target = counting_pmu();
        if connect {
            let _ = target.event_input(Event::INST_RETIRED.number());
        }
        let sink = RefCell::new(&target);
        let Ok(wiring) = PmuEventCounter::<'_, &EmulatedPmu, 8>::with_gem5_defaults(&sink) else {
            t.check("gem5_wiring", false);
            continue;
        };
        let point: ProbePoint<u64, 4> = ProbePoint::new();
        if let Some(feed) = wiring.feed("RetiredInsts") {
            t.check("gem5_feed_attached", point.add_object(feed).is_ok());
        }
        measure(label, 1, &|| event_loop(|_| point.notify(&1)));
    }

    // SpuPmuFeed, as the SPU model notifies it.
    let target = counting_pmu();
    if let Ok(feed) = SpuPmuFeed::new(&target) {
        let feed = black_box(feed);
        let load = decode(0x3400_0285).ok(); // lqd $5,0($5)
        let add = decode(0x1800_c183).ok(); // a $3,$3,$3
        let executed =
            |access: Option<LsAccess>| Executed::retired_running(8, 0, 12, false, access, false);
        let loaded = executed(Some(LsAccess {
            address: 0x40,
            size: 16,
            kind: AccessKind::Read,
        }));
        let added = executed(None);
        t.check("instructions_decoded", load.is_some() && add.is_some());
        measure("SpuPmuFeed::cycles(1)", 1, &|| {
            event_loop(|_| feed.cycles(1))
        });
        if let (Some(load), Some(add)) = (load, add) {
            measure(
                "SpuPmuFeed::retired, an ALU instruction (INST_RETIRED)",
                1,
                &|| event_loop(|i| feed.retired(&add, &added, i)),
            );
            measure(
                "SpuPmuFeed::retired, a load (INST_RETIRED, LD_RETIRED, MEM_ACCESS)",
                1,
                &|| event_loop(|i| feed.retired(&load, &loaded, i)),
            );
        }
        measure(
            "stall feed: SpuPmuFeed::issue_stall (STALL_BACKEND)",
            1,
            &|| event_loop(|_| feed.issue_stall(StallReason::FpResource)),
        );
        measure(
            "stall feed: SpuPmuFeed::stalled_cycles(_, 16), per cycle",
            16,
            &|| event_loop(|_| feed.stalled_cycles(StallReason::FpResource, 16)),
        );
    } else {
        t.check("spu_feed_inputs", false);
    }
    let stall_target = counting_pmu();
    let stall_listener = EagerStallFeed(&stall_target);
    let stall_point: ProbePoint<StallReason, 4> = ProbePoint::new();
    t.check(
        "stall_listener_attached",
        stall_point.add_object(&stall_listener).is_ok(),
    );
    measure(
        "stall feed: dyn IssueStall point, eager count (before)",
        1,
        &|| event_loop(|_| stall_point.notify(&StallReason::FpResource)),
    );

    // Data access listeners on a dyn point.
    free(|cs| {
        let trace = TRACE.borrow(cs);
        let data: ProbePoint<MemAccess, 4> = ProbePoint::new();
        t.check("trace_attached", data.add_object(trace).is_ok());
        measure("memory trace: a record kept (ring not full)", 1, &|| {
            event_loop(|i| data.notify(&access(i, 64)))
        });
        let kept = trace.with(|ring| ring.len()).unwrap_or(0);
        t.check("trace_kept_every_record", kept == ITERATIONS as usize);
        let small: MutListener<MemTrace<16>> =
            MutListener::new(MemTrace::new(OverflowPolicy::DropNewest));
        let full: ProbePoint<MemAccess, 4> = ProbePoint::new();
        t.check("small_trace_attached", full.add_object(&small).is_ok());
        measure("memory trace: a record dropped (ring full)", 1, &|| {
            event_loop(|i| full.notify(&access(i, 64)))
        });

        // The same recorders handed a batch of 32 records at a time (`notify_all`, as the
        // SPU's instruction mode does when only `DataAccess` listens): per record.
        trace.with(|ring| ring.clear());
        let empty = measure("", 0, &|| batch_loop(|_| {}));
        let kept_in_batches = measure("", 0, &|| batch_loop(|records| data.notify_all(records)));
        let dropped_in_batches = measure("", 0, &|| batch_loop(|records| full.notify_all(records)));
        let per_record =
            |total: u64| Hundredths(total.saturating_sub(empty) * 100 / BATCHED_RECORDS);
        pmprobe::println!(
            "observer_bench: {:>8}  memory trace, batches of {BATCH} (notify_all): a record kept (ring not full)",
            per_record(kept_in_batches)
        );
        pmprobe::println!(
            "observer_bench: {:>8}  memory trace, batches of {BATCH}: a record dropped (ring full)",
            per_record(dropped_in_batches)
        );
        let kept = trace.with(|ring| ring.len()).unwrap_or(0);
        t.check(
            "trace_kept_every_batched_record",
            kept == BATCHED_RECORDS as usize,
        );

        let distances = DISTANCES.borrow(cs);
        let Ok(calculator) = StackDistance::new(16) else {
            t.check("stack_distance_created", false);
            return;
        };
        if let Ok(mut slot) = distances.try_borrow_mut() {
            *slot = Some(MutListener::new(calculator));
        }
        let Ok(slot) = distances.try_borrow() else {
            t.check("stack_distance_created", false);
            return;
        };
        let Some(listener) = slot.as_ref() else {
            t.check("stack_distance_created", false);
            return;
        };
        for (label, lines) in [
            ("stack distance: 64 lines in a cycle (distance 63)", 64),
            (
                "stack distance: 1024 lines in a cycle (distance 1023)",
                1024,
            ),
        ] {
            let data: ProbePoint<MemAccess, 4> = ProbePoint::new();
            t.check("stack_distance_attached", data.add_object(listener).is_ok());
            measure(label, 1, &|| event_loop(|i| data.notify(&access(i, lines))));
        }
    });

    pmprobe::println!(
        "observer_bench: bytes: EventInput {}, SpuPmuFeed {}, EmulatedPmu {}, MemAccess record {}, MemTrace<16> {}, MemTrace<16384> {}, StackDistance<4096, 64> {}",
        size_of::<EventInput<'_>>(),
        size_of::<SpuPmuFeed<'_>>(),
        size_of::<EmulatedPmu>(),
        size_of::<MemAccess>(),
        size_of::<MemTrace<16>>(),
        size_of::<MemTrace<16_384>>(),
        size_of::<StackDistance<4096, 64>>(),
    );
    t.check("baseline_counted", baseline >= ITERATIONS);
    t.finish()
}
