//! The demo's MFC sections, read back from its output: the stream's table (double buffering
//! waits less), the work queue's (every item taken, reservations lost) and the handshake's
//! placement, with the checks each section must have passed.
use super::demo::DemoRun;

/// Asserts every `check NAME ... ok` line of `names` in `section`.
fn assert_checks(section: &str, names: &[&str]) {
    for name in names {
        assert!(
            section.contains(&format!("check {name} ... ok")),
            "{name}\n{section}"
        );
    }
}

/// The numbers of the row of `section` whose first word is `first` (the words that parse).
fn row(section: &str, first: &str) -> Vec<u64> {
    section
        .lines()
        .find(|line| line.split_whitespace().next() == Some(first))
        .unwrap_or_else(|| panic!("no row {first:?} in\n{section}"))
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect()
}

/// The three MFC sections ran and held, the handshake's SPUs on cores `first` and `second`.
pub fn assert_mfc(run: &DemoRun, first: usize, second: usize) {
    let stream = run.section("MFC streaming");
    assert_checks(
        stream,
        &[
            "stream_1buf_result",
            "stream_1buf_wait_vs_mfc",
            "stream_1buf_bytes",
            "stream_2buf_result",
            "stream_2buf_wait_vs_mfc",
            "stream_2buf_bytes",
            "stream_double_buffering_waits_less",
        ],
    );
    // buffers, cycles, instructions, DMA wait, ...
    let (one, two) = (row(stream, "1"), row(stream, "2"));
    assert!(two[3] < one[3] && two[1] < one[1], "{stream}");
    assert!(one[2].abs_diff(two[2]) < 1000, "the same work: {stream}");

    let queue = run.section("MFC work queue");
    assert_checks(
        queue,
        &[
            "workqueue_stops",
            "workqueue_every_item_once",
            "workqueue_failures_kernel_vs_mfc",
            "workqueue_reservations_lost",
        ],
    );
    // all, items, putllc failed, interleaved, rest.
    let all = row(queue, "all");
    assert_eq!(all[0], 512, "{queue}");
    assert!(all[1] > 0 && all[1] == all[2] + all[3], "{queue}");
    let taken: u64 = (0..8).map(|spu| row(queue, &format!("SPU{spu}"))[1]).sum();
    assert_eq!(taken, 512, "{queue}");

    let signals = run.section("MFC signals");
    assert!(
        signals.contains(&format!(
            "SPU6 (core {first}) <-> SPU7 (core {second}), 64 rounds each"
        )),
        "{signals}"
    );
    assert_checks(
        signals,
        &["handshake_stops", "handshake_values", "handshake_rounds"],
    );
}
