//! Section: a handshake between two SPUs on different cores through signal notification. The
//! host writes 0 to the first SPU's signal-notification register 1; from then on each SPU
//! waits for the S1 event, reads the counter, adds 1 and sends it with `sndsig` to the other's
//! register, for a fixed number of rounds. The final counters are compared with Rust's.
//!
//! A signal from the other SPU is something only the other core's run can give, so an SPU
//! waiting for one comes back to its core blocked on `SPU_RdEventStat`. The core then waits
//! (`wfe`) for the other core to finish a slice (a counter both cores bump: looking at the
//! register itself takes the main memory's lock, which the other core's SPU needs), looks at
//! the register once after each, and runs the SPU again once it was written. On one core the
//! two SPUs take turns instead.

use core::sync::atomic::{AtomicU32, Ordering};

use pmprobe::rt::smp::{self, CoreId};
use pmprobe::spu::arena::SPU_COUNT;
use pmprobe::spu::main_memory::{SharedMemory, SignalRegister};
use pmprobe::spu::mfc::DmaStats;
use pmprobe::spu::pipeline::Statistics;
use pmprobe::spu::probes::SpuProbes;
use pmprobe::spu::unit::SpuUnit;

use super::kernels::{HANDSHAKE_ROUNDS, handshake_expected, handshake_mailbox};
use super::section::{Ended, HANDSHAKE, Slice, Sliced, load, stopped};
use crate::demo::shared::checks::Checks;
use crate::demo::shared::core_lock::CoreLock;
use crate::demo::shared::output::{heading, outln};

/// The SPUs that play: the first (started by the host) on core 0, the second on core 1.
const FIRST: usize = 6;
const SECOND: usize = 7;
/// SPU cycles a run goes before the core looks again (a round takes about 390).
const SLICE_CYCLES: u64 = 2000;
/// Cycles an SPU may run in all.
const CYCLE_BUDGET: u64 = 5_000_000;
/// Wake-ups a side waits for its partner's signal before it gives up on it.
const MAX_WAITS: u32 = 10_000_000;

/// One SPU's game.
#[derive(Clone, Copy)]
struct Side {
    spu: usize,
    core: Option<CoreId>,
    sliced: Sliced,
    stats: Statistics,
    dma: DmaStats,
    /// The last counter it received (its outbound mailbox at the end; 0 if it left none,
    /// which no game ends with).
    last: u32,
    /// The rounds it counted ($7).
    rounds: u32,
}

impl Side {
    fn new(spu: usize) -> Self {
        Side {
            spu,
            core: None,
            sliced: Sliced::default(),
            stats: Statistics::new(),
            dma: DmaStats::new(),
            last: 0,
            rounds: 0,
        }
    }

    /// Runs one slice on this core (a side waiting for its partner ends its slice early).
    fn turn(&mut self, unit: &mut SpuUnit, probes: &SpuProbes<'_>) -> Slice {
        self.core = Some(smp::this_core());
        self.sliced.slice(unit, probes, SLICE_CYCLES, CYCLE_BUDGET)
    }

    /// Reads what the game left in `unit`.
    fn finish(&mut self, unit: &mut SpuUnit) {
        self.stats = *unit.stats();
        self.dma = *unit.arch().dma_stats();
        self.last = unit.read_outbound_mailbox().unwrap_or(0);
        self.rounds = unit.arch().register(7).words()[0];
    }
}

/// Slices the two sides have run: a waiting side looks at its register again only when the
/// other has run one more.
static TURNS: AtomicU32 = AtomicU32::new(0);

/// Whether SPU `spu`'s register 1 was written since it last read it.
fn signalled(memory: &dyn SharedMemory, spu: usize) -> bool {
    let mut pending = false;
    memory.with_view(&mut |view| pending = view.signal_pending(spu as u8, SignalRegister::One));
    pending
}

/// Plays `spu`'s side on this core to its end, waiting for the partner's signals in between.
fn play(unit: &mut SpuUnit, spu: usize, memory: &dyn SharedMemory) -> Side {
    let mut side = Side::new(spu);
    let probes = SpuProbes::new();
    loop {
        let slice = side.turn(unit, &probes);
        let mut seen = TURNS.fetch_add(1, Ordering::AcqRel) + 1;
        // Wakes the other core if it waits in `wfe` for this turn.
        aarch64_cpu::asm::sev();
        match slice {
            Slice::Done => break,
            Slice::Ran => {}
            Slice::Blocked => {
                let mut waits = 0;
                while !signalled(memory, spu) && waits < MAX_WAITS {
                    while TURNS.load(Ordering::Acquire) == seen && waits < MAX_WAITS {
                        aarch64_cpu::asm::wfe();
                        waits += 1;
                    }
                    seen = TURNS.load(Ordering::Acquire);
                }
                if waits >= MAX_WAITS {
                    side.sliced.end = Some(Err("no signal came"));
                    break;
                }
            }
        }
    }
    side.finish(unit);
    side
}

/// Plays both sides on this core, a slice each in turn.
fn play_here(first: &mut SpuUnit, second: &mut SpuUnit, memory: &dyn SharedMemory) -> (Side, Side) {
    let (mut a, mut b) = (Side::new(FIRST), Side::new(SECOND));
    let probes = SpuProbes::new();
    loop {
        let turns = (a.turn(first, &probes), b.turn(second, &probes));
        match turns {
            (Slice::Done, Slice::Done) => break,
            // Each waits for the other and no signal is on its way: nothing will change.
            (Slice::Blocked, Slice::Blocked)
                if !signalled(memory, FIRST) && !signalled(memory, SECOND) =>
            {
                for side in [&mut a, &mut b] {
                    side.sliced.end = Some(Err("both wait"));
                }
                break;
            }
            _ => {}
        }
    }
    a.finish(first);
    b.finish(second);
    (a, b)
}

/// Loads both SPUs, starts the game, plays it (core 0 and core 1, or this core alone), prints
/// the section and checks it.
pub fn run(units: &mut [SpuUnit; SPU_COUNT], memory: &dyn SharedMemory, checks: &mut Checks) {
    let [.., first, second] = units;
    let loaded = load(first, HANDSHAKE, &handshake_mailbox(SECOND))
        .and_then(|()| load(second, HANDSHAKE, &handshake_mailbox(FIRST)));
    // No signal of an earlier game may be pending; then the host serves.
    memory.with_view(&mut |view| {
        for spu in [FIRST, SECOND] {
            let _ = view.take_signal(spu as u8, SignalRegister::One);
        }
    });
    memory.write_signal(FIRST as u8, SignalRegister::One, 0);
    let (a, b) = match loaded {
        Err(why) => {
            let mut failed = Side::new(FIRST);
            failed.sliced.end = Some(Err(why));
            (
                failed,
                Side {
                    spu: SECOND,
                    ..failed
                },
            )
        }
        Ok(()) if smp::online() > 1 => {
            let first = CoreLock::new((first, None));
            let second = CoreLock::new((second, None));
            let errors = smp::on_each_core(&|core| match core.index() {
                0 => first.lock(|(unit, side)| *side = Some(play(unit, FIRST, memory))),
                1 => second.lock(|(unit, side)| *side = Some(play(unit, SECOND, memory))),
                _ => {}
            });
            for error in &errors {
                outln!("  {error}");
            }
            let missing = |spu| {
                let mut side = Side::new(spu);
                side.sliced.end = Some(Err("its core did not start"));
                side
            };
            (
                first.lock(|(_, side)| side.unwrap_or_else(|| missing(FIRST))),
                second.lock(|(_, side)| side.unwrap_or_else(|| missing(SECOND))),
            )
        }
        Ok(()) => play_here(first, second, memory),
    };
    // What SPU6's register holds (0 if nothing was written since it last read it).
    let mut left = 0;
    memory.with_view(&mut |view| {
        left = view
            .take_signal(FIRST as u8, SignalRegister::One)
            .unwrap_or(0);
    });
    report(&a, &b, left, checks);
}

fn report(a: &Side, b: &Side, left: u32, checks: &mut Checks) {
    let place = |side: &Side| side.core.unwrap_or_else(smp::this_core);
    heading(format_args!(
        "MFC signals: demo_handshake.s on SPU{FIRST} ({}) <-> SPU{SECOND} ({}), {HANDSHAKE_ROUNDS} rounds each",
        place(a),
        place(b)
    ));
    outln!(
        "  The host writes 0 to SPU{FIRST}'s signal register 1; each SPU waits for S1 (mask 0x200), acks it,"
    );
    outln!(
        "  reads SPU_RdSigNotify1 and sndsigs the value + 1 to the other's register 1 ({:#x}, {:#x}).",
        SignalRegister::One.ea(FIRST as u8),
        SignalRegister::One.ea(SECOND as u8)
    );
    outln!("  SPU   core    rounds  last got  sndsig   cycles  blocked  MFC wait");
    for side in [a, b] {
        outln!(
            "  SPU{:<2} {:<7} {:>6} {:>9} {:>7} {:>8} {:>8} {:>9}",
            side.spu,
            place(side),
            side.rounds,
            side.last,
            side.dma.commands,
            side.stats.cycles,
            side.sliced.blocked,
            side.dma.wait_cycles
        );
    }
    checks.check(
        format_args!("handshake_stops"),
        stopped(a.sliced.end.as_ref()) && stopped(b.sliced.end.as_ref()),
        format_args!(
            "SPU{FIRST}: {}, SPU{SECOND}: {}",
            Ended(a.sliced.end.as_ref()),
            Ended(b.sliced.end.as_ref())
        ),
    );
    let [first_last, second_last, in_register] = handshake_expected();
    checks.check(
        format_args!("handshake_values"),
        a.last == first_last && b.last == second_last && left == in_register,
        format_args!(
            "last received {} and {}, SPU{FIRST}'s register {}; Rust: {first_last}, {second_last}, {in_register}",
            a.last, b.last, left
        ),
    );
    let rounds = u64::from(HANDSHAKE_ROUNDS);
    let played = |side: &Side| {
        side.rounds == HANDSHAKE_ROUNDS
            && side.dma.commands == rounds
            && side.dma.bytes_out == 4 * rounds
    };
    checks.check(
        format_args!("handshake_rounds"),
        played(a) && played(b),
        format_args!(
            "rounds {} and {}, sndsigs {} and {} (4 bytes each); {HANDSHAKE_ROUNDS} expected",
            a.rounds, b.rounds, a.dma.commands, b.dma.commands
        ),
    );
}
