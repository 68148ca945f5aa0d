//! What every section of the demo's MFC part ([`mfc`](crate::demo::mfc)) needs: the kernels as the
//! firmware carries them, loading a kernel, running an SPU in slices and telling how it ended.

use pmprobe::spu::exec::StopReason;
use pmprobe::spu::pipeline::{FetchKind, RunEnd};
use pmprobe::spu::probes::SpuProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

use super::kernels::{HANDSHAKE_SOURCE, STREAM_SOURCE, WORK_QUEUE_SOURCE};
use super::source_strip::{strip, stripped_len, text};
use crate::demo::shared::kernels::{IMAGE_BYTES, SYMBOLS};

/// A kernel's source as the firmware carries it: without comments, made at compile time.
macro_rules! stripped {
    ($source:expr) => {{
        const LEN: usize = stripped_len($source);
        const BYTES: [u8; LEN] = strip::<LEN>($source);
        text(&BYTES)
    }};
}

/// `demo_stream.s`, `demo_workqueue.s` and `demo_handshake.s` without their comments.
pub const STREAM: &str = stripped!(STREAM_SOURCE);
pub const WORK_QUEUE: &str = stripped!(WORK_QUEUE_SOURCE);
pub const HANDSHAKE: &str = stripped!(HANDSHAKE_SOURCE);

/// Loads `source` into `unit` for a pipeline-mode run with the real fetch unit (as the demo's
/// other pipeline kernels), statistics reset, `mailbox` in its inbound mailbox.
pub fn load(unit: &mut SpuUnit, source: &str, mailbox: &[u32]) -> Result<(), &'static str> {
    let mut image = [0u8; IMAGE_BYTES];
    let program = pmprobe::spu::isa::asm::assemble::<SYMBOLS>(source, &mut image)
        .map_err(|_| "does not assemble")?;
    unit.load_program(image.get(..program.len).unwrap_or(&[]), program.entry)
        .map_err(|_| "too large")?;
    unit.set_mode(Mode::Pipeline);
    unit.set_fetch(FetchKind::Real)
        .map_err(|_| "no real fetch unit")?;
    unit.reset_stats();
    for &word in mailbox {
        unit.write_inbound_mailbox(word)
            .map_err(|_| "inbound mailbox full")?;
    }
    Ok(())
}

/// How an SPU's run ended: its stop, or why it did not stop.
pub type End = Result<StopReason, &'static str>;

/// Whether `end` is the kernels' normal end, `stop 0x2000`.
pub fn stopped(end: Option<&End>) -> bool {
    matches!(end, Some(Ok(StopReason::Stop { signal: 0x2000, .. })))
}

/// How a run ended, as the checks print it: the stop, why it did not stop, or `running`.
pub struct Ended<'a>(pub Option<&'a End>);

impl core::fmt::Display for Ended<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(Ok(reason)) => reason.fmt(f),
            Some(Err(why)) => f.write_str(why),
            None => f.write_str("running"),
        }
    }
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
    /// `probes` has no listener: the observer of the demo's bare runs, whose pipeline code the
    /// firmware has anyway (another observer type would add a copy of the pipeline, about
    /// 20 KB of image).
    pub fn slice(
        &mut self,
        unit: &mut SpuUnit,
        probes: &SpuProbes<'_>,
        cycles: u64,
        budget: u64,
    ) -> Slice {
        if self.end.is_some() {
            return Slice::Done;
        }
        if self.cycles >= budget {
            self.end = Some(Err("did not stop within the cycle budget"));
            return Slice::Done;
        }
        let Ok(outcome) = unit.run(cycles, probes, &mut Discard) else {
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
