//! `--ctf DIR`: the run as a CTF 1.8 trace, read back by babeltrace2 (the reference reader)
//! and checked against the same run's own figures: the PMU counts `--pmu` prints, the
//! statistics and DMA figures of `--stats`.
//!
//! The stall reasons' labels pair with the statistics' lines as `docs/spusim.md` and
//! `docs/ctf.md` name them: `initialisation` is "SPU Initialization cycle", `channel` is
//! "Channel stall cycle", the others "Stall due to ..." (the per-class dependency stalls are
//! the "Stall cycles due to dependency on each pipelines" table).

mod common;

#[allow(dead_code)] // each test uses a part of it
#[path = "../../../tests/common/babeltrace.rs"]
mod babeltrace;

use std::path::PathBuf;

use babeltrace::read_trace;
use common::{program, spusim, stderr, stdout};

const EVENTS: &str = "CPU_CYCLES,INST_RETIRED,LD_RETIRED,ST_RETIRED,STALL_FRONTEND,STALL_BACKEND";

/// The first number after `label` on the line that starts with it.
fn figure(text: &str, label: &str) -> u64 {
    text.lines()
        .find_map(|line| {
            let rest = line.trim_start().strip_prefix(label)?;
            rest.split_whitespace().find_map(|word| word.parse().ok())
        })
        .unwrap_or_else(|| panic!("no line {label:?} in\n{text}"))
}

/// A count of the PMU table (`         16384  LD_RETIRED`).
fn pmu_count(text: &str, event: &str) -> u64 {
    text.lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            let count = words.next()?.parse().ok()?;
            (words.next()? == event).then_some(count)
        })
        .unwrap_or_else(|| panic!("no PMU line for {event} in\n{text}"))
}

/// The stream demo (docs/spu-mfc.md): 16 blocks of 16 KiB, two buffers, in `mode`, traced
/// into a fresh directory of the test's (`test`); the trace's directory and spusim's output.
fn traced_stream(test: &str, mode: &str) -> (PathBuf, String) {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ctf-{test}-{mode}"));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let input = scratch.join("input.bin");
    let bytes: Vec<u8> = (0..256 * 1024u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&input, bytes).unwrap();
    let dir = scratch.join("trace");
    let dir_text = dir.display().to_string();
    let load = format!("{}@0", input.display());
    let program = program("demo_stream.s");
    let output = spusim(&[
        "--mode",
        mode,
        "--stats",
        "--pmu",
        EVENTS,
        "--ctf",
        &dir_text,
        "--ea-load",
        &load,
        "--in-mbox",
        "2",
        "--in-mbox",
        "0",
        "--in-mbox",
        "0x100000",
        "--in-mbox",
        "16",
        &program,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    (dir, stdout(&output))
}

#[test]
fn the_trace_holds_every_access_transfer_stall_and_reading_of_the_run() {
    for mode in ["pipeline", "instruction"] {
        let (dir, text) = traced_stream("whole", mode);
        let trace = read_trace(&dir);
        assert!(trace.warnings.is_empty(), "{mode}: {:?}", trace.warnings);
        // The final line: `stop 0x2000 at pc 0x001a4: N instructions, C cycles`.
        let cycles = pmu_count(&text, "CPU_CYCLES");
        assert!(
            text.contains(&format!(" instructions, {cycles} cycles\n")),
            "{text}"
        );

        // Loads and stores: one event each, as many as the PMU counted, in time order.
        let loads = trace.count("mem_read") as u64;
        let stores = trace.count("mem_write") as u64;
        assert_eq!(loads, pmu_count(&text, "LD_RETIRED"), "{mode}");
        assert_eq!(stores, pmu_count(&text, "ST_RETIRED"), "{mode}");
        assert_eq!(
            loads,
            16 * 1024,
            "{mode}: 256 KiB read a quadword at a time"
        );
        for access in trace.named("mem_read").chain(trace.named("mem_write")) {
            assert!(
                access.cycle <= cycles && access.cycle > 0,
                "{mode}: {access:?}"
            );
            assert_eq!(access.number("size"), 16);
            assert!(access.number("address") < 256 * 1024 && access.number("pc") < 0x400);
        }

        // DMA: every transfer, its bytes as --stats counts them, issued before it completed.
        let transfers: Vec<_> = trace.named("dma").collect();
        assert_eq!(
            transfers.len() as u64,
            figure(&text, "DMA transfers"),
            "{mode}"
        );
        let bytes = |prefix: &str| -> u64 {
            transfers
                .iter()
                .filter(|t| t.label("command").starts_with(prefix))
                .map(|t| t.number("size"))
                .sum()
        };
        assert_eq!(bytes("get"), figure(&text, "DMA bytes in (get)"), "{mode}");
        assert_eq!(bytes("put"), figure(&text, "DMA bytes out (put)"), "{mode}");
        for transfer in &transfers {
            assert!(transfer.number("issued") <= transfer.cycle, "{transfer:?}");
            assert_eq!(transfer.number("size"), 16 * 1024);
        }
        if mode == "pipeline" {
            // A transfer of 16 KiB at the MFC's 8 bytes a cycle takes at least 2048 cycles.
            assert!(
                transfers
                    .iter()
                    .all(|t| t.cycle - t.number("issued") >= 2048),
                "{transfers:?}"
            );
        }

        // PMU readings after every slice of 4096 cycles and at the end: the last of each
        // counter is what the PMU table prints, at the run's last cycle.
        let readings: Vec<_> = trace.named("pmu_count").collect();
        assert_eq!(readings.len() as u64, cycles.div_ceil(4096) * 6, "{mode}");
        for event in EVENTS.split(',') {
            let last = readings
                .iter()
                .rfind(|r| r.label("counter") == event)
                .unwrap();
            assert_eq!(
                last.number("raw"),
                pmu_count(&text, event),
                "{mode} {event}"
            );
            assert_eq!(last.cycle, cycles, "{mode} {event}");
        }

        // The line spusim prints says what babeltrace2 read.
        let line = format!(
            "ctf: wrote {} memory, {} dma, {} stalls, 0 pc_events, {} pmu events to {}",
            loads + stores,
            transfers.len(),
            trace.count("stall"),
            readings.len(),
            dir.display()
        );
        assert!(text.contains(&line), "{mode}: {line}\n{text}");
    }
}

#[test]
fn stalled_cycles_add_up_to_the_statistics_reason_by_reason() {
    let (dir, text) = traced_stream("stalls", "pipeline");
    let trace = read_trace(&dir);
    let sum = |label: &str| -> u64 {
        trace
            .named("stall")
            .filter(|s| s.label("reason") == label)
            .map(|s| s.number("cycles"))
            .sum()
    };
    let reasons = [
        ("initialisation", "SPU Initialization cycle"),
        ("branch_miss", "Stall due to branch miss"),
        ("prefetch_miss", "Stall due to prefetch miss"),
        ("fp_resource", "Stall due to fp resource conflict"),
        ("hint_target", "Stall due to waiting for hint target"),
        ("dp_pipeline", "Stall due to dp pipeline"),
        ("channel", "Channel stall cycle"),
        ("channel_wait", "Stall due to channel wait (MFC, events)"),
        ("dma_local_store", "Stall due to DMA at the LS port"),
    ];
    for (label, line) in reasons {
        assert_eq!(sum(label), figure(&text, line), "{label}");
    }
    let mut dependencies = 0;
    for class in [
        "FX2", "SHUF", "FX3", "LS", "BR", "SPR", "LNOP", "NOP", "FXB", "FP6", "FP7", "FPD",
    ] {
        let stalls = sum(&format!("dependency_{class}"));
        assert_eq!(stalls, figure(&text, class), "{class}");
        dependencies += stalls;
    }
    assert_eq!(dependencies, figure(&text, "Stall due to dependency"));
    // The run stalls for several reasons, each a non-trivial share: the check is not vacuous.
    assert!(sum("channel_wait") > 1000 && sum("dependency_LS") > 1000 && sum("branch_miss") > 100);
    // A stall event is a run of cycles: runs of one reason never touch each other, and no two
    // runs overlap.
    let stalls: Vec<_> = trace.named("stall").collect();
    for pair in stalls.windows(2) {
        let end = pair[0].cycle + pair[0].number("cycles");
        assert!(end <= pair[1].cycle, "{pair:?}");
        assert!(
            end < pair[1].cycle || pair[0].label("reason") != pair[1].label("reason"),
            "{pair:?}"
        );
    }
}

#[test]
fn a_trace_directory_that_cannot_be_made_is_a_clear_error() {
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ctf-not-a-directory");
    std::fs::write(&file, "a file").unwrap();
    let inside = file.join("trace").display().to_string();
    let output = spusim(&["--ctf", &inside, &program("loop.s")]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("--ctf: cannot create") && message.contains("ctf-not-a-directory"),
        "{message}"
    );
}
