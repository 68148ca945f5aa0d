//! Bad input end to end: every case is a clear message on stderr and a non-zero exit, never a
//! panic, a hang or a silent success. One table; each row runs the real spusim binary.
//!
//! The "unreadable file" cases must fail for root too (CI runs as root, and `chmod 000` does
//! not stop root from reading): a directory given as the program (reading it fails with
//! EISDIR for every user) and a file that is not UTF-8 text.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long any bad-input case may take (generous for a debug build; a hang is far beyond).
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// Exit status of spusim for usage errors, unreadable files and assembly errors.
const EXIT_USAGE: i32 = 2;
/// Exit status for a fault, a blocked channel or `--max-cycles` exceeded.
const EXIT_RUN_ERROR: i32 = 3;

/// A fresh directory for this test's generated files (never committed).
fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bad_input");
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

fn write(dir: &Path, name: &str, contents: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write a test input");
    path.display().to_string()
}

struct Case {
    name: &'static str,
    args: Vec<String>,
    exit: i32,
    /// Every string must appear in stderr.
    stderr: Vec<String>,
}

fn case(name: &'static str, args: &[&str], exit: i32, stderr: &[&str]) -> Case {
    Case {
        name,
        args: args.iter().map(|a| a.to_string()).collect(),
        exit,
        stderr: stderr.iter().map(|s| s.to_string()).collect(),
    }
}

fn spusim(args: &[String]) -> (Output, Duration) {
    let start = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_spusim"))
        .args(args)
        .output()
        .expect("spusim runs");
    (output, start.elapsed())
}

#[test]
fn every_bad_input_gives_a_clear_message_and_a_non_zero_exit() {
    let dir = scratch();
    let missing = dir.join("no-such-program.s").display().to_string();
    let directory = dir.join("a-directory.s");
    std::fs::create_dir_all(&directory).expect("create a directory");
    let directory = directory.display().to_string();
    let not_text = write(
        &dir,
        "not-text.s",
        &[0x69, 0x6c, 0xff, 0xfe, 0x00, 0x80, b'\n'],
    );
    let empty = write(&dir, "empty.s", b"");
    let only_comments = write(&dir, "only-comments.s", b"# nothing to run\n\n   # here\n");
    // 10 MB of `nop` lines: 2.6 million instructions, ten times the 256 KiB local store.
    let huge_code = write(&dir, "huge-code.s", &b"nop\n".repeat(10 * 1024 * 1024 / 4));
    // 10 MB on one comment line: the whole file must be scanned, and then nothing is there.
    let mut comment = b"# ".to_vec();
    comment.resize(10 * 1024 * 1024, b'x');
    let huge_comment = write(&dir, "huge-comment.s", &comment);
    let forever = write(&dir, "forever.s", b"loop: br loop\n");
    let good = write(&dir, "good.s", b"il $3,1\nstop\n");

    let table = [
        case(
            "missing file",
            &[&missing],
            EXIT_USAGE,
            &["cannot read", &missing, "No such file"],
        ),
        case(
            "a directory instead of a file (unreadable, even for root)",
            &[&directory],
            EXIT_USAGE,
            &["cannot read", &directory],
        ),
        case(
            "not UTF-8 text",
            &[&not_text],
            EXIT_USAGE,
            &["cannot read", &not_text, "UTF-8"],
        ),
        case(
            "empty file",
            &[&empty],
            EXIT_USAGE,
            &[&empty, "no instructions"],
        ),
        case(
            "only comments",
            &[&only_comments],
            EXIT_USAGE,
            &[&only_comments, "no instructions"],
        ),
        case(
            "10 MB of code (does not fit the local store)",
            &[&huge_code],
            EXIT_USAGE,
            // file:line:col: the first statement past 256 KiB, line 65537.
            &[&format!("{huge_code}:65537:1: "), "does not fit"],
        ),
        case(
            "10 MB comment",
            &[&huge_comment],
            EXIT_USAGE,
            &[&huge_comment, "no instructions"],
        ),
        case(
            "never stops, instruction mode",
            &["--mode", "instruction", "--max-cycles", "1000", &forever],
            EXIT_RUN_ERROR,
            &["--max-cycles 1000 exceeded"],
        ),
        case(
            "never stops, pipeline mode",
            &["--mode", "pipeline", "--max-cycles", "1000", &forever],
            EXIT_RUN_ERROR,
            &["--max-cycles 1000 exceeded"],
        ),
        case(
            "unknown --config key",
            &["--config", "spu/pipe/FPX/depth=3", &good],
            EXIT_USAGE,
            &["unknown configuration key", "spu/pipe/FPX/depth"],
        ),
        case(
            "--config value out of range",
            &["--config", "spu/pipe/FP6/depth=0", &good],
            EXIT_USAGE,
            &["spu/pipe/FP6/depth", "\"0\""],
        ),
        case(
            "--config value not a number",
            &["--config", "spu/pipe/FP6/stall=many", &good],
            EXIT_USAGE,
            &["spu/pipe/FP6/stall", "\"many\""],
        ),
        case(
            "--config bad boolean",
            &["--config", "spu/feature/dp-dual=maybe", &good],
            EXIT_USAGE,
            &["spu/feature/dp-dual", "\"maybe\"", "TRUE"],
        ),
        case(
            "--config without =",
            &["--config", "spu/feature/dp-dual", &good],
            EXIT_USAGE,
            &["spu/feature/dp-dual", "key=value"],
        ),
        case(
            "unknown --preset",
            &["--preset", "ps3", &good],
            EXIT_USAGE,
            &["unknown preset `ps3`", "cell", "celledp"],
        ),
        case(
            "unknown --fetch model",
            &["--fetch", "warp", &good],
            EXIT_USAGE,
            &["unknown fetch model `warp`", "ideal", "real"],
        ),
        case(
            "unknown --mode",
            &["--mode", "fast", &good],
            EXIT_USAGE,
            &["unknown mode `fast`"],
        ),
        case(
            "--max-cycles not a number",
            &["--max-cycles", "lots", &good],
            EXIT_USAGE,
            &["--max-cycles", "lots"],
        ),
    ];

    let mut failures = Vec::new();
    for row in &table {
        let (output, elapsed) = spusim(&row.args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut problems = Vec::new();
        if output.status.code() != Some(row.exit) {
            problems.push(format!(
                "exit {:?}, expected {}",
                output.status.code(),
                row.exit
            ));
        }
        for expected in &row.stderr {
            if !stderr.contains(expected.as_str()) {
                problems.push(format!("stderr lacks {expected:?}"));
            }
        }
        if stderr.contains("panicked") {
            problems.push("spusim panicked".to_string());
        }
        if elapsed > TIME_LIMIT {
            problems.push(format!("took {elapsed:?}"));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{}: {}\n  stderr: {}",
                row.name,
                problems.join("; "),
                stderr.trim_end()
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));

    // The control: the same tool on a good program succeeds, so the failures above are about
    // the input, not a broken binary.
    let (output, _) = spusim(&[good]);
    assert_eq!(output.status.code(), Some(0));
}
