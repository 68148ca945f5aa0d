//! [`DmaRaceChecker`], its `DmaRace` probe point, and [`SpuDmaCheck`], the observer that
//! feeds it one SPU's notifications.

use core::cell::{Cell, RefCell};

use super::access::Touch;
use super::race::DmaRace;
use super::span::Span;
use super::state::{Found, State};
use super::stats::DmaCheckStats;
use crate::probe::{Manager, ManagerError, ProbePoint};
use crate::spu::arena::{NoSuchSpu, SPU_COUNT};
use crate::spu::exec::{AccessKind, CompletedBatch, Executed, LsAccess};
use crate::spu::isa::Instruction;
use crate::spu::probes::{ChannelEvent, SpuObserver};

/// Listener capacity of the `DmaRace` point.
pub const RACE_LISTENERS: usize = 4;

/// The DMA race checker of up to eight SPUs sharing one main memory.
///
/// Each SPU's model notifies it through its [`observer`](Self::observer) (compose it with
/// other observers as `(a, b)`); every race found goes to the [`races`](Self::races) probe
/// point. The checker follows the program, not the clock: a command is pending from its
/// `wrch MFC_Cmd` until the program reads a tag-group status that includes it, so instruction
/// mode and pipeline mode report the same races. `docs/dma-races.md` has the rules and their
/// sources.
///
/// Its state lives in a `RefCell` (104 KiB on x86-64, no heap: box it, or keep it where the
/// code that runs the SPUs keeps its probe points; like them it is neither `Send` nor `Sync`):
/// the SPUs it checks must be run by one thread (or core) at a time, as spusim's thread group
/// and the tests do. A race listener must not call back into the checker (such a notification
/// is dropped and counted, [`DmaCheckStats::reentrant`]).
///
/// ```
/// use pmprobe::spu::dma_check::{DmaRace, DmaRaceChecker};
/// use pmprobe::spu::unit::{Discard, Mode, SpuUnit};
/// fn print(race: &DmaRace) {
///     std::println!("{race}");
/// }
/// let checker = Box::new(DmaRaceChecker::new());
/// checker.races().add_fn(print)?;
/// let mut spu = Box::new(SpuUnit::new(0));
/// spu.set_mode(Mode::Instruction);
/// spu.load_program_words(&[0x0000_2000], 0)?; // stop 0x2000
/// spu.run(100, &checker.observer(0)?, &mut Discard)?;
/// assert_eq!(checker.stats().races, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DmaRaceChecker<'l> {
    state: RefCell<State>,
    races: ProbePoint<'l, DmaRace, RACE_LISTENERS>,
    reentrant: Cell<u64>,
}

impl Default for DmaRaceChecker<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'l> DmaRaceChecker<'l> {
    /// A checker that knows nothing yet.
    pub const fn new() -> Self {
        DmaRaceChecker {
            state: RefCell::new(State::new()),
            races: ProbePoint::new(),
            reentrant: Cell::new(0),
        }
    }

    /// The observer of SPU `spu` (its model's notifications go to the checker); from now on
    /// SPU `spu` is one of those checked against each other.
    pub fn observer(&self, spu: u8) -> Result<SpuDmaCheck<'_, 'l>, NoSuchSpu> {
        if usize::from(spu) >= SPU_COUNT {
            return Err(NoSuchSpu {
                index: usize::from(spu),
            });
        }
        self.with(|state| state.activate(spu));
        Ok(SpuDmaCheck { checker: self, spu })
    }

    /// The `DmaRace` probe point: every race found.
    pub fn races(&self) -> &ProbePoint<'l, DmaRace, RACE_LISTENERS> {
        &self.races
    }

    /// What the checker did, found and could not keep.
    pub fn stats(&self) -> DmaCheckStats {
        let mut stats = self.with(|state| state.stats).unwrap_or_default();
        stats.reentrant = self.reentrant.get();
        stats
    }

    /// Commands SPU `spu` issued and has not seen complete.
    pub fn pending(&self, spu: u8) -> usize {
        self.with(|state| {
            state
                .spus
                .get(usize::from(spu))
                .map_or(0, |check| check.pending.len())
        })
        .unwrap_or(0)
    }

    /// Forgets every command, clock and count (the listeners stay): for a new run.
    pub fn reset(&self) {
        self.with(|state| *state = State::new());
        self.reentrant.set(0);
    }

    /// Runs `f` on the state, unless a listener is already in it (then counts a drop).
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> Option<R> {
        match self.state.try_borrow_mut() {
            Ok(mut state) => Some(f(&mut state)),
            Err(_) => {
                self.reentrant.set(self.reentrant.get() + 1);
                None
            }
        }
    }

    /// Runs `f` on the state, then hands what it found to the listeners.
    fn check(&self, f: impl FnOnce(&mut State, &mut Found)) {
        let mut found = Found::new();
        if self.with(|state| f(state, &mut found)).is_some() {
            for race in &found {
                self.races.notify(race);
            }
        }
    }
}

impl<'p> DmaRaceChecker<'static> {
    /// Registers the race point as `DmaRace`.
    pub fn register<const P: usize>(
        &'p self,
        manager: &mut Manager<'p, P>,
    ) -> Result<(), ManagerError<'static>> {
        manager.register("DmaRace", &self.races)
    }
}

/// One SPU's notifications into a [`DmaRaceChecker`]: its loads, stores and instruction
/// fetches, and its channel traffic.
#[derive(Clone, Copy)]
pub struct SpuDmaCheck<'c, 'l> {
    checker: &'c DmaRaceChecker<'l>,
    spu: u8,
}

impl SpuDmaCheck<'_, '_> {
    fn data_access(
        &self,
        state: &mut State,
        access: &LsAccess,
        pc: u32,
        cycle: u64,
        found: &mut Found,
    ) {
        let touch = match access.kind {
            AccessKind::Write => Touch::Store,
            _ => Touch::Load,
        };
        let bytes = Span::at(u64::from(access.address), u64::from(access.size));
        state.access(self.spu, touch, bytes, pc, cycle, found);
    }

    fn fetch(&self, state: &mut State, pc: u32, cycle: u64, found: &mut Found) {
        if state.writes_pending(self.spu) {
            state.access(
                self.spu,
                Touch::Fetch,
                Span::at(u64::from(pc), 4),
                pc,
                cycle,
                found,
            );
        }
    }
}

impl SpuObserver for SpuDmaCheck<'_, '_> {
    #[inline]
    fn retired(&self, _instruction: &Instruction, executed: &Executed, cycle: u64) {
        self.checker.check(|state, found| {
            self.fetch(state, executed.pc, cycle, found);
            if let Some(access) = &executed.access {
                self.data_access(state, access, executed.pc, cycle, found);
            }
        });
    }

    /// With a get pending the instructions' addresses are needed (their fetches are
    /// checked); otherwise their accesses are enough.
    fn needs_records(&self) -> bool {
        self.checker
            .with(|state| state.writes_pending(self.spu))
            .unwrap_or(false)
    }

    fn completed(&self, batch: &CompletedBatch<'_>) {
        self.checker.check(|state, found| {
            if batch.records().is_empty() {
                for access in batch.accesses() {
                    let ls = LsAccess {
                        address: access.address as u32,
                        size: access.size,
                        kind: access.kind,
                    };
                    self.data_access(state, &ls, access.pc as u32, access.tick, found);
                }
                return;
            }
            for (index, record) in batch.records().iter().enumerate() {
                let cycle = batch.cycle_after(index);
                self.fetch(state, record.pc(), cycle, found);
                if let Some(access) = record.access() {
                    self.data_access(state, &access, record.pc(), cycle, found);
                }
            }
        });
    }

    fn channel(&self, event: &ChannelEvent<'_>) {
        self.checker
            .check(|state, found| state.channel(self.spu, event, found));
    }
}
