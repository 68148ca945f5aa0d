//! End-to-end tests of spusim with the probe framework's listeners attached (--pmu,
//! --stack-distance, --din).

mod common;

use std::path::PathBuf;

use common::{program, spusim, stderr, stdout, temp_program};

/// The count printed for `event` by `--pmu` (`<count>  <EVENT>` lines).
fn pmu_count(text: &str, event: &str) -> u64 {
    text.lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            let count = words.next()?;
            (words.next()? == event && words.next().is_none()).then(|| count.parse().ok())?
        })
        .unwrap_or_else(|| panic!("no count for {event} in\n{text}"))
}

/// The last number of the statistics line starting with `label`.
fn stats_number(text: &str, label: &str) -> u64 {
    text.lines()
        .find_map(|line| {
            let rest = line.strip_prefix(label)?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no statistics line {label:?} in\n{text}"))
}

#[test]
fn pmu_counts_what_dot_product_does() {
    // dot.s: 40 instructions (see every_example_program_stops_cleanly); its loop runs 4 times
    // with 2 lqd and 1 brnz each, and it stores nothing.
    let events = "CPU_CYCLES,INST_RETIRED,LD_RETIRED,ST_RETIRED,BR_RETIRED,BR_MIS_PRED";
    let output = spusim(&["--mode", "instruction", "--pmu", events, &program("dot.s")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(pmu_count(&text, "INST_RETIRED"), 40);
    assert_eq!(
        pmu_count(&text, "CPU_CYCLES"),
        40,
        "one cycle per instruction"
    );
    assert_eq!(pmu_count(&text, "LD_RETIRED"), 8);
    assert_eq!(pmu_count(&text, "ST_RETIRED"), 0);
    assert_eq!(pmu_count(&text, "BR_RETIRED"), 4);
    assert_eq!(
        pmu_count(&text, "BR_MIS_PRED"),
        0,
        "no predictor in instruction mode"
    );

    // The real fetch predicts unhinted branches not taken: the loop branch is taken 3 times.
    let output = spusim(&["--fetch", "real", "--pmu", events, &program("dot.s")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(pmu_count(&text, "INST_RETIRED"), 40);
    assert_eq!(pmu_count(&text, "BR_MIS_PRED"), 3);
    // The PMU's cycles are the run's cycles (final line: `..., N instructions, C cycles`).
    let last = text.lines().last().unwrap_or_default();
    let cycles: u64 = last
        .rsplit(", ")
        .next()
        .and_then(|c| c.strip_suffix(" cycles"))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("final line {last:?}"));
    assert_eq!(pmu_count(&text, "CPU_CYCLES"), cycles);
}

#[test]
fn pmu_stall_events_split_the_stall_cycles_of_the_statistics() {
    let output = spusim(&[
        "--fetch",
        "real",
        "--stats",
        "--pmu",
        "CPU_CYCLES,STALL_FRONTEND,STALL_BACKEND",
        &program("dot.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let issued = stats_number(&text, "Single cycle")
        + stats_number(&text, "Dual cycle")
        + stats_number(&text, "Nop cycle");
    let total = stats_number(&text, "Total cycle");
    assert_eq!(pmu_count(&text, "CPU_CYCLES"), total);
    // A cycle with nothing issued is a front-end or a back-end stall, never both.
    assert_eq!(
        pmu_count(&text, "STALL_FRONTEND") + pmu_count(&text, "STALL_BACKEND"),
        total - issued
    );
    assert_eq!(
        pmu_count(&text, "STALL_BACKEND"),
        stats_number(&text, "Stall due to dependency")
            + stats_number(&text, "Stall due to fp resource conflict")
            + stats_number(&text, "Stall due to dp pipeline")
    );
}

#[test]
fn pmu_refuses_more_events_than_counters() {
    let output = spusim(&[
        "--pmu",
        "INST_RETIRED,LD_RETIRED,ST_RETIRED,BR_RETIRED,BR_MIS_PRED,STALL_FRONTEND,STALL_BACKEND",
        &program("dot.s"),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the emulated PMU has 6"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn stack_distance_histogram_follows_the_definition() {
    // Reads a, b, a, a, then writes a (16-byte lines): distances inf, inf, 1 (b in between),
    // 0; the write 0.
    let path = temp_program(
        "stack_distance.s",
        "_start: lqa $3,a\n lqa $4,b\n lqa $5,a\n lqa $6,a\n stqa $6,a\n stop\n\
         .data\n .align 4\na: .word 1,2,3,4\nb: .word 5,6,7,8\n",
    );
    for mode in ["instruction", "pipeline"] {
        let output = spusim(&["--mode", mode, "--stack-distance", &path]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = stdout(&output);
        let reads = text.split("  reads: ").nth(1).expect("reads block");
        let (reads, writes) = reads.split_once("  writes: ").expect("writes block");
        assert!(reads.starts_with("4 accesses"), "{text}");
        let bin = |block: &str, label: &str| -> u64 {
            block
                .lines()
                .find_map(|line| {
                    let rest = line.trim_start().strip_prefix(label)?;
                    rest.split_whitespace().next()?.parse().ok()
                })
                .unwrap_or_else(|| panic!("no bin {label:?} in\n{block}"))
        };
        assert_eq!(bin(reads, "0 "), 1, "{text}");
        assert_eq!(bin(reads, "1 "), 1, "{text}");
        assert_eq!(bin(reads, "first use "), 2, "{text}");
        assert!(writes.starts_with("1 accesses"), "{text}");
        assert_eq!(bin(writes, "0 "), 1, "{text}");
        assert_eq!(bin(writes, "first use "), 0, "{text}");
    }
}

#[test]
fn din_file_holds_every_data_access_in_order() {
    // dot.s: .data starts at 0x80, where spu-ld's `ALIGN(0x80)` after the 76 bytes of text
    // puts it: vec_a = 0x80, vec_b = 0xc0. Each iteration loads a quadword of vec_a, then of
    // vec_b.
    let expected = "0 80\n0 c0\n0 90\n0 d0\n0 a0\n0 e0\n0 b0\n0 f0\n";
    for mode in ["instruction", "pipeline"] {
        let din = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("dot-{mode}.din"));
        let _ = std::fs::remove_file(&din);
        let output = spusim(&[
            "--mode",
            mode,
            "--din",
            &din.display().to_string(),
            &program("dot.s"),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(stdout(&output).contains("din: wrote 8 records"));
        assert_eq!(std::fs::read_to_string(&din).unwrap(), expected, "{mode}");
    }
}

#[test]
fn din_trace_of_a_long_run_is_complete() {
    // demo_saxpy.s: 128 stores of x and 128 of y, then 32 passes over 128 quadwords with 2
    // loads and 1 store each, and one lqa: 8193 reads and 4352 writes, more than the trace
    // ring holds at once (it is drained between slices).
    let din = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("saxpy.din");
    let output = spusim(&[
        "--mode",
        "instruction",
        "--din",
        &din.display().to_string(),
        &program("demo_saxpy.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = std::fs::read_to_string(&din).unwrap();
    let reads = text.lines().filter(|l| l.starts_with("0 ")).count();
    let writes = text.lines().filter(|l| l.starts_with("1 ")).count();
    assert_eq!((reads, writes), (8193, 4352));
    assert!(text.lines().all(|l| {
        let (label, address) = l.split_once(' ').unwrap_or(("", ""));
        matches!(label, "0" | "1") && u32::from_str_radix(address, 16).is_ok()
    }));
}
