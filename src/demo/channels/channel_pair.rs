//! SPU-to-SPU channels across cores: a producer SPU writes words to its outbound mailbox, a
//! consumer SPU on another core reads them from its inbound mailbox, and the firmware carries
//! each word between them through a small queue shared by the two cores (an `IrqSpinMutex`).
//!
//! The channel semantics stay the model's: a `wrch` to a full outbound mailbox or a `rdch` of an
//! empty inbound one blocks at stage o, and the cycles it waits are channel stalls in the SPU's
//! statistics (and front-end stalls on its emulated PMU). A core whose SPU is blocked serves its
//! side of the queue, and when there is nothing to move it waits (`wfe`) until the other core
//! changes the queue, so a blocked SPU is retried once per change of the queue, not once per
//! wait: its stall count depends on how often the two SPUs met an empty or full queue, which
//! the cores' relative speed decides. The data that crosses does not depend on it: the consumer
//! folds every word into a sum and a checksum, checked against the same fold in Rust.
//!
//! On one core the pair runs interleaved: a slice of the producer, a slice of the consumer.

use core::sync::atomic::{AtomicU32, Ordering};

use pmprobe::pmu::{EmulatedPmu, Event};
use pmprobe::pmu::{Pmu, Snapshot};
use pmprobe::rt::smp::{self, CoreId};
use pmprobe::spu::arena::SPU_COUNT;
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::pipeline::Statistics;
use pmprobe::spu::probes::SpuPmuFeed;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};
use pmprobe::sync::IrqSpinMutex;

use crate::demo::shared::checks::Checks;
use crate::demo::shared::kernels::{IMAGE_BYTES, SYMBOLS};
use crate::demo::shared::output::{heading, outln};
use crate::demo::spu_runs::spu_pmu::{self, GROUP_1};

/// The arena's SPUs the pair runs on (the kernels use SPU0..SPU3).
const PRODUCER_SPU: usize = 4;
const CONSUMER_SPU: usize = 5;
/// Words the producer sends (`channel_producer.s`).
const WORDS: u32 = 256;
/// The producer's xorshift32 seed.
const SEED: u32 = 0x2545f;
/// Words the queue between the cores holds.
const QUEUE_WORDS: usize = 4;
/// Cycles a core runs its SPU before it looks at the queue again.
const SLICE_CYCLES: u64 = 64;
/// An SPU that has not stopped after this many cycles is a failure (the pair takes a few
/// thousand).
const CYCLE_BUDGET: u64 = 1_000_000;
/// Wake-ups a blocked side waits for the queue to change before it gives up on its partner.
const MAX_WAITS: u32 = 10_000_000;

const PRODUCER: &str = include_str!("../../../spu/programs/channel_producer.s");
const CONSUMER: &str = include_str!("../../../spu/programs/channel_consumer.s");

/// The queue between the two cores.
static QUEUE: IrqSpinMutex<heapless::Deque<u32, QUEUE_WORDS>> =
    IrqSpinMutex::new(heapless::Deque::new());
/// Counts every change of the queue, so that a waiting side sees one.
static CHANGES: AtomicU32 = AtomicU32::new(0);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Producer,
    Consumer,
}

/// One side's run.
struct SideRun {
    core: Option<CoreId>,
    stats: Statistics,
    pmu: Snapshot,
    /// Times its SPU came back blocked on its channel.
    blocked: u64,
    end: Result<StopReason, &'static str>,
    /// The consumer's sum and checksum, the producer's generator state.
    registers: [u32; 2],
}

/// What one side needs while it runs.
struct Running<'p> {
    side: Side,
    /// Its emulated PMU's feed (no other listener observes the pair).
    feed: SpuPmuFeed<'p>,
    blocked: u64,
    cycles: u64,
    end: Option<Result<StopReason, &'static str>>,
}

impl Running<'_> {
    /// The SPU has stopped and its last word has left its outbound mailbox.
    fn done(&self, unit: &SpuUnit) -> bool {
        self.end.is_some()
            && (self.side == Side::Consumer || unit.arch().channels().outbound.is_empty())
    }

    /// Runs one slice of `unit` and serves its channel if it blocked (or, once the producer has
    /// stopped, the word its last `wrch` left in the mailbox); returns whether it moved a word.
    fn slice(&mut self, unit: &mut SpuUnit) -> bool {
        if self.end.is_some() {
            return serve(self.side, unit);
        }
        if self.cycles >= CYCLE_BUDGET {
            self.end = Some(Err("did not stop within the cycle budget"));
            return false;
        }
        let outcome = match unit.run(SLICE_CYCLES, &self.feed, &mut Discard) {
            Ok(outcome) => outcome,
            Err(_) => {
                self.end = Some(Err("model error"));
                return false;
            }
        };
        self.cycles += outcome.cycles;
        match outcome.end {
            RunEnd::Stopped(reason) => {
                self.end = Some(Ok(reason));
                false
            }
            RunEnd::CycleLimit => false,
            RunEnd::Blocked { .. } => {
                self.blocked += 1;
                serve(self.side, unit)
            }
        }
    }
}

/// Moves words between `unit`'s mailbox and the queue; whether any moved.
fn serve(side: Side, unit: &mut SpuUnit) -> bool {
    let moved = QUEUE.lock(|queue| {
        let channels = unit.arch().channels();
        let (outbound_empty, inbound_full) =
            (channels.outbound.is_empty(), channels.inbound.free() == 0);
        match side {
            Side::Producer => {
                if outbound_empty || queue.is_full() {
                    return false;
                }
                let word = unit.arch_mut().channels_mut().outbound.pop();
                word.is_some_and(|word| queue.push_back(word).is_ok())
            }
            Side::Consumer => {
                if inbound_full || queue.is_empty() {
                    return false;
                }
                let inbound = &mut unit.arch_mut().channels_mut().inbound;
                let mut moved = false;
                while inbound.free() > 0 {
                    let Some(word) = queue.pop_front() else {
                        break;
                    };
                    moved |= inbound.push(word).is_ok();
                }
                moved
            }
        }
    });
    if moved {
        CHANGES.fetch_add(1, Ordering::Release);
    }
    moved
}

/// Loads `source` into `unit` in pipeline mode (ideal fetch).
fn load(unit: &mut SpuUnit, source: &str) -> bool {
    let mut image = [0u8; IMAGE_BYTES];
    let Ok(program) = assemble::<SYMBOLS>(source, &mut image) else {
        return false;
    };
    let loaded = unit
        .load_program(image.get(..program.len).unwrap_or(&[]), program.entry)
        .is_ok();
    unit.set_mode(Mode::Pipeline);
    let _ = unit.set_fetch(FetchKind::Ideal);
    unit.reset_stats();
    loaded
}

/// Runs one side to its end on this core, waiting for the other core when blocked.
fn run_side(side: Side, unit: &mut SpuUnit, source: &str) -> SideRun {
    with_pmu(side, unit, source, |running, unit| {
        while !running.done(unit) {
            let seen = CHANGES.load(Ordering::Acquire);
            if running.slice(unit) || running.done(unit) {
                continue;
            }
            let stuck = running.end.is_some()
                || unit.arch().status() != pmprobe::spu::exec::Status::Running;
            if !stuck {
                continue;
            }
            // Blocked and nothing to move: wait until the other core changes the queue (every
            // unlock of the queue's lock signals an event).
            let mut waits = 0;
            while CHANGES.load(Ordering::Acquire) == seen && waits < MAX_WAITS {
                aarch64_cpu::asm::wfe();
                waits += 1;
            }
            if waits >= MAX_WAITS {
                running.end = Some(Err("the other side never served the queue"));
                break;
            }
        }
    })
}

/// Runs both sides interleaved on this core.
fn run_interleaved(producer: &mut SpuUnit, consumer: &mut SpuUnit) -> (SideRun, SideRun) {
    let mut consumer_run = None;
    let producer_run = with_pmu(Side::Producer, producer, PRODUCER, |producing, producer| {
        consumer_run = Some(with_pmu(
            Side::Consumer,
            consumer,
            CONSUMER,
            |consuming, consumer| {
                while !producing.done(producer) || !consuming.done(consumer) {
                    let moved = producing.slice(producer) | consuming.slice(consumer);
                    // Both stopped with a word still waiting: nothing can move it any more.
                    if !moved && producing.end.is_some() && consuming.end.is_some() {
                        break;
                    }
                }
            },
        ));
    });
    let failed = SideRun {
        core: None,
        stats: Statistics::new(),
        pmu: Snapshot::new(),
        blocked: 0,
        end: Err("did not run"),
        registers: [0; 2],
    };
    (producer_run, consumer_run.unwrap_or(failed))
}

/// Loads `source`, feeds an emulated PMU from `unit`'s model, runs `body`, and reads the result.
fn with_pmu(
    side: Side,
    unit: &mut SpuUnit,
    source: &str,
    body: impl FnOnce(&mut Running<'_>, &mut SpuUnit),
) -> SideRun {
    let mut run = SideRun {
        core: Some(smp::this_core()),
        stats: Statistics::new(),
        pmu: Snapshot::new(),
        blocked: 0,
        end: Err("could not be loaded"),
        registers: [0; 2],
    };
    if !load(unit, source) {
        return run;
    }
    let cpu = EmulatedPmu::neoverse_v1_like();
    let (Ok(feed), Ok(mut pmu)) = (SpuPmuFeed::new(&cpu), Pmu::new(&cpu)) else {
        run.end = Err("PMU wiring");
        return run;
    };
    let mut running = Running {
        side,
        feed,
        blocked: 0,
        cycles: 0,
        end: None,
    };
    if spu_pmu::program(&mut pmu, &GROUP_1).is_err() {
        run.end = Err("PMU wiring");
        return run;
    }
    body(&mut running, unit);
    let _ = pmu.stop();
    run.pmu = pmu.snapshot().unwrap_or_default();
    run.stats = *unit.stats();
    run.blocked = running.blocked;
    run.end = running.end.unwrap_or(Err("did not end"));
    run.registers = match side {
        Side::Producer => [unit.arch().register(3).words()[0], 0],
        Side::Consumer => [
            unit.arch().register(9).words()[0],
            unit.arch().register(10).words()[0],
        ],
    };
    run
}

/// The producer's words folded as the consumer folds them: (generator state, sum, checksum).
fn expected() -> (u32, u32, u32) {
    let (mut x, mut sum, mut checksum) = (SEED, 0u32, 0u32);
    for _ in 0..WORDS {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        sum = sum.wrapping_add(x);
        checksum = checksum.rotate_left(5) ^ x;
    }
    (x, sum, checksum)
}

/// Runs the pair (producer on core 0, consumer on core 1 when there is one, else both on core
/// 0, interleaved), prints the section and checks it.
pub fn run(units: &mut [SpuUnit; SPU_COUNT], checks: &mut Checks) {
    QUEUE.lock(|queue| queue.clear());
    let [.., producer, consumer, _, _] = units;
    let (producer_run, consumer_run) = if smp::online() > 1 {
        let producer = IrqSpinMutex::new(producer);
        let consumer = IrqSpinMutex::new(consumer);
        let producer_run = IrqSpinMutex::new(None);
        let consumer_run = IrqSpinMutex::new(None);
        let errors = smp::on_each_core(&|core| match core.index() {
            0 => {
                let run = producer.lock(|unit| run_side(Side::Producer, unit, PRODUCER));
                producer_run.lock(|slot| *slot = Some(run));
            }
            1 => {
                let run = consumer.lock(|unit| run_side(Side::Consumer, unit, CONSUMER));
                consumer_run.lock(|slot| *slot = Some(run));
            }
            _ => {}
        });
        for error in &errors {
            outln!("  {error}");
        }
        let missing = || SideRun {
            core: None,
            stats: Statistics::new(),
            pmu: Snapshot::new(),
            blocked: 0,
            end: Err("its core did not start"),
            registers: [0; 2],
        };
        (
            producer_run.into_inner().unwrap_or_else(missing),
            consumer_run.into_inner().unwrap_or_else(missing),
        )
    } else {
        run_interleaved(producer, consumer)
    };
    report(&producer_run, &consumer_run, checks);
}

fn report(producer: &SideRun, consumer: &SideRun, checks: &mut Checks) {
    let place = |run: &SideRun| match run.core {
        Some(core) => core,
        None => smp::this_core(),
    };
    heading(format_args!(
        "Channels across cores: SPU{PRODUCER_SPU} (channel_producer.s) on {} -> SPU{CONSUMER_SPU} (channel_consumer.s) on {}",
        place(producer),
        place(consumer)
    ));
    outln!(
        "  {WORDS} words through SPU_WrOutMbox -> a {QUEUE_WORDS}-word queue under a lock across cores -> SPU_RdInMbox;"
    );
    outln!(
        "  a blocked wrch/rdch is retried when the queue changes, its cycles counted as channel stalls."
    );
    outln!(
        "  {:<9} {:<7} {:>8} {:>8} {:>9} {:>14} {:>15}",
        "side",
        "core",
        "cycles",
        "insts",
        "blocked",
        "channel stall",
        "STALL_FRONTEND"
    );
    for (name, run) in [("producer", producer), ("consumer", consumer)] {
        outln!(
            "  {:<9} {:<7} {:>8} {:>8} {:>9} {:>14} {:>15}",
            name,
            place(run),
            run.stats.cycles,
            run.stats.instructions,
            run.blocked,
            run.stats.channel_stalls,
            run.pmu.count_of(Event::STALL_FRONTEND).unwrap_or(0)
        );
    }
    let (state, sum, checksum) = expected();
    for (name, run) in [("producer", producer), ("consumer", consumer)] {
        let stopped = matches!(run.end, Ok(StopReason::Stop { signal: 0x2000, .. }));
        match &run.end {
            Ok(reason) => checks.check(
                format_args!("channel_{name}_stops"),
                stopped,
                format_args!("{reason} after {} cycles", run.stats.cycles),
            ),
            Err(why) => checks.check(
                format_args!("channel_{name}_stops"),
                false,
                format_args!("{why}"),
            ),
        }
        checks.equal(
            format_args!("channel_{name}_cycles_pmu_vs_stats"),
            "PMU CPU_CYCLES vs Total Cycle count",
            run.pmu.count_of(Event::CPU_CYCLES).unwrap_or(0),
            run.stats.cycles,
        );
        let frontend = run.stats.branch_miss_stalls
            + run.stats.prefetch_miss_stalls
            + run.stats.hint_target_stalls
            + run.stats.channel_stalls
            + run.stats.initialisation_cycles;
        checks.equal(
            format_args!("channel_{name}_frontend_pmu_vs_stats"),
            "PMU STALL_FRONTEND vs stats, channel stalls included",
            run.pmu.count_of(Event::STALL_FRONTEND).unwrap_or(0),
            frontend,
        );
        checks.check(
            format_args!("channel_{name}_stats_identities"),
            run.stats.check_identities().is_ok(),
            format_args!("cycle categories sum to the total"),
        );
    }
    checks.equal(
        format_args!("channel_producer_state"),
        "producer's generator state vs Rust xorshift32",
        u64::from(producer.registers[0]),
        u64::from(state),
    );
    checks.check(
        format_args!("channel_consumer_result"),
        consumer.registers == [sum, checksum],
        format_args!(
            "sum {:#010x}, checksum {:#010x} of the {WORDS} words received; Rust says {sum:#010x}, {checksum:#010x}",
            consumer.registers[0], consumer.registers[1]
        ),
    );
    checks.check(
        format_args!("channel_consumer_waited"),
        consumer.stats.channel_stalls > 0 && consumer.blocked > 0,
        format_args!(
            "the consumer found its mailbox empty {} times ({} channel stall cycles): blocking is counted",
            consumer.blocked, consumer.stats.channel_stalls
        ),
    );
}
