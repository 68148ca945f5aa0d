//! The breakpoint of section 3: a `BreakPcEvent` on an SPU address found through the
//! assembler's symbol table, serviced from the SPU's `RetiredInstsPC` probe point.

use core::cell::{Cell, RefCell};

use crate::demo::shared::output::outln;
use pmprobe::probe::{BreakPcEvent, Listener, PcEventQueue};

/// What the breakpoint's hook sees.
pub struct BreakContext {
    /// The SPU number.
    pub spu: u8,
    /// The label the breakpoint is on.
    pub label: &'static str,
    /// The SPU cycle (from the `Cycles` point) when an instruction completes.
    pub cycle: u64,
    /// Instructions completed so far (from `RetiredInstsPC`).
    pub instructions: u64,
    /// Cycle and instruction number of the first firing.
    pub first: Option<(u64, u64)>,
}

/// The hook: reports the first firing at once (it prints among the SPU's prof_cp lines).
pub fn report_first_hit(ctx: &mut BreakContext, event: &BreakPcEvent<'_, BreakContext>) {
    if ctx.first.is_none() {
        ctx.first = Some((ctx.cycle, ctx.instructions));
        outln!(
            "  break: BreakPcEvent fired: SPU{} reached {} ({:#07x}) at cycle {}, instruction {}",
            ctx.spu,
            ctx.label,
            use_pc(event),
            ctx.cycle,
            ctx.instructions
        );
    }
}

fn use_pc(event: &BreakPcEvent<'_, BreakContext>) -> u64 {
    pmprobe::probe::PcEvent::<BreakContext>::pc(event)
}

/// Services a PC event queue for every completed instruction.
pub struct PcWatch<'e> {
    state: RefCell<(PcEventQueue<'e, BreakContext, 2>, BreakContext)>,
    cycle: Cell<u64>,
}

impl<'e> PcWatch<'e> {
    /// A watch running the events of `queue` with `context`.
    pub fn new(queue: PcEventQueue<'e, BreakContext, 2>, context: BreakContext) -> Self {
        Self {
            state: RefCell::new((queue, context)),
            cycle: Cell::new(0),
        }
    }

    /// The first firing (cycle, instruction), if any.
    pub fn first_hit(&self) -> Option<(u64, u64)> {
        self.state.try_borrow().ok().and_then(|state| state.1.first)
    }

    /// The listener for the SPU's `Cycles` point (the watch's clock).
    pub fn clock(&self) -> WatchClock<'_, 'e> {
        WatchClock(self)
    }
}

impl Listener<u64> for PcWatch<'_> {
    fn notify(&self, pc: &u64) {
        if let Ok(mut state) = self.state.try_borrow_mut() {
            let (queue, context) = &mut *state;
            context.instructions += 1;
            context.cycle = self.cycle.get();
            queue.service(*pc, context);
        }
    }
}

/// Advances a [`PcWatch`]'s cycle clock from the `Cycles` point.
pub struct WatchClock<'w, 'e>(&'w PcWatch<'e>);

impl Listener<u64> for WatchClock<'_, '_> {
    fn notify(&self, cycles: &u64) {
        self.0.cycle.set(self.0.cycle.get() + cycles);
    }
}
