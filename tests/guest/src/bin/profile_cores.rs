//! A profile taken on every core at once: the profiler is started once (its automatic source
//! choice, the generic timer on QEMU 7.2), then each core arms its own source, runs `hot_loop`
//! and pauses; the boot core writes one `pmprobe-profile.pmps` with every core's samples. The
//! host test symbolizes it with pmprofile and checks the samples per core and that `hot_loop`
//! has at least 90% of them. Here: every core took samples, each sample carries the number of
//! the core whose handler took it, nothing was dropped.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pmprobe::probe::Listener;
use pmprobe::rt::smp::{self, CoreId, MAX_CORES};
use pmprobe::rt::{irq, profiler};
use pmprobe::sampling::Sample;

pmprobe::entry!(main);

/// Counts the samples of each core by the core number they carry, and the samples whose number
/// is not the core that notified it.
struct PerCore {
    samples: [AtomicU64; MAX_CORES],
    misnumbered: AtomicU64,
}

impl Listener<Sample> for PerCore {
    fn notify(&self, sample: &Sample) {
        if usize::from(sample.core) != smp::this_core().index() {
            self.misnumbered.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(count) = self.samples.get(usize::from(sample.core)) {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }
}

static PER_CORE: PerCore = PerCore {
    samples: [const { AtomicU64::new(0) }; MAX_CORES],
    misnumbered: AtomicU64::new(0),
};

/// Whether each core attached the listener, resumed and paused.
static SAMPLED: [AtomicBool; MAX_CORES] = [const { AtomicBool::new(false) }; MAX_CORES];

/// The hot loop: a multiply-xor chain the compiler cannot fold.
#[inline(never)]
fn hot_loop(iterations: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..iterations {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005) ^ i);
    }
    x
}

/// One core's part: sample its own run of the hot loop.
fn sample_this_core(core: CoreId) {
    let attached = profiler::with_sampler(|s| s.point().add_object(&PER_CORE).is_ok());
    // SAFETY: not inside a critical section; `resume` installs the handler before arming.
    unsafe { irq::unmask() };
    let resumed = profiler::resume().is_ok();
    black_box(hot_loop(1_500_000));
    let paused = profiler::pause().is_ok();
    irq::mask();
    if let Some(done) = SAMPLED.get(core.index()) {
        done.store(attached == Ok(true) && resumed && paused, Ordering::Release);
    }
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("profile_cores");
    let report = smp::bring_up(&[]);
    let cores = smp::online();
    pmprobe::println!("bring-up: {cores} cores, {} started", report.started);
    t.check_with("several_cores", cores > 1, format_args!("{cores} cores"));
    // SAFETY: not inside a critical section; the probe of the PMU waits for its interrupt.
    unsafe { irq::unmask() };
    let started = match profiler::start(&profiler::Config::default()) {
        Ok(started) => started,
        Err(e) => {
            pmprobe::println!("profiler: {e}");
            t.check("profiler_started", false);
            return t.finish();
        }
    };
    irq::mask();
    pmprobe::println!(
        "profiler: {:?} every {} (event {:#x})",
        started.source,
        started.period,
        started.event
    );
    let errors = smp::on_each_core(&sample_this_core);
    t.check_eq("every_core_started", errors.len(), 0);
    let mut every_core_sampled = true;
    for core in smp::cores() {
        let samples = PER_CORE
            .samples
            .get(core.index())
            .map_or(0, |count| count.load(Ordering::Relaxed));
        let sampled = SAMPLED
            .get(core.index())
            .is_some_and(|done| done.load(Ordering::Acquire));
        pmprobe::println!("{core}: listener, resume, pause {sampled}; {samples} samples");
        every_core_sampled &= sampled && samples >= 20;
    }
    t.check("every_core_sampled", every_core_sampled);
    t.check_eq(
        "samples_carry_their_core",
        PER_CORE.misnumbered.load(Ordering::Relaxed),
        0,
    );
    let summary = profiler::summary();
    let counted: u64 = PER_CORE
        .samples
        .iter()
        .map(|count| count.load(Ordering::Relaxed))
        .sum();
    pmprobe::println!(
        "samples {}, dropped {}, {} bytes",
        summary.samples,
        summary.dropped,
        summary.bytes
    );
    t.check_eq("summary_holds_every_core", summary.samples, counted);
    t.check_eq("none_dropped", summary.dropped, 0);
    match profiler::write("pmprobe-profile.pmps") {
        Ok(_) => t.check("profile_written", true),
        Err(e) => t.check_with("profile_written", false, format_args!("{e}")),
    };
    t.finish()
}
