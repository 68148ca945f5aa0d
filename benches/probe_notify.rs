//! Host benchmark: cost of `ProbePoint::notify` with 0, 1, 4 and 16 listeners, next to calling
//! the same listener bodies directly, printed as ratios. Not a test; it prints figures.
//!
//! Run: `cargo bench --target x86_64-unknown-linux-gnu --bench probe_notify`

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use pmprobe::probe::{Listener, ProbePoint};

static SINKS: [AtomicU64; 16] = [const { AtomicU64::new(0) }; 16];

/// The listener body: add the argument to one sink (load + store, no locked instruction).
#[inline(always)]
fn body(index: usize, arg: u64) {
    let sink = &SINKS[index];
    sink.store(
        sink.load(Ordering::Relaxed).wrapping_add(arg),
        Ordering::Relaxed,
    );
}

macro_rules! bodies {
    ($($name:ident = $index:expr),* $(,)?) => {
        $(fn $name(arg: &u64) { body($index, *arg) })*
        const FUNCTIONS: [fn(&u64); 16] = [$($name),*];
    };
}

bodies!(
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

/// The same body as a listener object.
struct Object(usize);

impl Listener<u64> for Object {
    fn notify(&self, arg: &u64) {
        body(self.0, *arg)
    }
}

const ITERATIONS: u64 = 20_000_000;
const ROUNDS: usize = 5;

/// Best of `ROUNDS` runs, in nanoseconds per iteration.
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

/// `K` direct calls of the listener bodies, the count fixed at compile time.
#[inline(always)]
fn direct<const K: usize>(arg: u64) {
    for function in &FUNCTIONS[..K] {
        function(&arg);
    }
}

fn main() {
    let objects: Vec<Object> = (0..16).map(Object).collect();
    println!("probe notify, host release, {ITERATIONS} iterations, best of {ROUNDS}");
    println!(
        "{:>9} {:>14} {:>14} {:>14} {:>14} {:>12} {:>12}",
        "listeners",
        "direct ns",
        "notify fn ns",
        "notify obj ns",
        "empty loop ns",
        "fn ratio",
        "obj ratio"
    );
    let empty_loop = measure(|i| {
        black_box(i);
    });
    for count in [0usize, 1, 4, 16] {
        let fn_point: ProbePoint<u64, 16> = ProbePoint::new();
        let obj_point: ProbePoint<u64, 16> = ProbePoint::new();
        for index in 0..count {
            fn_point.add_fn(FUNCTIONS[index]).unwrap();
            obj_point.add_object(&objects[index]).unwrap();
        }
        let direct_ns = match count {
            0 => measure(|i| direct::<0>(black_box(i))),
            1 => measure(|i| direct::<1>(black_box(i))),
            4 => measure(|i| direct::<4>(black_box(i))),
            _ => measure(|i| direct::<16>(black_box(i))),
        };
        let fn_ns = measure(|i| black_box(&fn_point).notify(black_box(&i)));
        let obj_ns = measure(|i| black_box(&obj_point).notify(black_box(&i)));
        println!(
            "{count:>9} {direct_ns:>14.3} {fn_ns:>14.3} {obj_ns:>14.3} {empty_loop:>14.3} {:>12.2} {:>12.2}",
            fn_ns / direct_ns,
            obj_ns / direct_ns
        );
    }
    let total: u64 = SINKS.iter().map(|s| s.load(Ordering::Relaxed)).sum();
    println!("(checksum {total})");
}
