//! End-to-end tests of the spusim binary: modes, fetch models, statistics, listings, traces,
//! errors. The probe framework's listeners on spusim runs are in `cli_listeners.rs`.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::{program, spusim, stderr, stdout, temp_program};

#[test]
fn loop_program_prints_checkpoints_and_the_final_line() {
    let output = spusim(&["--mode", "instruction", &program("loop.s")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // loop.s: stop is the 9th word (pc 0x20); cp0, cp30, 2 il, 300 loop instructions,
    // cp31, stop = 306 instructions; one cycle each in instruction mode.
    assert_eq!(
        stdout(&output),
        "SPU0: CP0, 0(0), 0\n\
         SPU0: CP30, 0(0), 0\n\
         SPU0: CP31, 303(302), 303\n\
         stop 0x2000 at pc 0x00020: 306 instructions, 306 cycles\n"
    );
}

#[test]
fn every_example_program_stops_cleanly() {
    for (name, instructions) in [("call.s", 6), ("memcpy.s", 3 + 4 * 6 + 1), ("dot.s", 40)] {
        let output = spusim(&["--mode", "instruction", &program(name)]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        let last = stdout(&output)
            .lines()
            .last()
            .unwrap_or_default()
            .to_string();
        assert!(
            last.starts_with("stop 0x2000 at pc ")
                && last.ends_with(&format!(
                    ": {instructions} instructions, {instructions} cycles"
                )),
            "{name}: {last}"
        );
    }
}

#[test]
fn regs_and_disasm() {
    let output = spusim(&[
        "--mode",
        "instruction",
        "--regs",
        "--disasm",
        &program("call.s"),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(
        text.contains("_start:\n  0x0000: 40800383  il\t$3,7\n"),
        "{text}"
    );
    assert!(text.contains("brsl\t$0,square"), "{text}");
    assert!(text.contains("square:\n"), "{text}");
    // 7 * 7 = 49 = 0x31 in every word (il splats), $5 = 50; $1 = top of LS - 16.
    assert!(
        text.contains("$3   00000031 00000031 00000031 00000031\n"),
        "{text}"
    );
    assert!(
        text.contains("$5   00000032 00000032 00000032 00000032\n"),
        "{text}"
    );
    assert!(
        text.contains("$1   0003fff0 00000000 00000000 00000000\n"),
        "{text}"
    );
    assert!(!text.contains("$2 "), "zero registers are not printed");
    let output = spusim(&["--disasm", &program("memcpy.s")]);
    let text = stdout(&output);
    assert!(text.contains("        .data\nsrc:\n"), "{text}");
    assert!(text.contains(": 00010203  .long 0x00010203\n"), "{text}");
}

#[test]
fn assembly_errors_name_file_line_and_column() {
    let path = temp_program("bad.s", "        il $3,5\n        ai $3,$3,1000\n");
    let output = spusim(&[&path]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!("{path}:2:18: operand 3: value 1000 out of range, expected -512..=511\n")
    );
    assert!(stdout(&output).is_empty());
}

#[test]
fn missing_file_is_a_clear_error() {
    let output = spusim(&["/nonexistent/prog.s"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("spusim: cannot read `/nonexistent/prog.s`:"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn real_fetch_pays_for_mispredicted_loop_branches() {
    let ideal = spusim(&["--fetch", "ideal", &program("loop.s")]);
    let real = spusim(&["--fetch", "real", "--stats", &program("loop.s")]);
    assert_eq!(real.status.code(), Some(0), "{}", stderr(&real));
    let cycles = |output: &Output| -> u64 {
        let text = stdout(output);
        let last = text.lines().last().unwrap_or_default().to_string();
        last.rsplit(", ")
            .next()
            .unwrap()
            .trim_end_matches(" cycles")
            .parse()
            .unwrap()
    };
    // 99 taken back-branches, each predicted not taken: at least 17 more cycles each.
    assert!(
        cycles(&real) >= cycles(&ideal) + 99 * 17,
        "{}",
        stdout(&real)
    );
    assert!(
        stdout(&real).contains("Stall due to branch miss"),
        "{}",
        stdout(&real)
    );
}

#[test]
fn real_fetch_is_the_default() {
    // `--fetch real` is the default, so leaving it out must give the real model's
    // run, which differs from the ideal model's (loop.s has 99 unhinted taken branches).
    let default = spusim(&["--stats", &program("loop.s")]);
    let real = spusim(&["--fetch", "real", "--stats", &program("loop.s")]);
    let ideal = spusim(&["--fetch", "ideal", "--stats", &program("loop.s")]);
    assert_eq!(default.status.code(), Some(0), "{}", stderr(&default));
    assert_eq!(stdout(&default), stdout(&real));
    assert_ne!(stdout(&default), stdout(&ideal));
    let help = stdout(&spusim(&["--help"]));
    assert!(help.contains("(default: real"), "{help}");
}

#[test]
fn pipeline_mode_is_the_default_and_counts_cycles() {
    let output = spusim(&["--fetch", "ideal", &program("loop.s")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Each iteration: ai $4 (even address), ai $3 (odd address, even pipe: issues alone
    // the next cycle), brnz waits for ai $3 (FX2 depth 2), ideal fetch brings the loop head
    // without penalty: 4 cycles per iteration, 100 iterations. cp30 -> cp31 also covers
    // the two il and cp31 itself.
    let text = stdout(&output);
    let cp31 = text.lines().nth(2).unwrap_or_default();
    let cycles: u64 = cp31
        .rsplit(", ")
        .next()
        .unwrap_or_default()
        .parse()
        .unwrap();
    assert!((400..=410).contains(&cycles), "{text}");
    assert!(cp31.starts_with("SPU0: CP31, 303(302), "), "{text}");
}

#[test]
fn pipeline_stats_timing_and_config() {
    let output = spusim(&[
        "--fetch",
        "ideal",
        "--stats",
        "--timing",
        &program("loop.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("Total Instruction count         306\n"),
        "{text}"
    );
    assert!(
        text.contains("Performance Instruction count   303 (302)\n"),
        "{text}"
    );
    assert!(
        text.contains("Branch taken                    99\n"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("1 ") && l.ends_with("brnz $3,0x10")),
        "{text}"
    );
    // A deeper FX2 makes the loop slower: brnz waits depth(FX2) cycles for ai $3.
    let slow = spusim(&[
        "--fetch",
        "ideal",
        "--config",
        "spu/pipe/FX2/depth=6",
        &program("loop.s"),
    ]);
    assert_eq!(slow.status.code(), Some(0), "{}", stderr(&slow));
    let cycles = |output: &Output| -> u64 {
        let text = stdout(output);
        let last = text.lines().last().unwrap_or_default().to_string();
        last.rsplit(", ")
            .next()
            .unwrap()
            .trim_end_matches(" cycles")
            .parse()
            .unwrap()
    };
    // 4 more cycles per iteration (6 instead of 2), 100 iterations, plus the il chain.
    assert!(cycles(&slow) >= cycles(&output) + 400, "{}", stdout(&slow));
    let bad = spusim(&["--config", "spu/pipe/FX9/depth=3", &program("loop.s")]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("spu/pipe/FX9/depth"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn max_cycles_stops_a_long_run_with_an_error() {
    let output = spusim(&[
        "--mode",
        "instruction",
        "--max-cycles",
        "50",
        &program("loop.s"),
    ]);
    assert_eq!(output.status.code(), Some(3));
    let last = stdout(&output)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(
        last.starts_with("error: --max-cycles 50 exceeded at pc "),
        "{last}"
    );
    assert!(last.ends_with(": 50 instructions, 50 cycles"), "{last}");
    // Exactly enough cycles is fine.
    let output = spusim(&[
        "--mode",
        "instruction",
        "--max-cycles",
        "306",
        &program("loop.s"),
    ]);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn faults_and_mailboxes() {
    let path = temp_program(
        "fault.s",
        "_start: il $3,0x55\n wrch SPU_WrOutMbox,$3\n wrch SPU_WrOutMbox,$3\n .word 0x00800000\n",
    );
    let output = spusim(&["--mode", "instruction", &path]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        stdout(&output),
        "SPU0: mailbox 0x00000055\n\
         fault: illegal instruction 0x00800000 at pc 0x0000c: 3 instructions, 3 cycles\n"
    );
    // Channel 5 is reserved in the CBEA's channel map.
    let path = temp_program("channel.s", "rdch $3,$ch5\n");
    let output = spusim(&["--mode", "instruction", &path]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stdout(&output).starts_with("fault: rdch on unsupported channel 5"));
}

#[test]
fn help_and_usage_errors() {
    let output = spusim(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("--max-cycles N"));
    let output = spusim(&["--bogus"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown option `--bogus`"));
}

#[test]
fn pipeline_mode_services_mailboxes_and_reports_faults() {
    let path = temp_program(
        "fault_pipeline.s",
        "_start: il $3,0x55\n wrch SPU_WrOutMbox,$3\n wrch SPU_WrOutMbox,$3\n .word 0x00800000\n",
    );
    let output = spusim(&[&path]);
    assert_eq!(output.status.code(), Some(3));
    let text = stdout(&output);
    assert!(text.starts_with("SPU0: mailbox 0x00000055\n"), "{text}");
    assert!(
        text.contains("fault: illegal instruction 0x00800000 at pc 0x0000c: 3 instructions, "),
        "{text}"
    );
}

#[test]
fn trace_frames_for_a_window_of_cycles() {
    let output = spusim(&[
        "--fetch",
        "real",
        "--trace-from",
        "20",
        "--trace-to",
        "22",
        &program("loop.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let frames: Vec<&str> = text.lines().filter(|l| l.starts_with("cycle ")).collect();
    assert_eq!(frames.len(), 3, "{text}");
    assert!(frames[0].starts_with("cycle 20 "), "{text}");
    assert!(text.contains("pre-fetch ls "), "{text}");
    assert!(text.lines().any(|l| l.starts_with("jj*")), "{text}");
}

#[test]
fn konata_log_records_every_instruction() {
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("loop.kanata");
    let output = spusim(&[
        "--fetch",
        "real",
        "--konata",
        &log.display().to_string(),
        &program("loop.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = std::fs::read_to_string(&log).expect("log written");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("Kanata\t0004"));
    assert!(lines.next().unwrap_or_default().starts_with("C=\t"));
    // Every retired instruction has an R line with type 0; squashed ones type 1.
    let retired = text
        .lines()
        .filter(|l| l.starts_with("R\t") && l.ends_with("\t0"))
        .count();
    let squashed = text
        .lines()
        .filter(|l| l.starts_with("R\t") && l.ends_with("\t1"))
        .count();
    // loop.s retires 306 instructions; the stop's own cycle ends the run before it leaves o.
    assert!((305..=306).contains(&retired), "{retired}");
    assert!(
        squashed > 0,
        "mispredicted back-branches squash wrong-path instructions"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("S\t") && l.ends_with("\tjj"))
    );
}

#[test]
fn konata_log_retires_the_stop() {
    // The run ends in the cycle the `stop` reaches stage o: it completed there, so the log
    // must show it reaching o and retiring, not being flushed.
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stop.kanata");
    let path = temp_program(
        "stop_konata.s",
        "_start: il $3,1\n ai $3,$3,1\n stop 0x2000\n",
    );
    for fetch in ["real", "ideal"] {
        let output = spusim(&[
            "--fetch",
            fetch,
            "--konata",
            &log.display().to_string(),
            &path,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = std::fs::read_to_string(&log).expect("log written");
        let stop_id = text
            .lines()
            .find(|l| l.starts_with("L\t") && l.contains("stop"))
            .and_then(|l| l.split('\t').nth(1))
            .expect("the stop is in the log")
            .to_string();
        let records: Vec<&str> = text
            .lines()
            .filter(|l| l.split('\t').nth(1) == Some(stop_id.as_str()))
            .collect();
        assert!(
            records.contains(&format!("S\t{stop_id}\t0\to").as_str()),
            "{fetch}: {records:?}"
        );
        let retire = records
            .iter()
            .find(|l| l.starts_with("R\t"))
            .expect("the stop leaves the log");
        assert!(retire.ends_with("\t0"), "{fetch}: {retire}");
        // Three instructions retired: il, ai, stop (retire ids 0, 1, 2).
        let retired = text
            .lines()
            .filter(|l| l.starts_with("R\t") && l.ends_with("\t0"))
            .count();
        assert_eq!(retired, 3, "{fetch}: {text}");
    }
}

/// `text` without the notes on how the model got its results (lines in parentheses: what
/// it fast-forwarded or skipped), which differ with the shortcuts while the results may not.
fn without_notes(text: &str) -> String {
    text.lines()
        .filter(|line| !line.starts_with('('))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn stall_skip_changes_no_output() {
    // By default the model skips issue and fetch in stalled cycles whose outcome is known;
    // `--no-stall-skip` simulates each: the checkpoint lines, the statistics and the
    // registers must come out the same, under both fetch models.
    for name in ["demo_saxpy.s", "demo_dp.s", "bench_stall_loop.s"] {
        for fetch in ["real", "ideal"] {
            let args = [
                "--fetch",
                fetch,
                "--stats",
                "--regs",
                "--max-cycles",
                "300000",
            ];
            let fast = spusim(&[&args[..], &[program(name).as_str()]].concat());
            let slow = spusim(&[&args[..], &["--no-stall-skip", program(name).as_str()]].concat());
            let (fast, slow) = (stdout(&fast), stdout(&slow));
            let note = "(skipped issue and fetch in ";
            assert!(
                fast.contains(note),
                "{name}, {fetch}: nothing skipped\n{fast}"
            );
            assert!(
                !slow.contains(note),
                "{name}, {fetch}: --no-stall-skip ignored\n{slow}"
            );
            assert_eq!(
                without_notes(&fast),
                without_notes(&slow),
                "{name}, {fetch}"
            );
        }
    }
    let help = stdout(&spusim(&["--help"]));
    assert!(help.contains("--no-stall-skip"), "{help}");
}

#[test]
fn fast_forward_changes_no_output() {
    // Under ideal fetch the model skips loop iterations that repeat an earlier one exactly;
    // `--no-fast-forward` simulates every cycle: the checkpoint lines, the statistics and the
    // registers must come out the same.
    for name in ["loop.s", "demo_saxpy.s", "demo_dp.s"] {
        let args = ["--fetch", "ideal", "--stats", "--regs"];
        let fast = spusim(&[&args[..], &[program(name).as_str()]].concat());
        let slow = spusim(&[&args[..], &["--no-fast-forward", program(name).as_str()]].concat());
        assert_eq!(fast.status.code(), Some(0), "{name}: {}", stderr(&fast));
        let (fast, slow) = (stdout(&fast), stdout(&slow));
        let note = "(fast-forwarded ";
        assert!(
            fast.contains(note),
            "{name}: nothing fast-forwarded\n{fast}"
        );
        assert!(
            !slow.contains(note),
            "{name}: --no-fast-forward ignored\n{slow}"
        );
        assert_eq!(without_notes(&fast), without_notes(&slow), "{name}");
    }
    let help = stdout(&spusim(&["--help"]));
    assert!(help.contains("--no-fast-forward"), "{help}");
}
