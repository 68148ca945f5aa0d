//! Host tests of the stack distance calculator: hand-worked sequences from the definition
//! (distinct other lines since the line's last access; first touch infinite), the histogram
//! layout, and a property test against a naive O(n) LRU stack.

use pmprobe::probe::listeners::{
    AccessKind, Distance, MemAccess, StackDistance, StackDistanceError,
};
use pmprobe::probe::listeners::{DistanceHistograms, LOG2_BINS};
use pmprobe::probe::{MutListener, ProbePoint};

use AccessKind::{InstructionFetch, Read, Write};
use Distance::{Finite, Infinite};

#[test]
fn distances_follow_the_definition_on_a_worked_sequence() {
    // 64-byte lines: A = 0x1000, B = 0x2000, C = 0x3000.
    let mut sd: StackDistance<16, 8> = StackDistance::new(64).unwrap();
    assert_eq!(sd.access(0x1000, Read), Infinite); // A
    assert_eq!(sd.access(0x2000, Read), Infinite); // B
    assert_eq!(sd.access(0x103f, Read), Finite(1)); // A again (same line), B in between
    assert_eq!(sd.access(0x1008, Read), Finite(0)); // A twice in a row
    assert_eq!(sd.access(0x3000, Read), Infinite); // C
    assert_eq!(sd.access(0x2010, Read), Finite(2)); // B: A and C since
    assert_eq!(sd.access(0x1040, Read), Infinite); // next line after A: new
    assert_eq!(sd.tracked_lines(), 4);
    assert_eq!(sd.evictions(), 0);
}

#[test]
fn repeated_touches_of_many_lines_count_each_line_once() {
    let mut sd: StackDistance<16, 8> = StackDistance::new(1).unwrap();
    for address in [1, 2, 2, 3, 2, 3, 4] {
        sd.access(address, Read);
    }
    // Since the last access to 1: lines 2, 3, 4 (repeats count once).
    assert_eq!(sd.access(1, Read), Finite(3));
}

#[test]
fn line_size_must_be_a_power_of_two() {
    assert_eq!(
        StackDistance::<16, 8>::new(48).err(),
        Some(StackDistanceError::LineSizeNotPowerOfTwo(48))
    );
    assert_eq!(
        StackDistance::<16, 8>::new(0).err(),
        Some(StackDistanceError::LineSizeNotPowerOfTwo(0))
    );
    assert_eq!(
        StackDistance::<0, 8>::new(64).err(),
        Some(StackDistanceError::ZeroCapacity)
    );
    assert_eq!(StackDistance::<16, 8>::new(128).unwrap().line_size(), 128);
}

#[test]
fn histograms_are_split_by_direction_with_linear_and_log2_bins() {
    let mut sd: StackDistance<16, 4> = StackDistance::new(1).unwrap();
    // Lines 0..=5 read once each: 6 infinite reads.
    for line in 0..6 {
        sd.access(line, Read);
    }
    sd.access(5, Write); // distance 0
    sd.access(4, Write); // distance 1 (line 5)
    sd.access(2, Read); // distance 3 (lines 3, 5, 4)
    sd.access(0, InstructionFetch); // distance 5 (1, 3, 5, 4, 2): counted as a read
    sd.access(9, Write); // infinite write

    let reads = sd.reads();
    assert_eq!(reads.infinite, 6);
    assert_eq!(reads.linear, [0, 0, 0, 1]);
    assert_eq!(reads.linear_overflow, 1);
    let mut log2 = [0u64; LOG2_BINS];
    log2[2] = 1; // 3 is in [2, 4)
    log2[3] = 1; // 5 is in [4, 8)
    assert_eq!(reads.log2, log2);
    assert_eq!(reads.total(), 8);

    let writes = sd.writes();
    assert_eq!(writes.infinite, 1);
    assert_eq!(writes.linear, [1, 1, 0, 0]);
    assert_eq!(writes.linear_overflow, 0);
    let mut log2 = [0u64; LOG2_BINS];
    log2[0] = 1; // distance 0 has its own bin ...
    log2[1] = 1; // ... and distance 1 the next one: no 0/1 swap
    assert_eq!(writes.log2, log2);
}

#[test]
fn log2_bins_hold_powers_of_two_ranges() {
    type H = DistanceHistograms<1>;
    assert_eq!(H::log2_bin(0), 0);
    assert_eq!(H::log2_bin(1), 1);
    assert_eq!(H::log2_bin(2), 2);
    assert_eq!(H::log2_bin(3), 2);
    assert_eq!(H::log2_bin(4), 3);
    assert_eq!(H::log2_bin(1023), 10);
    assert_eq!(H::log2_bin(1024), 11);
    assert_eq!(H::log2_bin(u64::MAX), 64);
}

#[test]
fn beyond_w_lines_the_least_recent_is_forgotten_and_counted() {
    let mut sd: StackDistance<4, 4> = StackDistance::new(1).unwrap();
    for line in 0..4 {
        sd.access(line, Read);
    }
    assert_eq!(sd.evictions(), 0);
    sd.access(4, Read); // evicts line 0
    assert_eq!(sd.evictions(), 1);
    assert_eq!(sd.tracked_lines(), 4);
    assert_eq!(sd.access(1, Read), Finite(3)); // 2, 3, 4: still exact
    assert_eq!(sd.access(0, Read), Infinite); // forgotten: reported infinite (true: 4)
    assert_eq!(sd.evictions(), 2); // bringing 0 back evicted 2
}

#[test]
fn it_is_a_listener_of_memory_access_points() {
    let sd = MutListener::new(StackDistance::<16, 4>::new(64).unwrap());
    let point: ProbePoint<MemAccess, 2> = ProbePoint::new();
    point.add_object(&sd).unwrap();
    for address in [0x0, 0x40, 0x0] {
        point.notify(&MemAccess {
            tick: 0,
            pc: 0,
            address,
            size: 8,
            kind: Read,
        });
    }
    let (infinite, one) = sd
        .with(|sd| (sd.reads().infinite, sd.reads().linear[1]))
        .unwrap();
    assert_eq!((infinite, one), (2, 1));
}

/// The reference: an LRU stack, most recent first, limited to `depth` lines.
struct NaiveStack {
    lines: Vec<u64>,
    depth: usize,
    dropped: u64,
}

impl NaiveStack {
    fn access(&mut self, line: u64) -> Distance {
        let distance = match self.lines.iter().position(|&l| l == line) {
            Some(position) => {
                self.lines.remove(position);
                Finite(position as u64)
            }
            None => Infinite,
        };
        self.lines.insert(0, line);
        if self.lines.len() > self.depth {
            self.lines.pop();
            self.dropped += 1;
        }
        distance
    }
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn compare_with_naive<const W: usize>(distinct_lines: u64, accesses: usize, seed: u64) {
    let mut sd: StackDistance<W, 64> = StackDistance::new(32).unwrap();
    let mut naive = NaiveStack {
        lines: Vec::new(),
        depth: W,
        dropped: 0,
    };
    let mut reads = DistanceHistograms::<64>::new();
    let mut writes = DistanceHistograms::<64>::new();
    let mut rng = seed;
    for step in 0..accesses {
        let r = xorshift(&mut rng);
        // Skewed reuse: half the accesses go to a small hot set.
        let line = if r & 1 == 0 {
            (r >> 8) % (distinct_lines / 8 + 1)
        } else {
            (r >> 8) % distinct_lines
        };
        let address = line * 32 + (r >> 40) % 32;
        let kind = if r & 2 == 0 { Read } else { Write };
        let expected = naive.access(line);
        assert_eq!(
            sd.access(address, kind),
            expected,
            "access {step}, line {line}"
        );
        if kind == Write {
            writes.record(expected);
        } else {
            reads.record(expected);
        }
    }
    assert_eq!(sd.evictions(), naive.dropped);
    assert_eq!(sd.reads(), &reads);
    assert_eq!(sd.writes(), &writes);
}

#[test]
fn matches_a_naive_lru_stack_when_all_lines_fit() {
    compare_with_naive::<256>(200, 20_000, 0x9e37_79b9_7f4a_7c15);
}

#[test]
fn matches_a_depth_limited_naive_stack_beyond_w_lines() {
    compare_with_naive::<32>(100, 20_000, 0xdead_beef_cafe_f00d);
}

#[test]
fn matches_the_naive_stack_with_few_lines_and_many_renumberings() {
    compare_with_naive::<8>(6, 5_000, 42);
}

#[test]
fn reset_forgets_everything() {
    let mut sd: StackDistance<8, 4> = StackDistance::new(1).unwrap();
    sd.access(1, Read);
    sd.access(1, Write);
    sd.reset();
    assert_eq!(sd.tracked_lines(), 0);
    assert_eq!(sd.reads().total() + sd.writes().total(), 0);
    assert_eq!(sd.access(1, Read), Infinite);
}

#[test]
fn reset_with_line_size_forgets_the_lines_and_groups_by_the_new_size() {
    // Starts as a 1-byte-line calculator (the all-zero state a static can hold).
    let mut sd: StackDistance<16, 8> = StackDistance::new(1).unwrap();
    assert_eq!(sd.access(0x1000, Read), Infinite);
    assert_eq!(sd.access(0x1008, Read), Infinite); // another 1-byte line
    sd.reset_with_line_size(64).unwrap();
    assert_eq!(sd.line_size(), 64);
    assert_eq!(sd.tracked_lines(), 0);
    assert_eq!(sd.reads().total(), 0);
    assert_eq!(sd.access(0x1000, Read), Infinite); // forgotten: new again
    assert_eq!(sd.access(0x1008, Read), Finite(0)); // now the same 64-byte line
    assert_eq!(
        sd.reset_with_line_size(48),
        Err(StackDistanceError::LineSizeNotPowerOfTwo(48))
    );
    assert_eq!(sd.line_size(), 64, "a refused size changes nothing");
    assert_eq!(sd.tracked_lines(), 1);
}
