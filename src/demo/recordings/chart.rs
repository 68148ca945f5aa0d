//! The stack distance histogram as a text chart (log2 bins, reads and writes side by side).

use crate::demo::shared::output::outln;
use pmprobe::probe::listeners::{DistanceHistograms, StackDistance};

/// Bar width of the largest bin.
const BAR: u64 = 40;

fn bar(count: u64, max: u64) -> heapless::String<{ BAR as usize }> {
    let mut s = heapless::String::new();
    // Round up so that every non-empty bin shows at least one mark.
    let len = if max == 0 {
        0
    } else {
        (count * BAR).div_ceil(max)
    };
    for _ in 0..len {
        let _ = s.push('#');
    }
    s
}

fn range_label(bin: usize) -> heapless::String<16> {
    let mut s = heapless::String::new();
    let _ = match bin {
        0 => core::fmt::write(&mut s, format_args!("0")),
        1 => core::fmt::write(&mut s, format_args!("1")),
        k => core::fmt::write(
            &mut s,
            format_args!("{}-{}", 1u64 << (k - 1), (1u64 << k) - 1),
        ),
    };
    s
}

/// Prints both histograms of `calculator`.
pub fn print<const W: usize, const LIN: usize>(calculator: &StackDistance<W, LIN>) {
    // Bins up to the largest non-empty one of either direction (at least 0 and 1).
    let last = [calculator.reads(), calculator.writes()]
        .iter()
        .filter_map(|h| h.log2.iter().rposition(|&n| n > 0))
        .max()
        .unwrap_or(0)
        .max(1);
    for (name, histograms) in [
        ("reads", calculator.reads()),
        ("writes", calculator.writes()),
    ] {
        print_one(name, histograms, last + 1);
    }
}

fn print_one<const LIN: usize>(name: &str, h: &DistanceHistograms<LIN>, shown_bins: usize) {
    let max = h
        .log2
        .iter()
        .chain([&h.infinite])
        .copied()
        .max()
        .unwrap_or(0);
    outln!("  {name}: {} accesses", h.total());
    outln!("    {:>9}  {:>6}", "distance", "count");
    for bin in 0..shown_bins {
        let count = h.log2.get(bin).copied().unwrap_or(0);
        outln!(
            "    {:>9}  {count:>6}  {}",
            range_label(bin),
            bar(count, max)
        );
    }
    outln!(
        "    {:>9}  {:>6}  {}",
        "first use",
        h.infinite,
        bar(h.infinite, max)
    );
}
