//! Section: the work queue. All eight SPUs take item numbers from one counter in main memory
//! with getllar/putllc, retrying when their reservation was lost, and put each item's result
//! to main memory; the firmware then checks that every item was processed exactly once, with
//! Rust's result, and reports the reservations each SPU lost.
//!
//! Reservations are lost only when another SPU's putllc lands between an SPU's getllar and
//! its putllc, so the SPUs must interleave finely. Under QEMU with `-icount` the cores take
//! turns of up to 0.1 s of virtual time, far longer than a take (two atomic commands of 300
//! SPU cycles), so SPUs on different cores rarely meet there. The first quarter of the items
//! is therefore taken with all eight SPUs on this core, round robin in slices of 40 cycles;
//! the rest with SPU k on core k mod N (N: the cores, at most [`SPREAD_CORES`]), each core
//! running its SPUs round robin in the same slices (two SPUs a core from 4 cores on, which
//! still meet).
//!
//! Without `-icount` QEMU runs every core as a host thread. Spread, the SPUs take the main
//! memory's ticket lock thousands of times from several threads at once, and on a busy
//! 2-core host each take could wait for a thread the host had preempted while its ticket
//! was next: half the runs of the demo took 14 to 108 s instead of 2 to 4 s. So there the
//! rest runs on this core too.

use pmprobe::rt::smp::{self, CoreId};
use pmprobe::spu::arena::SPU_COUNT;
use pmprobe::spu::main_memory::SharedMemory;
use pmprobe::spu::mfc::DmaStats;
use pmprobe::spu::probes::SpuProbes;
use pmprobe::spu::unit::SpuUnit;

use super::kernels::{
    QUEUE_COUNTER, QUEUE_ITEMS, QUEUE_RESULTS, QueueTally, check_queue, queue_counter,
    queue_mailbox, reset_queue,
};
use super::section::{Ended, Slice, Sliced, WORK_QUEUE, load, stopped};
use crate::demo::shared::checks::Checks;
use crate::demo::shared::core_lock::CoreLock;
use crate::demo::shared::output::{heading, outln};

/// SPU cycles a slice runs before the next SPU's turn.
const SLICE_CYCLES: u64 = 40;
/// Items taken while all SPUs run interleaved on this core.
const INTERLEAVED_ITEMS: u32 = QUEUE_ITEMS / 4;
/// Cycles an SPU may run in all (each takes about 100 000).
const CYCLE_BUDGET: u64 = 20_000_000;
/// Cores the spread part uses at most: two SPUs a core, which still take reservations from
/// each other, as on the demo's default machine of 4 cores.
const SPREAD_CORES: usize = 4;

/// One SPU of the queue with what the firmware records of it.
struct Worker<'a> {
    unit: &'a mut SpuUnit,
    sliced: Sliced,
    /// The core that ran its last slice.
    core: Option<CoreId>,
    /// Its failed putllcs when the interleaved part ended.
    interleaved_failures: u64,
}

/// Loads the kernel on every SPU, runs the interleaved part here and the rest on the cores
/// (here too unless `spread`), prints the section and checks it.
pub fn run(
    units: &mut [SpuUnit; SPU_COUNT],
    memory: &dyn SharedMemory,
    spread: bool,
    checks: &mut Checks,
) {
    let cores = if spread {
        smp::online().clamp(1, SPREAD_CORES)
    } else {
        1
    };
    heading(format_args!(
        "MFC work queue: demo_workqueue.s on SPU0..SPU{}, {QUEUE_ITEMS} items from one getllar/putllc counter",
        SPU_COUNT - 1
    ));
    outln!(
        "  getllar/putllc on the counter at EA {QUEUE_COUNTER:#x} (again if the reservation is lost), a put"
    );
    outln!(
        "  of {{item, result, SPU, ordinal}} to EA {QUEUE_RESULTS:#x} + 16*item. The first {INTERLEAVED_ITEMS} items: all SPUs"
    );
    outln!(
        "  on {} in {SLICE_CYCLES}-cycle slices (QEMU's core turns are long); then SPU k on core k mod {cores}.",
        smp::this_core()
    );
    if !spread {
        outln!("  (Without -icount all on one core: docs/spu-mfc.md.)");
    }
    let workers: heapless::Vec<CoreLock<Worker<'_>>, SPU_COUNT> = units
        .iter_mut()
        .map(|unit| {
            CoreLock::new(Worker {
                unit,
                sliced: Sliced::default(),
                core: None,
                interleaved_failures: 0,
            })
        })
        .collect();
    if let Err(error) = reset_queue(memory) {
        checks.check(
            format_args!("workqueue_memory"),
            false,
            format_args!("{error}"),
        );
        return;
    }
    for (spu, worker) in workers.iter().enumerate() {
        worker.lock(|worker| {
            if let Err(why) = load(worker.unit, WORK_QUEUE, &queue_mailbox(spu)) {
                worker.sliced.end = Some(Err(why));
            }
        });
    }
    round_robin(&workers, &|_| true, &|| {
        queue_counter(memory).is_ok_and(|taken| taken >= INTERLEAVED_ITEMS)
    });
    for worker in &workers {
        worker.lock(|w| w.interleaved_failures = w.unit.arch().dma_stats().putllc_failures);
    }
    if cores > 1 {
        let errors = smp::on_each_core(&|core| {
            round_robin(
                &workers,
                &|spu| spu.checked_rem(cores) == Some(core.index()),
                &|| false,
            );
        });
        for error in &errors {
            outln!("  {error}");
        }
    }
    // One core, or the SPUs of a core that did not start: this core runs them.
    round_robin(&workers, &|_| true, &|| false);
    report(&workers, memory, checks);
}

/// Runs the workers `mine` picks round robin in slices on this core until each has ended or
/// `enough` says so (asked before every round).
fn round_robin(
    workers: &[CoreLock<Worker<'_>>],
    mine: &dyn Fn(usize) -> bool,
    enough: &dyn Fn() -> bool,
) {
    let core = smp::this_core();
    let probes = SpuProbes::new();
    loop {
        if enough() {
            return;
        }
        let mut running = false;
        for (_, worker) in workers.iter().enumerate().filter(|(spu, _)| mine(*spu)) {
            running |= worker.lock(|w| {
                if w.sliced.end.is_some() {
                    return false;
                }
                w.core = Some(core);
                match w.sliced.slice(w.unit, &probes, SLICE_CYCLES, CYCLE_BUDGET) {
                    Slice::Ran => true,
                    Slice::Done => false,
                    // Nothing here serves a host channel: the kernel needs none after its start.
                    Slice::Blocked => {
                        w.sliced.end = Some(Err("blocked on a host channel"));
                        false
                    }
                }
            });
        }
        if !running {
            return;
        }
    }
}

/// What one SPU did.
#[derive(Clone, Copy, Default)]
struct Row {
    core: Option<CoreId>,
    sliced: Sliced,
    dma: DmaStats,
    interleaved_failures: u64,
    /// Its own counts: items taken ($7) and putllc failures ($8).
    taken: u32,
    failures: u32,
}

fn report(workers: &[CoreLock<Worker<'_>>], memory: &dyn SharedMemory, checks: &mut Checks) {
    let mut rows = [Row::default(); SPU_COUNT];
    for (row, worker) in rows.iter_mut().zip(workers) {
        worker.lock(|w| {
            *row = Row {
                core: w.core,
                sliced: w.sliced,
                dma: *w.unit.arch().dma_stats(),
                interleaved_failures: w.interleaved_failures,
                taken: w.unit.arch().register(7).words()[0],
                failures: w.unit.arch().register(8).words()[0],
            };
        });
    }
    outln!("  SPU   core     items   lost interleaved  spread    cycles  DMA wait");
    let (mut interleaved, mut lost, mut items) = (0, 0, 0);
    for (spu, row) in rows.iter().enumerate() {
        let failures = row.dma.putllc_failures;
        outln!(
            "  SPU{spu:<2} {:<7} {:>6} {:>6} {:>11} {:>7} {:>9} {:>9}",
            row.core.unwrap_or_else(smp::this_core),
            row.taken,
            failures,
            row.interleaved_failures,
            failures.saturating_sub(row.interleaved_failures),
            row.sliced.cycles,
            row.dma.wait_cycles
        );
        interleaved += row.interleaved_failures;
        lost += failures;
        items += row.taken;
    }
    outln!(
        "  all           {items:>6} {lost:>6} {interleaved:>11} {:>7}",
        lost - interleaved
    );
    let bad = rows
        .iter()
        .position(|row| !stopped(row.sliced.end.as_ref()));
    match bad.and_then(|spu| Some((spu, rows.get(spu)?))) {
        None => checks.check(
            format_args!("workqueue_stops"),
            true,
            format_args!("{SPU_COUNT} SPUs stopped with 0x2000"),
        ),
        Some((spu, row)) => checks.check(
            format_args!("workqueue_stops"),
            false,
            format_args!("SPU{spu}: {}", Ended(row.sliced.end.as_ref())),
        ),
    }
    let tally = check_queue(memory);
    match &tally {
        Ok(tally) => checks.check(
            format_args!("workqueue_every_item_once"),
            true,
            format_args!(
                "counter {QUEUE_ITEMS}, entries hold Rust's results, counts sum to {}, all ordinals survive: no item twice",
                tally.taken.iter().sum::<u32>()
            ),
        ),
        Err(mismatch) => checks.check(
            format_args!("workqueue_every_item_once"),
            false,
            format_args!("{mismatch}"),
        ),
    }
    let agree = |tally: &QueueTally| {
        rows.iter()
            .zip(tally.failures.iter().zip(&tally.taken))
            .all(|(row, (&f, &t))| {
                u64::from(f) == row.dma.putllc_failures && f == row.failures && t == row.taken
            })
    };
    checks.check(
        format_args!("workqueue_failures_kernel_vs_mfc"),
        tally.as_ref().is_ok_and(agree),
        format_args!("the kernels' own failed-putllc counts = the MFCs'; {lost} in all"),
    );
    checks.check(
        format_args!("workqueue_reservations_lost"),
        lost > 0,
        format_args!(
            "{lost} reservations lost and retried: {interleaved} interleaved on {}, {} spread over {} core(s)",
            smp::this_core(),
            lost - interleaved,
            smp::online()
        ),
    );
}
