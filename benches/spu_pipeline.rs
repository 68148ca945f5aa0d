//! Pipeline-mode speed on the host: simulated SPU cycles per second (goal: at least 20 million
//! with probes detached). Run with
//! `cargo bench --target x86_64-unknown-linux-gnu --bench spu_pipeline`; words after `--`
//! select rows by workload, probes and model label (`ideal`, `every-cycle`, `real`, `instr`),
//! e.g. `-- dual detached ideal`. Figures and how they were taken: BENCHMARKS.md.
//!
//! Three workloads (each a long-running loop, so fetch redirects happen once per iteration):
//! a dependency chain (FX2 links, 2 cycles each), a dual-issue stream (independent even/odd
//! pairs, 2 instructions per cycle) and a loop with loads, stores and a call. Each runs with
//! no probes compiled in, with the SPU probe points present but detached (one load and one
//! branch each), and with a listener on every point, under the ideal fetch model (the
//! goal above). With nothing listening (`none`, `detached`) the pipeline's fast-forward
//! skips the cycle-by-cycle simulation of iterations that repeat an earlier one exactly (each
//! row says how many cycles it skipped); the `every-cycle` rows turn it off. Then the same
//! with the real fetch unit (spusim's default), probes detached.
//! Under real fetch the loops' back-branches are unhinted, so each iteration pays the
//! mispredict penalty: fewer instructions per cycle, different work per cycle.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use pmprobe::probe::listeners::MemAccess;
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::pipeline::RunEnd;
use pmprobe::spu::probes::{IssueEvent, NoProbes, SpuObserver, SpuProbes, StallReason};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

#[path = "support/workloads.rs"]
mod workloads;
use workloads::{LOOP, chain, dual_stream};

/// Nanoseconds this thread spent on a CPU (Linux `/proc/thread-self/schedstat`), so the
/// figures can be read on a machine shared with other jobs: wall-clock rates there measure
/// the share of the CPU the benchmark got as much as the model.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

const MEASURE_FOR: Duration = Duration::from_secs(2);
const SLICE: u64 = 1_000_000;

static EVENTS: AtomicU64 = AtomicU64::new(0);

fn on_count(n: &u64) {
    EVENTS.fetch_add(*n, Ordering::Relaxed);
}
fn on_access(_: &MemAccess) {
    EVENTS.fetch_add(1, Ordering::Relaxed);
}
fn on_issue(_: &IssueEvent) {
    EVENTS.fetch_add(1, Ordering::Relaxed);
}
fn on_stall(_: &StallReason) {
    EVENTS.fetch_add(1, Ordering::Relaxed);
}

fn attach_all(probes: &SpuProbes<'_>) {
    for point in [
        &probes.cycles,
        &probes.retired_insts,
        &probes.retired_insts_pc,
        &probes.retired_loads,
        &probes.retired_stores,
        &probes.retired_branches,
        &probes.branch_mispredicts,
    ] {
        point.add_fn(on_count).expect("room for a listener");
    }
    probes.data_access.add_fn(on_access).expect("room");
    probes.issue.add_fn(on_issue).expect("room");
    probes.issue_stall.add_fn(on_stall).expect("room");
}

fn measure<O: SpuObserver>(name: &str, probes_label: &str, source: &str, observer: &O) {
    measure_in(
        name,
        probes_label,
        source,
        observer,
        Mode::Pipeline,
        FetchKind::Ideal,
        true,
    );
}

/// Whether a run was selected on the command line: `cargo bench --bench spu_pipeline -- loop
/// real` runs only the rows whose labels contain every given word (cargo's own `--bench`
/// flag is ignored).
fn selected(labels: &[&str]) -> bool {
    std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .all(|word| labels.iter().any(|label| label.contains(word.as_str())))
}

fn measure_in<O: SpuObserver>(
    name: &str,
    probes_label: &str,
    source: &str,
    observer: &O,
    mode: Mode,
    fetch: FetchKind,
    fast_forward: bool,
) {
    let mode_label = match (mode, fetch, fast_forward) {
        (Mode::Instruction, _, _) => "instr",
        (Mode::Pipeline, FetchKind::Ideal, true) => "ideal",
        (Mode::Pipeline, FetchKind::Ideal, false) => "every-cycle",
        (Mode::Pipeline, FetchKind::Real, _) => "real",
    };
    if !selected(&[name, probes_label, mode_label]) {
        return;
    }
    let mut image = vec![0u8; 64 * 1024];
    let program = assemble::<64>(source, &mut image).expect("benchmark program assembles");
    let mut unit = Box::new(SpuUnit::new(0));
    unit.load_program(&image[..program.len], program.entry)
        .expect("image fits");
    unit.set_mode(mode);
    unit.set_fetch(fetch).expect("fetch model available");
    unit.set_fast_forward(fast_forward);
    let mut cycles = 0u64;
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    while start.elapsed() < MEASURE_FOR {
        let outcome = unit
            .run(black_box(SLICE), observer, &mut Discard)
            .expect("no model error");
        assert_eq!(outcome.end, RunEnd::CycleLimit, "{name} runs forever");
        cycles += outcome.cycles;
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu_seconds = match (cpu_start, thread_cpu_ns()) {
        (Some(begin), Some(end)) if end > begin => (end - begin) as f64 / 1e9,
        _ => f64::NAN,
    };
    let stats = unit.stats();
    let ipc = if mode == Mode::Pipeline {
        stats.instructions as f64 / stats.cycles as f64
    } else {
        1.0
    };
    let skipped = 100.0 * unit.pipeline().fast_forwarded_cycles() as f64 / cycles as f64;
    println!(
        "{name:<13} probes {probes_label:<9}: {:>7.1} M simulated cycles/s wall, {:>7.1} M/s on-CPU  (IPC {ipc:.2}, {} cycles in {seconds:.2} s, {cpu_seconds:.2} s on CPU, {skipped:.1}% fast-forwarded)",
        cycles as f64 / seconds / 1e6,
        cycles as f64 / cpu_seconds / 1e6,
        cycles
    );
}

fn main() {
    let workloads = [
        ("dependency", chain()),
        ("dual-issue", dual_stream()),
        ("loop", LOOP.to_string()),
    ];
    let detached = SpuProbes::new();
    let attached = SpuProbes::new();
    attach_all(&attached);
    for (name, source) in &workloads {
        measure(name, "none", source, &NoProbes);
        measure(name, "detached", source, &detached);
        measure(name, "attached", source, &attached);
    }
    for (heading, fetch, fast_forward) in [
        (
            "ideal fetch, every cycle simulated (fast-forward off):",
            FetchKind::Ideal,
            false,
        ),
        (
            "real fetch unit (unhinted loop branches mispredict; no fast-forward):",
            FetchKind::Real,
            true,
        ),
    ] {
        println!("{heading}");
        for (name, source) in &workloads {
            measure_in(
                name,
                "detached",
                source,
                &detached,
                Mode::Pipeline,
                fetch,
                fast_forward,
            );
        }
    }
    println!("for comparison, instruction mode (one cycle per instruction):");
    for (name, source) in &workloads {
        measure_in(
            name,
            "none",
            source,
            &NoProbes,
            Mode::Instruction,
            FetchKind::Ideal,
            true,
        );
    }
    println!(
        "(listener events delivered: {})",
        EVENTS.load(Ordering::Relaxed)
    );
}
