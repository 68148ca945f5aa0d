//! The profile in the Firefox Profiler's processed format (`pmprofile --firefox`), which
//! profiler.firefox.com and `samply load` open: one thread per core, each sample with its
//! symbolized call stack and a position on a time axis.
//!
//! Built with `fxprof-processed-profile`. The stacks are the ones the folded output counts
//! ([`stack_of`]), without the `core N` root frame: the core is the thread. The writing itself
//! ([`build_stacks`]) takes any symbolized stacks with times and weights: spusim writes its
//! exact per-function SPU profile with it.
//!
//! **Time.** A sample carries no timestamp (its `counter` is the skid, the events between the
//! trigger and the handler), so the time axis is reconstructed: the n-th sample of a core
//! (counting from 1) is placed n periods after that core started sampling, one event (or timer
//! tick) drawn as one nanosecond. Samples keep their order on each core; gaps where sampling
//! was paused, and the different speeds of the cores, are not visible.
//!
//! **Library.** Functions are named by pmprofile (DWARF, inlined frames included), not by the
//! profiler. To attach the firmware ELF to them as their library, each distinct function name
//! gets a pseudo-address in that library: its index in a symbol table given with the library.
//! These addresses are not code addresses; the profile is marked symbolicated so that no tool
//! tries to resolve them.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// The profile as the `fxprof-processed-profile` crate builds it.
pub use fxprof_processed_profile::Profile as FxProfile;
use fxprof_processed_profile::{
    CategoryColor, CategoryHandle, CategoryPairHandle, CpuDelta, Frame, FrameFlags, FrameInfo,
    LibraryInfo, ReferenceTimestamp, SamplingInterval, Symbol, SymbolTable, Timestamp,
    debugid::DebugId,
};
use pmprobe::sampling::{ProfileHeader, Sample};

use crate::profile::{Resolve, stack_of};
use crate::symbolize::UNKNOWN;

/// The product name the profile shows.
pub const PRODUCT: &str = "pmprobe";

/// The firmware ELF, as the profile names the library of its functions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Firmware {
    /// The file name, e.g. `pmprobe` (the library and process name shown).
    pub name: String,
    /// The path as given.
    pub path: String,
}

impl Firmware {
    /// The firmware at `path`; the name is its last component.
    pub fn at(path: &Path) -> Self {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        Self {
            name,
            path: path.display().to_string(),
        }
    }
}

/// The thread name of a core's samples.
pub fn thread_name(core: u8) -> String {
    format!("core {core}")
}

/// Where the n-th sample (from 1) of a core lies on the time axis: n periods, one event or
/// tick per nanosecond.
pub fn sample_time_ns(n: u64, period: u64) -> u64 {
    n.saturating_mul(period)
}

/// What a sample's stack depends on: its PC, link register and return addresses.
type RawStack<'s> = (u64, u64, &'s [u64]);

/// The stacks of `samples`, root first, each raw stack symbolized once (a hot loop repeats
/// the same PC, link register and return addresses many times).
fn stacks(samples: &[Sample], resolve: &impl Resolve) -> Vec<Rc<[String]>> {
    let mut seen: HashMap<RawStack, Rc<[String]>> = HashMap::new();
    samples
        .iter()
        .map(|sample| {
            seen.entry((sample.pc, sample.lr, sample.frames()))
                .or_insert_with(|| stack_of(sample, resolve).into())
                .clone()
        })
        .collect()
}

/// How a profile of symbolized stacks is laid out: what the Firefox Profiler shows around
/// the samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The product name (shown as the profile's name).
    pub product: String,
    /// The sampling interval, in the time axis's nanoseconds.
    pub interval_ns: u64,
    /// The program's architecture, as the library info names it (`arm64`), if any.
    pub arch: Option<String>,
    /// The category of the program's functions (`Firmware`).
    pub category: String,
}

/// A thread of the profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadInfo {
    /// Its name (`core 0`, `SPU1`).
    pub name: String,
    /// Its thread id.
    pub tid: u32,
    /// When it ended on the time axis, in nanoseconds.
    pub end_ns: u64,
}

/// One sample with its stack already symbolized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackSample {
    /// The index of its thread in the profile's thread list.
    pub thread: usize,
    /// The function names, root (outermost caller) first.
    pub stack: Rc<[String]>,
    /// Where it lies on the time axis, in nanoseconds.
    pub time_ns: u64,
    /// The CPU time it stands for, in nanoseconds (the activity graph's height).
    pub cpu_delta_ns: u64,
    /// Its weight in the call tree and the flame graph (the profile's weights count samples:
    /// a weight of n is n samples' worth).
    pub weight: i32,
}

/// The firmware as a library whose symbol table names `functions` at their pseudo-addresses
/// (their indices).
fn library(
    firmware: &Firmware,
    arch: Option<&str>,
    functions: &BTreeMap<&str, u32>,
) -> LibraryInfo {
    let symbols = functions
        .iter()
        .map(|(&name, &address)| Symbol {
            address,
            size: Some(1),
            name: name.to_string(),
        })
        .collect();
    LibraryInfo {
        name: firmware.name.clone(),
        debug_name: firmware.name.clone(),
        path: firmware.path.clone(),
        debug_path: firmware.path.clone(),
        // No symbol server is ever asked (the profile is symbolicated), so no identity needed.
        debug_id: DebugId::nil(),
        code_id: None,
        arch: arch.map(str::to_string),
        symbol_table: Some(Arc::new(SymbolTable::new(symbols))),
    }
}

/// Builds the Firefox profile of `samples` (symbolized stacks, each of one of `threads`, in
/// the order they were taken) laid out as `layout` says, with `firmware` as the one process
/// and the library of every named function; `recorded` anchors the time axis in wall-clock
/// time (the run's date, which the profiler shows as the recording's start).
pub fn build_stacks(
    layout: &Layout,
    firmware: &Firmware,
    threads: &[ThreadInfo],
    samples: &[StackSample],
    recorded: SystemTime,
) -> FxProfile {
    // A date before 1970 (a clock never set) would make the crate's conversion panic.
    let since_epoch = recorded.duration_since(UNIX_EPOCH).unwrap_or_default();
    let start = ReferenceTimestamp::from_duration_since_unix_epoch(since_epoch);
    let interval = SamplingInterval::from_nanos(layout.interval_ns.max(1));
    let mut profile = FxProfile::new(&layout.product, start, interval);
    profile.set_symbolicated(true);
    let mut functions: BTreeMap<&str, u32> = BTreeMap::new();
    for name in samples.iter().flat_map(|s| s.stack.iter()) {
        if name != UNKNOWN {
            let next = u32::try_from(functions.len()).unwrap_or(u32::MAX);
            functions.entry(name.as_str()).or_insert(next);
        }
    }
    let lib = profile.add_lib(library(firmware, layout.arch.as_deref(), &functions));
    let firmware_category: CategoryPairHandle = profile
        .add_category(&layout.category, CategoryColor::Blue)
        .into();
    let zero = Timestamp::from_nanos_since_reference(0);
    let process = profile.add_process(&firmware.name, 1, zero);
    let handles: Vec<_> = threads
        .iter()
        .map(|info| {
            let thread = profile.add_thread(process, info.tid, zero, false);
            profile.set_thread_name(thread, &info.name);
            thread
        })
        .collect();

    let frame = |profile: &mut FxProfile, name: &str| match functions.get(name) {
        Some(&address) => FrameInfo {
            frame: Frame::RelativeAddressFromInstructionPointer(lib, address),
            category_pair: firmware_category,
            flags: FrameFlags::empty(),
        },
        None => FrameInfo {
            frame: Frame::Label(profile.intern_string(name)),
            category_pair: CategoryHandle::OTHER.into(),
            flags: FrameFlags::empty(),
        },
    };
    for sample in samples {
        let Some(&thread) = handles.get(sample.thread) else {
            continue;
        };
        let frames: Vec<FrameInfo> = sample
            .stack
            .iter()
            .map(|f| frame(&mut profile, f))
            .collect();
        let stack = profile.intern_stack_frames(thread, frames.into_iter());
        let time = Timestamp::from_nanos_since_reference(sample.time_ns);
        profile.add_sample(
            thread,
            time,
            stack,
            CpuDelta::from_nanos(sample.cpu_delta_ns),
            sample.weight,
        );
    }
    for (info, &thread) in threads.iter().zip(&handles) {
        profile.set_thread_end_time(thread, Timestamp::from_nanos_since_reference(info.end_ns));
    }
    profile
}

/// Builds the Firefox profile of `samples` (in file order: each core's in the order it took
/// them), described by `header`, symbolized by `resolve`; `recorded` anchors the time axis in
/// wall-clock time (the run's date, which the profiler shows as the recording's start).
pub fn build(
    samples: &[Sample],
    header: &ProfileHeader,
    resolve: &impl Resolve,
    firmware: &Firmware,
    recorded: SystemTime,
) -> FxProfile {
    let period = header.period.max(1);
    let stacks = stacks(samples, resolve);
    let cores: Vec<u8> = samples
        .iter()
        .map(|s| s.core)
        .collect::<std::collections::BTreeSet<u8>>()
        .into_iter()
        .collect();
    // Samples taken so far on each core, which places the next one on its time axis.
    let mut taken: BTreeMap<u8, u64> = cores.iter().map(|&core| (core, 0)).collect();
    let placed: Vec<StackSample> = samples
        .iter()
        .zip(&stacks)
        .map(|(sample, stack)| {
            let n = taken.entry(sample.core).or_default();
            *n += 1;
            StackSample {
                thread: cores.iter().position(|&c| c == sample.core).unwrap_or(0),
                stack: stack.clone(),
                time_ns: sample_time_ns(*n, period),
                // Every core was running between its samples: a full CPU delta keeps the
                // profiler's activity graph at the height of the samples instead of flat.
                cpu_delta_ns: period,
                weight: 1,
            }
        })
        .collect();
    let threads: Vec<ThreadInfo> = cores
        .iter()
        .map(|&core| ThreadInfo {
            name: thread_name(core),
            tid: u32::from(core),
            end_ns: sample_time_ns(taken[&core], period),
        })
        .collect();
    let layout = Layout {
        product: PRODUCT.to_string(),
        interval_ns: period,
        arch: Some("arm64".to_string()),
        category: "Firmware".to_string(),
    };
    build_stacks(&layout, firmware, &threads, &placed, recorded)
}

/// Writes `profile` as processed-format JSON.
pub fn write(profile: &FxProfile, out: impl io::Write) -> io::Result<()> {
    serde_json::to_writer(out, profile).map_err(io::Error::other)
}
