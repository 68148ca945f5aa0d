//! Host benchmark: the cost of notifying 0, 1, 4 and 16 listeners, pmprobe next to the
//! gem5-style dispatch measured in the same run. Not a test; it prints figures.
//!
//! Run: `cargo bench --target host-tuple --bench probe_notify`
//!
//! The gem5-style anchor is `benches/anchors/gem5_probe_bench.cc` (a vector of listener base
//! pointers, a virtual `notify` that calls a member-function pointer, as gem5's probe points
//! do). The bench builds it with `g++ -O2 -std=c++17` and runs it twice, each time after a pass
//! of pmprobe's measurements; each side's figure is its best pass, so a load change on the
//! machine during the run does not favour either side. Without g++ it says so in one line and
//! prints pmprobe's figures alone.
//!
//! Every listener body is the anchor's `Counter::add`: add the argument to the listener's own
//! 64-bit count. pmprobe's ways of notifying:
//! - `dyn point`: `ProbePoint<u64, 16>`, object listeners behind `&dyn Listener<u64>` (the
//!   default, any listener type; one indirect call per listener, as unavoidable as in gem5);
//! - `fn point`: the same point with plain `fn(&u64)` listeners (adding to statics);
//! - `typed point`: `ProbePoint<u64, 16, Counter>`, the listener type fixed at compile time
//!   but the list still attached and detached at run time (direct, inlined calls);
//! - `static set`: `StaticProbePoint` over an array of the listeners (membership and types
//!   fixed at compile time);
//! - `direct`: the bodies called in a plain loop, no probe framework at all.

use std::cell::Cell;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use pmprobe::probe::{Listener, ProbePoint, StaticProbePoint};

const ITERATIONS: u64 = 20_000_000;
/// Timed runs per figure in each pass; the figure is the fastest.
const ROUNDS: usize = 3;
/// Passes of (pmprobe's measurements, the anchor's run).
const PASSES: usize = 2;
const COUNTS: [usize; 4] = [0, 1, 4, 16];

/// The anchor's `Counter`: the listener body of every object variant.
struct Counter(Cell<u64>);

impl Listener<u64> for Counter {
    #[inline]
    fn notify(&self, arg: &u64) {
        self.0.set(self.0.get().wrapping_add(*arg));
    }
}

static SINKS: [AtomicU64; 16] = [const { AtomicU64::new(0) }; 16];

/// The same body for a plain function listener, whose count can only be a static.
#[inline(always)]
fn add_to_sink(index: usize, arg: u64) {
    if let Some(sink) = SINKS.get(index) {
        sink.store(
            sink.load(Ordering::Relaxed).wrapping_add(arg),
            Ordering::Relaxed,
        );
    }
}

macro_rules! functions {
    ($($name:ident = $index:expr),* $(,)?) => {
        $(fn $name(arg: &u64) { add_to_sink($index, *arg) })*
        const FUNCTIONS: [fn(&u64); 16] = [$($name),*];
    };
}

functions!(
    f0 = 0,
    f1 = 1,
    f2 = 2,
    f3 = 3,
    f4 = 4,
    f5 = 5,
    f6 = 6,
    f7 = 7,
    f8 = 8,
    f9 = 9,
    f10 = 10,
    f11 = 11,
    f12 = 12,
    f13 = 13,
    f14 = 14,
    f15 = 15,
);

/// Nanoseconds per iteration of `run`, the fastest of `ROUNDS` runs.
fn measure(mut run: impl FnMut(u64)) -> f64 {
    (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            for i in 0..ITERATIONS {
                run(i);
            }
            start.elapsed().as_secs_f64() * 1e9 / ITERATIONS as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// pmprobe's figures for one listener count, ns per notification.
#[derive(Clone, Copy)]
struct Figures {
    direct: f64,
    static_set: f64,
    typed_point: f64,
    dyn_point: f64,
    fn_point: f64,
}

impl Figures {
    fn best(self, other: Self) -> Self {
        Self {
            direct: self.direct.min(other.direct),
            static_set: self.static_set.min(other.static_set),
            typed_point: self.typed_point.min(other.typed_point),
            dyn_point: self.dyn_point.min(other.dyn_point),
            fn_point: self.fn_point.min(other.fn_point),
        }
    }
}

/// A static set of the first `K` counters, measured.
fn static_set<const K: usize>(counters: &[Counter; 16]) -> f64 {
    let set: [&Counter; K] = core::array::from_fn(|index| &counters[index]);
    let point: StaticProbePoint<u64, [&Counter; K]> = StaticProbePoint::new(set);
    measure(|i| black_box(&point).notify(black_box(&i)))
}

/// The first `K` counters called directly.
fn direct<const K: usize>(counters: &[Counter; 16]) -> f64 {
    measure(|i| {
        let counters = black_box(counters);
        let arg = black_box(&i);
        for counter in &counters[..K] {
            counter.notify(arg);
        }
    })
}

fn measure_count(count: usize, counters: &[Counter; 16]) -> Figures {
    let dyn_point: ProbePoint<u64, 16> = ProbePoint::new();
    let typed_point: ProbePoint<u64, 16, Counter> = ProbePoint::new();
    let fn_point: ProbePoint<u64, 16> = ProbePoint::new();
    for (counter, function) in counters.iter().zip(FUNCTIONS).take(count) {
        let attached = dyn_point
            .add_object(counter)
            .and(typed_point.add_object(counter))
            .and(fn_point.add_fn(function));
        assert_eq!(attached, Ok(()), "the points hold 16 listeners");
    }
    let (direct, static_set) = match count {
        0 => (direct::<0>(counters), static_set::<0>(counters)),
        1 => (direct::<1>(counters), static_set::<1>(counters)),
        4 => (direct::<4>(counters), static_set::<4>(counters)),
        _ => (direct::<16>(counters), static_set::<16>(counters)),
    };
    Figures {
        direct,
        static_set,
        typed_point: measure(|i| black_box(&typed_point).notify(black_box(&i))),
        dyn_point: measure(|i| black_box(&dyn_point).notify(black_box(&i))),
        fn_point: measure(|i| black_box(&fn_point).notify(black_box(&i))),
    }
}

fn measure_all(counters: &[Counter; 16]) -> Vec<Figures> {
    COUNTS
        .iter()
        .map(|&count| measure_count(count, counters))
        .collect()
}

/// The anchor's figures for one listener count, ns per notification.
#[derive(Clone, Copy)]
struct AnchorFigures {
    member_function: f64,
    std_function: f64,
    direct: f64,
}

impl AnchorFigures {
    fn best(self, other: Self) -> Self {
        Self {
            member_function: self.member_function.min(other.member_function),
            std_function: self.std_function.min(other.std_function),
            direct: self.direct.min(other.direct),
        }
    }
}

/// Builds the anchor into the bench's target directory; `Err` says why it cannot run.
fn build_anchor() -> Result<PathBuf, String> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/anchors/gem5_probe_bench.cc");
    let exe = std::env::current_exe().map_err(|e| format!("no bench path: {e}"))?;
    // target/<triple>/release/deps/probe_notify-<hash> -> target/<triple>/release/anchors
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("no target directory")?
        .join("anchors");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let binary = dir.join("gem5_probe_bench");
    let status = Command::new("g++")
        .args(["-O2", "-std=c++17", "-o"])
        .arg(&binary)
        .arg(&source)
        .status()
        .map_err(|e| format!("g++ not found ({e})"))?;
    if !status.success() {
        return Err(format!("g++ failed on {} ({status})", source.display()));
    }
    Ok(binary)
}

/// The number after `label` in `line`.
fn number_after(line: &str, label: &str) -> Option<f64> {
    let rest = &line[line.find(label)? + label.len()..];
    rest.split_whitespace().next()?.parse().ok()
}

/// Runs the anchor and reads its line for each listener count.
fn run_anchor(binary: &Path) -> Result<Vec<(usize, AnchorFigures)>, String> {
    let output = Command::new(binary)
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(format!("{} failed ({})", binary.display(), output.status));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let figures: Vec<(usize, AnchorFigures)> = text
        .lines()
        .filter_map(|line| {
            let count = number_after(line, "listeners=")? as usize;
            Some((
                count,
                AnchorFigures {
                    member_function: number_after(line, "member-fn:")?,
                    std_function: number_after(line, "std::function:")?,
                    direct: number_after(line, "direct:")?,
                },
            ))
        })
        .collect();
    if figures.len() != COUNTS.len() {
        return Err(format!("unexpected anchor output:\n{text}"));
    }
    Ok(figures)
}

fn main() {
    let counters: [Counter; 16] = core::array::from_fn(|_| Counter(Cell::new(0)));
    println!(
        "probe notify, host release, ns per notification; pmprobe: best of {ROUNDS} runs of {ITERATIONS} iterations per pass, anchor: its own run per pass; best of {PASSES} passes each"
    );
    // Two passes of (pmprobe, anchor): each side's figure is its best pass, so a load change
    // on the machine during the run does not favour either side.
    let anchor_binary = build_anchor();
    if let Err(why) = &anchor_binary {
        println!("gem5-style anchor not run: {why}; pmprobe's figures only");
    }
    let mut ours: Option<Vec<Figures>> = None;
    let mut theirs: Option<Vec<(usize, AnchorFigures)>> = None;
    for _pass in 0..PASSES {
        let pass = measure_all(&counters);
        ours = Some(match ours {
            Some(best) => best.iter().zip(&pass).map(|(a, b)| a.best(*b)).collect(),
            None => pass,
        });
        let Ok(binary) = &anchor_binary else {
            continue;
        };
        match run_anchor(binary) {
            Ok(pass) => {
                theirs = Some(match theirs {
                    Some(best) => best
                        .iter()
                        .zip(&pass)
                        .map(|((count, a), (_, b))| (*count, a.best(*b)))
                        .collect(),
                    None => pass,
                })
            }
            Err(why) => println!("gem5-style anchor failed: {why}"),
        }
    }
    let ours = ours.unwrap_or_default();
    let anchor = theirs;

    println!(
        "{:>9} {:>8} {:>8} {:>8} {:>8} {:>8} | {:>8} {:>8} {:>8} | {:>7} {:>7} {:>7}",
        "listeners",
        "direct",
        "static",
        "typed",
        "dyn",
        "fn",
        "gem5 mf",
        "gem5 sf",
        "C++ dir",
        "x dyn",
        "x typed",
        "x static",
    );
    for (index, &count) in COUNTS.iter().enumerate() {
        let Some(ours) = ours.get(index).copied() else {
            continue;
        };
        let theirs = anchor
            .as_ref()
            .and_then(|figures| figures.iter().find(|(c, _)| *c == count))
            .map(|(_, figures)| *figures);
        let anchor_columns = theirs.map_or(String::from("       -        -        -"), |a| {
            format!(
                "{:>8.3} {:>8.3} {:>8.3}",
                a.member_function, a.std_function, a.direct
            )
        });
        // How many times faster than gem5's member-function dispatch.
        let speedup = |ns: f64| {
            theirs.filter(|_| count > 0).map_or(String::from("-"), |a| {
                format!("{:.2}", a.member_function / ns)
            })
        };
        println!(
            "{count:>9} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} | {anchor_columns} | {:>7} {:>7} {:>7}",
            ours.direct,
            ours.static_set,
            ours.typed_point,
            ours.dyn_point,
            ours.fn_point,
            speedup(ours.dyn_point),
            speedup(ours.typed_point),
            speedup(ours.static_set),
        );
    }
    println!(
        "(x: gem5 member-fn ns / pmprobe ns, how many times faster pmprobe is; gem5 sf: its std::function listeners)"
    );
    let total: u64 = counters.iter().map(|c| c.0.get()).sum::<u64>()
        + SINKS.iter().map(|s| s.load(Ordering::Relaxed)).sum::<u64>();
    println!("(checksum {total})");
}
