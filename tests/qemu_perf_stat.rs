//! The demo's perf stat options on QEMU (`-e`, `-r`, `-x`): the measured work (SPU3's
//! instruction-mode run) counted by the boot core's real PMU, printed as perf stat prints.
//!
//! Expected values and layouts come from outside this project:
//! - perf's CSV layout (`tools/perf/util/stat-display.c`, perf 6.1): `value,unit,event`, with
//!   `-r` the noise `%.2f%%`, then the time running and its percentage, then the metric and its
//!   unit (both empty without one): 8 fields; no header or footer. The standard layout: the
//!   header ` Performance counter stats for '...' (N runs):`, the count in 18 columns, the unit
//!   column (4) and the name from column 24, the noise only when not 0, the footer
//!   `... +- ... seconds time elapsed`.
//! - perf's shadow metric: instructions / cycles of the same context (`evsel_context`).
//! - The Arm ARM: PMEVTYPER.P excludes EL1, where the demo runs, so `instructions:u` counts 0
//!   and `:k` counts what the unfiltered event counts; QEMU 7.2 under `-icount shift=0` counts
//!   one cycle per instruction and runs the same work in the same instructions every time
//!   (noise 0.00%); its PMCEID0 (0x20101) has no PC_WRITE_RETIRED, which perf's `branches` is on
//!   Arm (`armv8_pmuv3_perf_map`), so `<not supported>`; without `-icount` it has no
//!   INST_RETIRED and its cycles follow the host's clock (a noise that is not 0).
mod common;

use common::demo::{DemoRun, run_demo_with};

fn run(name: &str, runner: &[&str], guest: &[&str]) -> DemoRun {
    let mut runner_args = vec!["--smp", "1"];
    runner_args.extend_from_slice(runner);
    run_demo_with(name, &runner_args, guest)
}

#[test]
fn csv_counts_are_exact_and_the_same_every_run_under_icount() {
    let events = "instructions,instructions:k,instructions:u,{cycles,instructions},branches";
    let run = run("perf-stat-csv", &[], &["-e", events, "-r", "3", "-x", ","]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    let lines: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .filter(|l| l.contains(",,"))
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(lines.len(), 6, "{}", run.context());
    for line in &lines {
        assert_eq!(line.len(), 8, "{line:?}");
        assert_eq!(line[1], "", "the unit of a PMU event is empty: {line:?}");
        assert_eq!(line[3], "0.00%", "no noise under -icount: {line:?}");
    }
    let names: Vec<&str> = lines.iter().map(|l| l[2]).collect();
    assert_eq!(
        names,
        [
            "instructions",
            "instructions:k",
            "instructions:u",
            "cycles",
            "instructions",
            "branches"
        ]
    );
    let count = |i: usize| lines[i][0].parse::<u64>().unwrap();
    assert!(count(0) > 1_000_000, "{:?}", lines[0]);
    assert_eq!(count(1), count(0), ":k counts all of it at EL1");
    assert_eq!(count(2), 0, ":u excludes EL1");
    assert_eq!(
        count(3),
        count(4),
        "one cycle per instruction under -icount"
    );
    assert_eq!(count(4), count(0));
    // Every counted event ran all the time (they fit on the counters: no multiplexing).
    for line in &lines[..5] {
        assert!(line[4].parse::<u64>().unwrap() > 0, "{line:?}");
        assert_eq!(line[5], "100.00", "{line:?}");
    }
    // IPC only where a cycles count of the same context exists.
    assert_eq!(lines[0][6..], ["1.00", "insn per cycle"]);
    assert_eq!(lines[4][6..], ["1.00", "insn per cycle"]);
    assert_eq!(lines[1][6..], ["", ""]);
    assert_eq!(lines[2][6..], ["", ""]);
    assert_eq!(
        lines[5][..6],
        ["<not supported>", "", "branches", "0.00%", "0", "100.00"]
    );
}

#[test]
fn the_table_has_perfs_header_columns_and_footer() {
    let run = run(
        "perf-stat-table",
        &[],
        &["-e", "{cycles,instructions}:k", "-r", "2"],
    );
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    assert!(
        run.stdout.contains(
            "\n Performance counter stats for 'SPU3 demo_saxpy.s (instruction mode)' (2 runs):\n\n"
        ),
        "{}",
        run.context()
    );
    let line = |name: &str| {
        run.stdout
            .lines()
            .find(|l| {
                l.get(24..)
                    .is_some_and(|rest| rest.starts_with(&format!("{name} ")))
            })
            .unwrap_or_else(|| panic!("no line for {name}\n{}", run.context()))
    };
    let cycles = line("cycles");
    let instructions = line("instructions");
    // Members keep their own names (the group's `:k` is not repeated), counts right-aligned
    // in 18 columns with thousands separators.
    assert_eq!(cycles[..18].trim(), instructions[..18].trim());
    assert!(cycles[..18].trim().contains(','), "{cycles}");
    assert!(
        instructions.contains(" #    1.00  insn per cycle"),
        "{instructions}"
    );
    for counted in [cycles, instructions] {
        assert!(
            !counted.contains("( +-"),
            "a noise of 0 is not printed: {counted}"
        );
    }
    // The elapsed time's mean and deviation: the runs are equally long up to the timer's tick
    // (16 ns at 62.5 MHz) the measurement starts in.
    let footer = run
        .stdout
        .lines()
        .find(|l| l.contains(" seconds time elapsed"))
        .unwrap_or_else(|| panic!("no footer\n{}", run.context()));
    let (mean, rest) = footer.trim_start().split_once(" +- ").unwrap();
    let (deviation, _) = rest.split_once(" seconds time elapsed").unwrap();
    assert!(mean.parse::<f64>().unwrap() > 0.0, "{footer}");
    assert!(deviation.parse::<f64>().unwrap() < 1e-6, "{footer}");
}

#[test]
fn impossible_modifiers_and_unknown_events_are_named() {
    for (events, message) in [
        ("instructions:h", "`h` needs EL2"),
        ("instructions:G", "bare-metal code runs no virtual machine"),
        ("cycles,bogus", "event syntax error at `bogus` (offset 7)"),
        ("cycles:p", "event modifier `p` is not supported"),
    ] {
        let run = run(
            &format!("perf-stat-bad-{}", events.len()),
            &[],
            &["-e", events],
        );
        assert_eq!(run.exit_code, Some(2), "{}", run.context());
        assert!(run.stdout.contains(message), "{message}\n{}", run.context());
    }
}

#[test]
fn without_icount_the_noise_is_real() {
    let run = run(
        "perf-stat-no-icount",
        &["--no-icount"],
        &["-e", "cycles,instructions", "-r", "3"],
    );
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    let cycles = run
        .stdout
        .lines()
        .find(|l| l.get(24..).is_some_and(|rest| rest.starts_with("cycles ")))
        .unwrap_or_else(|| panic!("no cycles line\n{}", run.context()));
    let noise = cycles
        .split_once("( +-")
        .and_then(|(_, rest)| rest.trim().strip_suffix("% )"))
        .and_then(|n| n.trim().parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no noise on {cycles:?}"));
    assert!(noise > 0.0, "{cycles}");
    assert!(
        run.stdout.contains("   <not supported>      instructions"),
        "{}",
        run.context()
    );
}
