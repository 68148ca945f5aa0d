//! Host benchmark: stack distance accesses per second at W = 2^16, next to a naive O(n) LRU
//! stack on the same access stream. Not a test; it prints figures.
//!
//! Run: `cargo bench --target x86_64-unknown-linux-gnu --bench stack_distance`

use std::hint::black_box;
use std::time::Instant;

use pmprobe::probe::listeners::{AccessKind, Distance, StackDistance};

const W: usize = 1 << 16;

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Addresses of 64-byte lines drawn from `lines` distinct lines, half of them from a hot
/// eighth.
fn stream(count: usize, lines: u64, seed: u64) -> Vec<u64> {
    let mut rng = seed;
    (0..count)
        .map(|_| {
            let r = xorshift(&mut rng);
            let line = if r & 1 == 0 {
                (r >> 8) % (lines / 8)
            } else {
                (r >> 8) % lines
            };
            line * 64
        })
        .collect()
}

/// Runs `warm` accesses untimed, then times the rest; returns (accesses/s, checksum of the
/// timed distances).
fn naive(addresses: &[u64], warm: usize) -> (f64, u64) {
    let mut stack: Vec<u64> = Vec::with_capacity(W + 1);
    let mut checksum = 0u64;
    let mut start = Instant::now();
    for (index, &address) in addresses.iter().enumerate() {
        if index == warm {
            checksum = 0;
            start = Instant::now();
        }
        let line = address >> 6;
        match stack.iter().position(|&l| l == line) {
            Some(position) => {
                stack.remove(position);
                checksum = checksum.wrapping_add(position as u64);
            }
            None => checksum = checksum.wrapping_add(u64::MAX),
        }
        stack.insert(0, line);
        stack.truncate(W);
    }
    (
        (addresses.len() - warm) as f64 / start.elapsed().as_secs_f64(),
        checksum,
    )
}

fn fast(sd: &mut StackDistance<W, 64>, addresses: &[u64], warm: usize) -> (f64, u64) {
    let mut checksum = 0u64;
    let mut start = Instant::now();
    for (index, &address) in addresses.iter().enumerate() {
        if index == warm {
            checksum = 0;
            start = Instant::now();
        }
        checksum = checksum.wrapping_add(match sd.access(black_box(address), AccessKind::Read) {
            Distance::Finite(d) => d,
            Distance::Infinite => u64::MAX,
        });
    }
    (
        (addresses.len() - warm) as f64 / start.elapsed().as_secs_f64(),
        checksum,
    )
}

/// Accesses before timing starts, so that both stacks are full of lines.
const WARM: usize = 400_000;

fn run() {
    println!("stack distance, host release, W = {W} lines, 64-byte lines, {WARM} warm-up accesses");
    println!(
        "{:>9} {:>10} {:>14} {:>10} {:>14} {:>8} {:>6}",
        "distinct", "timed", "fast acc/s", "timed", "naive acc/s", "speedup", "agree"
    );
    for lines in [1u64 << 12, 1 << 16, 1 << 18] {
        let (fast_timed, naive_timed) = (4_000_000, 20_000);
        let addresses = stream(WARM + fast_timed, lines, 0x9e37_79b9_7f4a_7c15 ^ lines);
        let mut sd = StackDistance::<W, 64>::new(64).expect("valid configuration");
        let (fast_rate, _) = fast(&mut sd, &addresses, WARM);
        // The same warm-up and window on both, to check that they agree.
        sd.reset();
        let window = &addresses[..WARM + naive_timed];
        let (_, fast_sum) = fast(&mut sd, window, WARM);
        let (naive_rate, naive_sum) = naive(window, WARM);
        println!(
            "{lines:>9} {fast_timed:>10} {fast_rate:>14.0} {naive_timed:>10} {naive_rate:>14.0} {:>8.0} {:>6}",
            fast_rate / naive_rate,
            fast_sum == naive_sum
        );
    }
}

fn main() {
    // The calculator is ~40 * W bytes; give it a stack of its own.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(run)
        .expect("spawn benchmark thread")
        .join()
        .expect("benchmark thread");
}
