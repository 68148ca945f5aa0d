//! The MFC part of the demo, after the channel pair: one main memory shared by every SPU of
//! the arena and the host, and the three kernels of [`mfc_kernels`](super::mfc_kernels) over
//! it, each in its own section: streaming with one buffer and two ([`mfc_stream`]), a work
//! queue on an atomic counter ([`mfc_queue`]), a signal handshake across cores
//! ([`mfc_signals`]). What every section needs is here: the memory, loading a kernel, running
//! an SPU in slices.

use pmprobe::rt::{semihosting, timer};
use pmprobe::spu::arena::Arena;
use pmprobe::spu::exec::StopReason;
use pmprobe::spu::main_memory::MainMemory;
use pmprobe::spu::pipeline::{FetchKind, RunEnd};
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

use super::checks::Checks;
use super::kernels::{IMAGE_BYTES, SYMBOLS};
use super::mfc_kernels::MEMORY_BYTES;
use super::output::outln;
use super::{mfc_queue, mfc_signals, mfc_stream};

/// Main memory: the stream's input and output, the queue's counter and results. All-zero
/// bits (a zeroed array, no reservation, no signal), so it sits in `.bss` and costs the image
/// nothing.
static MEMORY: MainMemory<[u8; MEMORY_BYTES]> = MainMemory::new([0; MEMORY_BYTES]);

/// Attaches the arena's SPUs to the main memory and runs the three sections.
pub fn run(arena: &mut Arena, checks: &mut Checks) {
    arena.attach_main_memory(&MEMORY);
    let units = arena.units_mut();
    timed(|| {
        if let Some(unit) = units.get_mut(mfc_stream::SPU) {
            mfc_stream::run(unit, &MEMORY, checks);
        }
    });
    timed(|| mfc_queue::run(units, &MEMORY, checks));
    timed(|| mfc_signals::run(units, &MEMORY, checks));
}

/// Runs a section and prints what it cost the host: wall-clock time (semihosting) and virtual
/// time (under `-icount`, the instructions of every core, 16 a tick).
fn timed(section: impl FnOnce()) {
    let wall_start = semihosting::elapsed_micros().ok();
    let tick_start = timer::now();
    section();
    let ticks = timer::now().wrapping_sub(tick_start);
    match semihosting::elapsed_micros().ok().zip(wall_start) {
        Some((end, start)) => {
            let us = end.saturating_sub(start);
            outln!(
                "  section: {}.{:03} s host wall clock, {ticks} virtual timer ticks ({} Hz)",
                us / 1_000_000,
                (us / 1_000) % 1_000,
                timer::frequency()
            );
        }
        None => outln!(
            "  section: {ticks} virtual timer ticks ({} Hz)",
            timer::frequency()
        ),
    }
}

/// Loads `source` into `unit` for a pipeline-mode run with the real fetch unit (as the demo's
/// other pipeline kernels), statistics reset, `mailbox` in its inbound mailbox.
pub fn load(unit: &mut SpuUnit, source: &str, mailbox: &[u32]) -> Result<(), &'static str> {
    let mut image = [0u8; IMAGE_BYTES];
    let program = pmprobe::spu::isa::asm::assemble::<SYMBOLS>(source, &mut image)
        .map_err(|_| "the kernel does not assemble")?;
    unit.load_program(image.get(..program.len).unwrap_or(&[]), program.entry)
        .map_err(|_| "the kernel does not fit the local store")?;
    unit.set_mode(Mode::Pipeline);
    unit.set_fetch(FetchKind::Real)
        .map_err(|_| "this build has no real fetch unit")?;
    unit.reset_stats();
    for &word in mailbox {
        unit.write_inbound_mailbox(word)
            .map_err(|_| "the inbound mailbox is full")?;
    }
    Ok(())
}

/// How an SPU's run ended: its stop, or why it did not stop.
pub type End = Result<StopReason, &'static str>;

/// Whether `end` is the kernels' normal end, `stop 0x2000`.
pub fn stopped(end: Option<&End>) -> bool {
    matches!(end, Some(Ok(StopReason::Stop { signal: 0x2000, .. })))
}

/// One SPU run in slices: its own cycle count against a budget, and its end once it came.
#[derive(Clone, Copy, Default)]
pub struct Sliced {
    /// Cycles run so far.
    pub cycles: u64,
    /// Times it came back waiting on a channel only the host (or another SPU) can serve.
    pub blocked: u64,
    /// How it ended (`None`: still running, or blocked).
    pub end: Option<End>,
}

/// What a slice ended with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Slice {
    /// The budget of the slice ran out: run it again.
    Ran,
    /// It waits on a channel only the host or another SPU can serve.
    Blocked,
    /// It stopped or failed ([`Sliced::end`] says how).
    Done,
}

impl Sliced {
    /// Runs `unit` for up to `cycles` cycles, unless it ended or exceeded `budget` in total.
    pub fn slice(&mut self, unit: &mut SpuUnit, cycles: u64, budget: u64) -> Slice {
        if self.end.is_some() {
            return Slice::Done;
        }
        if self.cycles >= budget {
            self.end = Some(Err("did not stop within the cycle budget"));
            return Slice::Done;
        }
        let Ok(outcome) = unit.run(cycles, &NoProbes, &mut Discard) else {
            self.end = Some(Err("model error"));
            return Slice::Done;
        };
        self.cycles += outcome.cycles;
        match outcome.end {
            RunEnd::CycleLimit => Slice::Ran,
            RunEnd::Blocked { .. } => {
                self.blocked += 1;
                Slice::Blocked
            }
            RunEnd::Stopped(reason) => {
                self.end = Some(Ok(reason));
                Slice::Done
            }
        }
    }
}
