//! A profile of a known hot loop: the profiler (its automatic source choice, which is the
//! generic timer on QEMU 7.2) samples a run that spends nearly all its instructions in
//! `hot_loop`, then writes `pmprobe-profile.pmps`; the host test symbolizes it with pmprofile
//! and checks that `hot_loop` has at least 90% of the samples. Here: the sample count matches
//! the period, nothing was dropped, and a listener on the sample probe point saw every sample.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{AtomicU64, Ordering};

use pmprobe::probe::Listener;
use pmprobe::rt::{irq, profiler};
use pmprobe::sampling::Sample;

pmprobe::entry!(main);

/// Counts the samples it is notified of.
struct Seen {
    samples: AtomicU64,
}

impl Listener<Sample> for Seen {
    fn notify(&self, _sample: &Sample) {
        self.samples.fetch_add(1, Ordering::Relaxed);
    }
}

static SEEN: Seen = Seen {
    samples: AtomicU64::new(0),
};

/// The hot loop: a multiply-xor chain the compiler cannot fold.
#[inline(never)]
fn hot_loop(iterations: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..iterations {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005) ^ i);
    }
    x
}

/// A little work around the loop, in another function.
#[inline(never)]
fn cold_part() -> u64 {
    (0..2_000u64).map(black_box).sum()
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("profile_hot_loop");
    // SAFETY: not inside a critical section; sampling needs IRQs unmasked.
    unsafe { irq::unmask() };
    let started = match profiler::start(&profiler::Config::default()) {
        Ok(started) => started,
        Err(e) => {
            pmprobe::println!("profiler: {e}");
            t.check("profiler_started", false);
            return t.finish();
        }
    };
    pmprobe::println!(
        "profiler: {:?} every {} (event {:#x})",
        started.source,
        started.period,
        started.event
    );
    if let Some(problem) = started.pmu_problem {
        pmprobe::println!("profiler: PMU not used: {problem}");
    }
    t.check(
        "listener_attached",
        profiler::with_sampler(|s| s.point().add_object(&SEEN).is_ok()) == Ok(true),
    );
    t.check("resumed", profiler::resume().is_ok());
    let result = cold_part() ^ hot_loop(3_000_000) ^ cold_part();
    t.check("paused", profiler::pause().is_ok());
    black_box(result);
    let summary = profiler::summary();
    pmprobe::println!(
        "samples {}, dropped {}, {} bytes ({} per sample), skid min {} mean {} max {}",
        summary.samples,
        summary.dropped,
        summary.bytes,
        summary.bytes as u64 / summary.samples.max(1),
        summary.skid.min(),
        summary.skid.mean(),
        summary.skid.max()
    );
    // The loop body is 4 to 6 instructions: 3 M iterations are at least 12 M instructions,
    // 120 periods of 100 000 under -icount shift=0.
    t.check_with(
        "samples_taken",
        summary.samples >= 100,
        format_args!("{} samples", summary.samples),
    );
    t.check_eq("none_dropped", summary.dropped, 0);
    t.check_eq(
        "listener_saw_every_sample",
        SEEN.samples.load(Ordering::Relaxed),
        summary.samples,
    );
    match profiler::write("pmprobe-profile.pmps") {
        Ok(_) => t.check("profile_written", true),
        Err(e) => t.check_with("profile_written", false, format_args!("{e}")),
    };
    t.finish()
}
