//! Checks of the `stack_distance` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): arbitrary access streams through the stack distance
//! calculator (`probe::listeners::StackDistance`) against a naive O(n·W) model.
//!
//! Input: byte 0 picks the capacity W (1, 2, 3, 8 or 64 lines, so evictions and the
//! renumbering of timestamps happen often) and the line size (1 to 128 bytes); then accesses
//! of 3 bytes: the kind and an address region in the first, 16 address bits in the others.
//! The regions: low addresses, addresses just below 2^64, addresses spread over the upper bits,
//! and bytes within one small set of lines (so nearby addresses share a line).
//!
//! The model is an LRU stack of at most W lines, most recent first: an access's distance is
//! its line's position (infinite when absent), a new line pushed past W drops the oldest,
//! which counts as an eviction. After every access the distance, the evictions and the
//! number of tracked lines equal the model's; at the end so do both histograms (linear bins,
//! overflow, log2 bins, infinite count), which the model builds from its own distances.
use pmprobe::probe::listeners::{AccessKind, Distance, DistanceHistograms, StackDistance};

/// Linear bins (small, so the overflow count is used).
const LIN: usize = 16;

/// The naive model: an LRU stack, most recent first.
struct Naive {
    lines: Vec<u64>,
    capacity: usize,
    evictions: u64,
    reads: DistanceHistograms<LIN>,
    writes: DistanceHistograms<LIN>,
}

impl Naive {
    fn access(&mut self, line: u64, kind: AccessKind) -> Distance {
        let distance = match self.lines.iter().position(|&l| l == line) {
            Some(position) => {
                self.lines.remove(position);
                Distance::Finite(position as u64)
            }
            None => Distance::Infinite,
        };
        self.lines.insert(0, line);
        if self.lines.len() > self.capacity {
            self.lines.pop();
            self.evictions += 1;
        }
        match kind {
            AccessKind::Write => self.writes.record(distance),
            AccessKind::Read | AccessKind::InstructionFetch => self.reads.record(distance),
        }
        distance
    }
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let Some((&config, accesses)) = data.split_first() else {
        return;
    };
    let line_shift = u32::from(config >> 3) % 8;
    match config % 5 {
        0 => run::<1>(line_shift, accesses),
        1 => run::<2>(line_shift, accesses),
        2 => run::<3>(line_shift, accesses),
        3 => run::<8>(line_shift, accesses),
        _ => run::<64>(line_shift, accesses),
    }
}

fn run<const W: usize>(line_shift: u32, accesses: &[u8]) {
    let line_size = 1u64 << line_shift;
    let mut calculator: Box<StackDistance<W, LIN>> =
        Box::new(StackDistance::new(line_size).expect("a power-of-two line size"));
    assert_eq!(calculator.line_size(), line_size);
    let mut naive = Naive {
        lines: Vec::new(),
        capacity: W,
        evictions: 0,
        reads: DistanceHistograms::new(),
        writes: DistanceHistograms::new(),
    };
    for (step, access) in accesses.chunks_exact(3).enumerate() {
        let kind = match access[0] & 3 {
            1 => AccessKind::Write,
            2 => AccessKind::InstructionFetch,
            _ => AccessKind::Read,
        };
        let bits = u64::from(u16::from_le_bytes([access[1], access[2]]));
        let address = match (access[0] >> 2) & 3 {
            0 => bits,
            1 => u64::MAX - bits,
            2 => bits << 48 | bits,
            _ => (bits & 0x3ff) % (8 * line_size),
        };
        let expected = naive.access(address >> line_shift, kind);
        let got = calculator.access(address, kind);
        assert_eq!(got, expected, "access {step}: {kind:?} at {address:#x}");
        assert_eq!(calculator.evictions(), naive.evictions, "access {step}");
        assert_eq!(
            calculator.tracked_lines(),
            naive.lines.len(),
            "access {step}"
        );
    }
    assert_eq!(calculator.reads(), &naive.reads);
    assert_eq!(calculator.writes(), &naive.writes);
}
