//! The sampling profiler on the real core: every `period` events of a PMU event (its overflow
//! interrupt), or every `period` ticks of the generic timer, a sample of the interrupted PC and
//! call stack goes into this core's buffer and to the listeners of this core's sample probe
//! point. What `perf record` does, for a bare-metal firmware.
//!
//! ```ignore
//! use pmprobe::rt::profiler::{self, Config};
//! // SAFETY: not inside a critical section (sampling needs IRQs unmasked).
//! unsafe { pmprobe::rt::irq::unmask() };
//! let started = profiler::start(&Config::default())?;   // decides the source, once
//! profiler::resume()?;                                   // this core samples from here...
//! hot_code();
//! profiler::pause()?;                                    // ...to here
//! let written = profiler::write("pmprobe-profile.pmps")?;
//! ```
//!
//! # The source, and the automatic fallback
//! [`start`] decides once, for every core, what triggers samples ([`SourceChoice`]):
//! - **PMU overflow**: an event counter (the highest-numbered one, which the PMU driver leaves
//!   to its last user) counts the event from `2^width - period`; its overflow raises the PMU
//!   interrupt (PPI 7, INTID 23), whose handler reads the counter first (the skid), takes the
//!   sample and reloads the counter.
//! - **Generic timer**: the EL1 virtual timer (PPI 11, INTID 27) fires `period` ticks after the
//!   previous deadline; the handler reads `CNTVCT - CVAL` first (the skid in ticks).
//!
//! With [`SourceChoice::Auto`] the PMU is used when it works and the timer otherwise: no PMU,
//! an event the PMU does not implement (PMCEID), or an overflow interrupt that does not arrive.
//! The last is tested, not assumed: [`start`] loads the counter [`PROBE_PERIOD`] events before
//! overflow and runs a loop of at least [`PROBE_WAIT`] events that touches no PMU register; if
//! the interrupt has not been taken by the end of the loop, the PMU cannot sample this code.
//! QEMU 7.2 is such a PMU: it raises the overflow only at the next access to a PMU register
//! (measured in docs/profiling.md), so `Auto` picks the timer there. [`Started::pmu_problem`] says
//! why.
//!
//! # Per core
//! The PMU and the timer are private to each core (PPIs), so each core has its own sampler,
//! buffer and probe point, and arms its own source with [`resume`]. Samples carry the core's
//! number; [`write()`] puts every core's records after one header, so one profile holds them all.
//! A core's state is reached only by that core (its handler and its own calls, under an
//! [`IrqMutex`](crate::sync::IrqMutex)); [`write()`] reads the others only after they paused.
//!
//! # Limits
//! The call stack is a frame-pointer walk (firmware built with `-C force-frame-pointers=yes`,
//! as `.cargo/config.toml` does): code without frame records (the precompiled `core` and
//! `compiler_builtins` functions, e.g. `memcpy`) cuts the chain, and a sample taken in a
//! function's prologue, before it stored its record, misses its caller. Code that runs with IRQs
//! masked (critical sections, interrupt handlers) is not sampled until it unmasks them: its
//! time is charged to the first instruction after.

mod fallback;
mod live_stack;
mod per_core;
mod sources;

use core::fmt;
use core::sync::atomic::{AtomicU8, AtomicU16, Ordering};

use crate::pmu::Event;
use crate::sampling::{
    HEADER_LEN, ProfileHeader, SampleSource, SampleStore, SkidHistogram, WireError, encode_header,
};

use super::irq::IrqError;
use super::semihosting::{HostError, HostFile};

pub use fallback::Fallback;
use per_core::{ACTIVE, SAMPLERS, this_core};
pub use per_core::{BUFFER_BYTES, CoreSampler, LISTENERS};
use sources::PERIOD;
pub use sources::{PMU_INTID, PROBE_PERIOD, PROBE_WAIT, VIRTUAL_TIMER_INTID};

/// Cores with a sampler of their own: every core the runtime numbers.
pub const MAX_CORES: usize = super::core_id::MAX_CORES;
/// The default PMU period: one sample every 100 000 events.
pub const DEFAULT_PMU_PERIOD: u64 = 100_000;
/// The default timer rate: 10 000 samples per second of (virtual) time. Under QEMU's
/// `-icount shift=0` (one instruction per nanosecond) that is one sample every 100 000
/// instructions, the same as the default PMU period for INST_RETIRED.
pub const DEFAULT_TIMER_HZ: u64 = 10_000;

/// What triggers samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceChoice {
    /// The PMU event when its overflow interrupt works, the generic timer otherwise.
    Auto,
    /// The PMU event, even when the probe saw no overflow interrupt (to measure such a PMU:
    /// [`Started::pmu_problem`] says so); an error without a PMU or without the event.
    Pmu,
    /// The generic timer only.
    Timer,
}

/// How to profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// What triggers samples.
    pub source: SourceChoice,
    /// The PMU event counted (INST_RETIRED by default).
    pub event: Event,
    /// Events between samples for the PMU source.
    pub pmu_period: u64,
    /// Ticks between samples for the timer source; `None`: CNTFRQ / [`DEFAULT_TIMER_HZ`].
    pub timer_period: Option<u64>,
    /// Frames kept per sample (at most [`crate::sampling::MAX_STACK_DEPTH`]).
    pub depth: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            source: SourceChoice::Auto,
            event: Event::INST_RETIRED,
            pmu_period: DEFAULT_PMU_PERIOD,
            timer_period: None,
            depth: crate::sampling::MAX_STACK_DEPTH,
        }
    }
}

/// What [`start`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Started {
    /// The source.
    pub source: SampleSource,
    /// The PMU event (0 for the timer).
    pub event: u16,
    /// Events or ticks between samples.
    pub period: u64,
    /// What the probe found wrong with the PMU: why [`SourceChoice::Auto`] took the timer, or
    /// what [`SourceChoice::Pmu`] samples with anyway.
    pub pmu_problem: Option<Fallback>,
}

/// Why a profiler call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfilerError {
    /// [`start`] was called before.
    AlreadyStarted,
    /// [`start`] has not been called.
    NotStarted,
    /// IRQs are masked on this core (inside a critical section?): no sample could be taken.
    IrqsMasked,
    /// The PMU cannot sample ([`SourceChoice::Pmu`]), and why.
    PmuCannotSample(Fallback),
    /// The period is 0.
    ZeroPeriod,
    /// This core's number is past [`MAX_CORES`].
    NoSampler {
        /// The core number.
        core: usize,
    },
    /// A core is still sampling: [`write()`] needs every core paused.
    StillSampling {
        /// The core number.
        core: usize,
    },
    /// The interrupt could not be set up.
    Irq(IrqError),
    /// Writing the file failed.
    Host(HostError),
    /// Encoding the header failed.
    Wire(WireError),
}

impl fmt::Display for ProfilerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AlreadyStarted => f.write_str("the profiler was already started"),
            Self::NotStarted => f.write_str("the profiler was not started"),
            Self::IrqsMasked => f.write_str("IRQs are masked on this core: nothing can be sampled"),
            Self::PmuCannotSample(why) => write!(f, "the PMU cannot sample: {why}"),
            Self::ZeroPeriod => f.write_str("a sampling period of 0"),
            Self::NoSampler { core } => {
                write!(f, "core {core} has no sampler (at most {MAX_CORES})")
            }
            Self::StillSampling { core } => write!(f, "core {core} is still sampling"),
            Self::Irq(e) => write!(f, "{e}"),
            Self::Host(e) => write!(f, "{e}"),
            Self::Wire(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for ProfilerError {}

impl From<IrqError> for ProfilerError {
    fn from(e: IrqError) -> Self {
        Self::Irq(e)
    }
}

impl From<HostError> for ProfilerError {
    fn from(e: HostError) -> Self {
        Self::Host(e)
    }
}

/// 0: not started; otherwise the [`SampleSource`] + 1.
static SOURCE: AtomicU8 = AtomicU8::new(0);
static EVENT: AtomicU16 = AtomicU16::new(0);
static DEPTH: AtomicU8 = AtomicU8::new(0);

fn started() -> Result<(SampleSource, u16, u64), ProfilerError> {
    let source = match SOURCE.load(Ordering::Acquire) {
        1 => SampleSource::PmuOverflow,
        2 => SampleSource::GenericTimer,
        _ => return Err(ProfilerError::NotStarted),
    };
    Ok((
        source,
        EVENT.load(Ordering::Relaxed),
        PERIOD.load(Ordering::Relaxed),
    ))
}

/// Decides the source (probing the PMU overflow interrupt, see the module documentation) and
/// installs its interrupt handler. Sampling starts on each core with [`resume`].
///
/// IRQs must be unmasked on this core (the probe waits for an interrupt), e.g. by
/// [`super::irq::unmask`] outside any critical section.
pub fn start(config: &Config) -> Result<Started, ProfilerError> {
    if SOURCE.load(Ordering::Acquire) != 0 {
        return Err(ProfilerError::AlreadyStarted);
    }
    if crate::arch::interrupts::irq_masked() {
        return Err(ProfilerError::IrqsMasked);
    }
    let pmu = match config.source {
        SourceChoice::Timer => Err(None),
        SourceChoice::Pmu | SourceChoice::Auto => {
            if config.pmu_period == 0 {
                return Err(ProfilerError::ZeroPeriod);
            }
            sources::probe_pmu(config.event).map_err(Some)
        }
    };
    let pmu_sampling = |pmu_problem| Started {
        source: SampleSource::PmuOverflow,
        event: config.event.number(),
        period: config.pmu_period,
        pmu_problem,
    };
    let started = match (pmu, config.source) {
        (Ok(()), _) => pmu_sampling(None),
        (Err(Some(late @ Fallback::NoOverflowInterrupt { .. })), SourceChoice::Pmu) => {
            sources::keep_pmu_handler()?;
            pmu_sampling(Some(late))
        }
        (Err(Some(why)), SourceChoice::Pmu) => return Err(ProfilerError::PmuCannotSample(why)),
        (Err(pmu_problem), _) => {
            let period = config
                .timer_period
                .unwrap_or(super::timer::frequency() / DEFAULT_TIMER_HZ);
            if period == 0 {
                return Err(ProfilerError::ZeroPeriod);
            }
            Started {
                source: SampleSource::GenericTimer,
                event: 0,
                period,
                pmu_problem,
            }
        }
    };
    EVENT.store(started.event, Ordering::Relaxed);
    PERIOD.store(started.period, Ordering::Relaxed);
    let depth = config.depth.min(crate::sampling::MAX_STACK_DEPTH);
    DEPTH.store(depth as u8, Ordering::Relaxed);
    let code = match started.source {
        SampleSource::PmuOverflow => 1,
        SampleSource::GenericTimer => 2,
    };
    SOURCE.store(code, Ordering::Release);
    Ok(started)
}

/// Arms this core's source: samples are taken from here on, until [`pause`]. Reprograms the
/// sampling counter each time, so a PMU driver set up in between (its reset disables every
/// counter) does not silence the profiler.
pub fn resume() -> Result<(), ProfilerError> {
    let (source, event, period) = started()?;
    let core = this_core();
    let sampler = SAMPLERS
        .get(core)
        .ok_or(ProfilerError::NoSampler { core })?;
    if crate::arch::interrupts::irq_masked() {
        return Err(ProfilerError::IrqsMasked);
    }
    sampler.lock(|cell| {
        if let Ok(mut sampler) = cell.try_borrow_mut() {
            sampler.set_trigger(source, event, period);
            sampler.set_core(core as u8);
            sampler.set_max_depth(usize::from(DEPTH.load(Ordering::Relaxed)));
        }
    });
    if let Some(active) = ACTIVE.get(core) {
        active.store(true, Ordering::Release);
    }
    sources::arm(source, event, period)?;
    Ok(())
}

/// Disarms this core's source; its samples stay in its buffer.
pub fn pause() -> Result<(), ProfilerError> {
    let (source, _, _) = started()?;
    let core = this_core();
    sources::disarm(source);
    ACTIVE
        .get(core)
        .ok_or(ProfilerError::NoSampler { core })?
        .store(false, Ordering::Release);
    Ok(())
}

/// Ends profiling on every core so that [`start`] may be called again (with another source or
/// period): every core must have [`pause`]d; the samples are forgotten (write them first).
pub fn reset() -> Result<(), ProfilerError> {
    let (source, _, _) = started()?;
    if let Some(core) = ACTIVE.iter().position(|a| a.load(Ordering::Acquire)) {
        return Err(ProfilerError::StillSampling { core });
    }
    sources::release(source);
    for sampler in &SAMPLERS {
        sampler.lock(|cell| {
            if let Ok(mut sampler) = cell.try_borrow_mut() {
                sampler.clear();
            }
        });
    }
    SOURCE.store(0, Ordering::Release);
    Ok(())
}

/// Runs `f` on this core's sampler: attach listeners to its probe point
/// (`sampler.point().add_object(&LISTENER)`), read its skid statistics or its buffer.
pub fn with_sampler<R>(f: impl FnOnce(&mut CoreSampler) -> R) -> Result<R, ProfilerError> {
    let core = this_core();
    let sampler = SAMPLERS
        .get(core)
        .ok_or(ProfilerError::NoSampler { core })?;
    sampler.lock(|cell| {
        cell.try_borrow_mut()
            .map(|mut sampler| f(&mut sampler))
            .map_err(|_| ProfilerError::NoSampler { core })
    })
}

/// Samples of every core so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Samples kept.
    pub samples: u64,
    /// Samples that did not fit in their core's buffer.
    pub dropped: u64,
    /// Bytes of encoded samples.
    pub bytes: usize,
    /// The skid of every sample (kept or dropped), all cores.
    pub skid: SkidHistogram,
}

/// What this core and every paused core sampled (another core that is still sampling is
/// left out: its handler may be writing its buffer).
pub fn summary() -> Summary {
    let mut summary = Summary {
        samples: 0,
        dropped: 0,
        bytes: 0,
        skid: SkidHistogram::new(),
    };
    for_each_core(|sampler| {
        summary.samples += sampler.store().kept();
        summary.dropped += sampler.store().dropped();
        summary.bytes += sampler.store().bytes().len();
        summary.skid.merge(sampler.skid());
    });
    summary
}

/// Runs `f` on this core's sampler and on every other core's that is paused (a core's state
/// is otherwise reached by that core only).
fn for_each_core(mut f: impl FnMut(&CoreSampler)) {
    let this = this_core();
    for (core, sampler) in SAMPLERS.iter().enumerate() {
        let active = ACTIVE
            .get(core)
            .is_some_and(|active| active.load(Ordering::Acquire));
        if core != this && active {
            continue;
        }
        sampler.lock(|cell| {
            if let Ok(sampler) = cell.try_borrow() {
                f(&sampler);
            }
        });
    }
}

/// Writes the profile (`PMPS`: one header, then every core's samples) to `path` on the host
/// through semihosting, e.g. `pmprobe-profile.pmps` for `pmprofile`. Every core must have
/// [`pause`]d.
pub fn write(path: &str) -> Result<Summary, ProfilerError> {
    let (source, event, period) = started()?;
    if let Some(core) = ACTIVE.iter().position(|a| a.load(Ordering::Acquire)) {
        return Err(ProfilerError::StillSampling { core });
    }
    let summary = summary();
    let header = ProfileHeader {
        source,
        event,
        period,
        dropped: summary.dropped,
    };
    let mut bytes = [0u8; HEADER_LEN];
    encode_header(&header, &mut bytes).map_err(ProfilerError::Wire)?;
    let mut file = HostFile::create(path)?;
    file.write_all(&bytes)?;
    let mut result = Ok(());
    for_each_core(|sampler| {
        if result.is_ok() {
            result = file.write_all(sampler.store().bytes());
        }
    });
    result?;
    file.close()?;
    Ok(summary)
}
