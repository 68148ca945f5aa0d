//! `spusim --profile`, `--profile-folded`, `--profile-firefox`: the exact per-function profile.
//! Instruction counts are checked against `spu/programs/profile_calls.s`, whose comment counts
//! them from its text; cycles and stall classes must add up to the pipeline's own statistics
//! (`--stats`), which count them on their own.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{program, spusim, stderr, stdout};

/// A row of the table: the numbers before the function's name, by name.
fn rows(table: &str) -> BTreeMap<String, Vec<f64>> {
    table
        .lines()
        .skip_while(|line| {
            !line.trim_start().starts_with("cycles") && !line.trim_start().starts_with("insts")
        })
        .skip(1)
        .take_while(|line| line.starts_with(' '))
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (name, numbers) = fields.split_last()?;
            Some((
                name.to_string(),
                numbers.iter().filter_map(|n| n.parse().ok()).collect(),
            ))
        })
        .collect()
}

fn scratch(name: &str) -> String {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(name)
        .display()
        .to_string()
}

#[test]
fn instruction_mode_counts_each_functions_instructions_and_calls() {
    let output = spusim(&[
        "--mode",
        "instruction",
        "--profile",
        &program("profile_calls.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("(exact, instruction mode: instructions only): 117 instructions"));
    let rows = rows(&text);
    // insts (inclusive), self, self %, calls: the program's comment.
    assert_eq!(rows["_start"][..2], [117.0, 6.0]);
    assert_eq!(rows["outer"][..2], [78.0, 12.0]);
    assert_eq!(rows["leaf"][..2], [99.0, 99.0]);
    let calls: Vec<f64> = ["_start", "outer", "leaf"]
        .iter()
        .map(|f| *rows[*f].last().unwrap())
        .collect();
    assert_eq!(calls, [1.0, 2.0, 3.0]);
}

#[test]
fn folded_stacks_count_instructions_or_cycles_per_call_path() {
    let folded = scratch("profile_calls.folded");
    let output = spusim(&[
        "--mode",
        "instruction",
        "--profile-folded",
        &folded,
        &program("profile_calls.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = std::fs::read_to_string(&folded).unwrap();
    assert_eq!(
        text,
        "_start 6\n_start;leaf 33\n_start;outer 12\n_start;outer;leaf 66\n"
    );
    // Pipeline mode: the same paths; their cycles add up to the run's.
    let output = spusim(&["--profile-folded", &folded, &program("profile_calls.s")]);
    let cycles: u64 = stdout(&output)
        .lines()
        .last()
        .and_then(|line| line.split_whitespace().rev().nth(1)?.parse().ok())
        .unwrap();
    let text = std::fs::read_to_string(&folded).unwrap();
    let paths: Vec<&str> = text
        .lines()
        .filter_map(|l| l.rsplit_once(' ').map(|(p, _)| p))
        .collect();
    assert_eq!(
        paths,
        ["_start", "_start;leaf", "_start;outer", "_start;outer;leaf"]
    );
    let sum: u64 = text
        .lines()
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<u64>().ok())
        .sum();
    assert_eq!(sum, cycles);
}

/// The stall lines of `--stats` by their label.
fn stat(text: &str, label: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("{label}"));
    line[label.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn pipeline_cycles_and_stall_classes_add_up_to_the_statistics() {
    let stream = program("demo_stream.s");
    let args = [
        "--ea-size",
        "0x210000",
        "--in-mbox",
        "2",
        "--in-mbox",
        "0",
        "--in-mbox",
        "0x100000",
        "--in-mbox",
        "4",
    ];
    for fetch in ["real", "ideal"] {
        for extra in [&[][..], &["--no-fast-forward"][..]] {
            let mut run: Vec<&str> = vec!["--fetch", fetch, "--profile", "--stats"];
            run.extend_from_slice(extra);
            run.extend_from_slice(&args);
            run.push(&stream);
            let output = spusim(&run);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            let text = stdout(&output);
            let rows = rows(&text);
            let column = |index: usize| -> f64 { rows.values().map(|r| r[index]).sum() };
            // Columns: cycles, self, self%, insts, IPC, dual%, dep, fp, branch, sync, ch wait,
            // LS port, init, calls.
            assert_eq!(
                column(1),
                stat(&text, "Total Cycle count"),
                "{fetch} {extra:?}"
            );
            assert_eq!(column(3), stat(&text, "Total Instruction count"));
            assert_eq!(column(6), stat(&text, "Stall due to dependency"));
            assert_eq!(
                column(7),
                stat(&text, "Stall due to fp resource conflict")
                    + stat(&text, "Stall due to dp pipeline")
            );
            assert_eq!(
                column(8),
                stat(&text, "Stall due to branch miss")
                    + stat(&text, "Stall due to prefetch miss")
                    + stat(&text, "Stall due to waiting for hint target")
            );
            assert_eq!(column(9), stat(&text, "Channel stall cycle"));
            assert_eq!(
                column(10),
                stat(&text, "Stall due to channel wait (MFC, events)")
            );
            assert!(column(10) > 0.0, "the stream waits for its first block");
            assert_eq!(column(11), stat(&text, "Stall due to DMA at the LS port"));
        }
    }
}

#[test]
fn both_modes_count_the_same_instructions_per_function() {
    let counts = |mode: &str, column: usize| -> BTreeMap<String, f64> {
        let output = spusim(&["--mode", mode, "--profile", &program("profile_calls.s")]);
        rows(&stdout(&output))
            .into_iter()
            .map(|(f, r)| (f, r[column]))
            .collect()
    };
    // Pipeline: insts (self) is the 4th column; instruction mode: self is the 2nd.
    assert_eq!(counts("pipeline", 3), counts("instruction", 1));
}

#[test]
fn the_firefox_profile_has_one_thread_per_spu_weighted_by_cycles() {
    let json = scratch("profile_calls.json");
    let output = spusim(&["--profile-firefox", &json, &program("profile_calls.s")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let cycles: f64 = stdout(&output)
        .lines()
        .last()
        .and_then(|line| line.split_whitespace().rev().nth(1)?.parse().ok())
        .unwrap();
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(profile["meta"]["product"], "spusim");
    let threads = profile["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 1);
    assert_eq!(threads[0]["name"], "SPU0");
    let weights: f64 = threads[0]["samples"]["weight"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_f64().unwrap())
        .sum();
    assert_eq!(weights, cycles);
    // Processed format 55: each thread's strings, function names among them.
    let names: Vec<&str> = threads[0]["stringArray"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s.as_str())
        .collect();
    for function in ["_start", "outer", "leaf"] {
        assert!(names.contains(&function), "{function} in {names:?}");
    }
}

#[test]
fn a_thread_group_has_a_profile_per_spu() {
    let folded = scratch("group.folded");
    let output = spusim(&[
        "--mode",
        "instruction",
        "--threads",
        "2",
        "--profile",
        "--profile-folded",
        &folded,
        &program("profile_calls.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("function profile of SPU0"));
    assert!(text.contains("function profile of SPU1"));
    let folded = std::fs::read_to_string(&folded).unwrap();
    assert!(folded.contains("SPU0;_start;outer;leaf 66\n"), "{folded}");
    assert!(folded.contains("SPU1;_start;outer;leaf 66\n"), "{folded}");
}

#[test]
fn bad_analysis_options_are_refused_by_name() {
    let calls = program("profile_calls.s");
    let copy = scratch("profile_calls_copy.s");
    std::fs::copy(&calls, &copy).unwrap();
    let refused = |args: &[&str], message: &str| {
        let output = spusim(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(message),
            "{args:?}: {}",
            stderr(&output)
        );
    };
    refused(
        &["--check-dma=yes", &calls],
        "--check-dma is a flag and takes no value, found `--check-dma=yes`",
    );
    refused(
        &["--profile=1", &calls],
        "--profile is a flag and takes no value",
    );
    refused(
        &["--profile-folded", &copy, &copy],
        &format!("--profile-folded `{copy}` is the program file"),
    );
    // Nothing was written over it.
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&calls).unwrap()
    );
    refused(
        &["--profile-folded=", &calls],
        "--profile-folded needs a file name",
    );
}

#[test]
fn dual_issue_follows_the_spus_pairing_rule_per_function() {
    // The SPU issues two instructions in one cycle when they are the even and the odd word of
    // one doubleword-aligned fetch group, the first for the even pipeline and the second for
    // the odd one, and independent (Cell BE Programming Handbook, "Dual-Issue Rules"; `a` is
    // an even-pipe FX instruction, `rotqby` and `bi` odd-pipe). `pairs`: 8 independent
    // a/rotqby pairs at aligned addresses, then `bi` alone at an even address: 16 of its 17
    // instructions dual issued, 94.12 %. `singles`: 8 `a` and `bi` at an even address, no
    // pair: 0 %. Ideal fetch, so that no wrong path after the unhinted calls issues (real
    // fetch charges wrong-path issue slots to the next instruction that completes).
    let pairs: String = (0..8)
        .map(|i| {
            format!(
                "        a       ${},$3,$4\n        rotqby  ${},$41,$42\n",
                11 + i,
                60 + i
            )
        })
        .collect();
    let singles: String = (0..8)
        .map(|i| format!("        a       ${},$3,$4\n", 11 + i))
        .collect();
    let source = format!(
        "_start:\n        brsl    $lr,pairs\n        brsl    $lr,singles\n        stop    0x2000\n\
         \x20       .balign 8\npairs:\n{pairs}        bi      $lr\n        .balign 8\nsingles:\n\
         {singles}        bi      $lr\n"
    );
    let file = common::temp_program("profile_dual_issue.s", &source);
    let output = spusim(&["--fetch", "ideal", "--profile", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = rows(&stdout(&output));
    // Columns: cycles, self, self%, insts, IPC, dual%.
    assert_eq!((rows["pairs"][3], rows["pairs"][5]), (17.0, 94.12));
    assert_eq!((rows["singles"][3], rows["singles"][5]), (9.0, 0.0));
}
