//! Bad input end to end: every case is a clear message on stderr and its exit status, never
//! a panic, a hang or a lost file. One table; each row runs the real spusim binary. The rows
//! are the bad-input table of `docs/robustness.md` (a test below checks that the two list the
//! same cases).
//!
//! No row is timed: a run that hung would hang the test, which then fails by never passing.
//! Every source of a wait without end (a pipe that never ends, or never closes) has a row
//! whose expected message proves that spusim ended the wait itself.
//!
//! The "unreadable file" cases must fail for root too (CI runs as root, and `chmod 000` does
//! not stop root from reading): a directory given as the program (reading it fails with
//! EISDIR for every user) and a file that is not UTF-8 text.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::mpsc;
use std::thread;

#[cfg(unix)]
#[path = "bad_input/unix_rows.rs"]
mod unix_rows;

/// Exit status of spusim for usage errors, refused or unreadable files and assembly errors.
const EXIT_USAGE: i32 = 2;
/// Exit status for a fault, a blocked channel or `--max-cycles` exceeded.
const EXIT_RUN_ERROR: i32 = 3;

/// A fresh directory for this test's generated files (never committed).
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
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
    args: Vec<OsString>,
    exit: i32,
    /// Every string must appear in stderr.
    stderr: Vec<String>,
    /// Files whose bytes the run must leave as they were.
    unchanged: Vec<PathBuf>,
    /// Runs next to spusim (a pipe's writer); gets a message when spusim has exited.
    beside: Option<Box<dyn FnOnce(mpsc::Receiver<()>) + Send>>,
    /// The named pipe `beside` writes to.
    pipe: Option<PathBuf>,
}

fn case(name: &'static str, args: &[&str], exit: i32, stderr: &[&str]) -> Case {
    Case {
        name,
        args: args.iter().map(OsString::from).collect(),
        exit,
        stderr: stderr.iter().map(|s| s.to_string()).collect(),
        unchanged: Vec::new(),
        beside: None,
        pipe: None,
    }
}

impl Case {
    fn keeping(mut self, path: &str) -> Case {
        self.unchanged.push(PathBuf::from(path));
        self
    }

    /// `writer` writes to the named pipe `pipe` while spusim runs.
    fn beside(
        mut self,
        pipe: &str,
        writer: impl FnOnce(mpsc::Receiver<()>) + Send + 'static,
    ) -> Case {
        self.beside = Some(Box::new(writer));
        self.pipe = Some(PathBuf::from(pipe));
        self
    }
}

fn spusim(args: &[OsString]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spusim"))
        .args(args)
        .output()
        .expect("spusim runs")
}

/// Runs one row; returns its problems.
fn check(row: Case) -> Vec<String> {
    let before: Vec<Vec<u8>> = row
        .unchanged
        .iter()
        .map(|path| std::fs::read(path).expect("read a file the row keeps"))
        .collect();
    let (done, finished) = mpsc::channel();
    let beside = row
        .beside
        .map(|writer| thread::spawn(move || writer(finished)));
    let output = spusim(&row.args);
    let _ = done.send(());
    if let Some(pipe) = &row.pipe {
        // Had spusim never opened the pipe, the writer would wait in `open` for good: opening
        // both ends here (which never blocks on Linux) lets it go on; dropping them makes its
        // next write fail.
        let _ = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(pipe);
    }
    if let Some(beside) = beside {
        beside.join().expect("the writer beside spusim ends");
    }
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
    for (path, bytes) in row.unchanged.iter().zip(before) {
        if std::fs::read(path).ok() != Some(bytes) {
            problems.push(format!("{} was changed", path.display()));
        }
    }
    if problems.is_empty() {
        return problems;
    }
    vec![format!(
        "{}: {}\n  stderr: {}",
        row.name,
        problems.join("; "),
        stderr.trim_end()
    )]
}

/// A named pipe (Unix `mkfifo`).
#[cfg(unix)]
fn fifo(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    let status = Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
    path.display().to_string()
}

/// The bad-input table; `dir` holds its files.
fn table(dir: &Path) -> Vec<Case> {
    let missing = dir.join("no-such-program.s").display().to_string();
    let directory = dir.join("a-directory.s");
    std::fs::create_dir_all(&directory).expect("create a directory");
    let directory = directory.display().to_string();
    let not_text = write(
        dir,
        "not-text.s",
        &[0x69, 0x6c, 0xff, 0xfe, 0x00, 0x80, b'\n'],
    );
    let empty = write(dir, "empty.s", b"");
    let only_comments = write(dir, "only-comments.s", b"# nothing to run\n\n   # here\n");
    // 10 MB of `nop` lines: 2.6 million instructions, ten times the 256 KiB local store.
    let huge_code = write(dir, "huge-code.s", &b"nop\n".repeat(10 * 1024 * 1024 / 4));
    // 10 MB on one comment line: the whole file must be scanned, and then nothing is there.
    let mut comment = b"# ".to_vec();
    comment.resize(10 * 1024 * 1024, b'x');
    let huge_comment = write(dir, "huge-comment.s", &comment);
    // One byte over the 16 MiB cap, all comment (it would assemble if it were read).
    let mut oversized = b"nop\n# ".to_vec();
    oversized.resize(16 * 1024 * 1024 + 1, b'x');
    let oversized = write(dir, "oversized.s", &oversized);
    let forever = write(dir, "forever.s", b"loop: br loop\n");
    let good = write(dir, "good.s", b"il $3,1\nstop\n");
    let defines_x = write(dir, "defines-x.s", b".global x\nx: stop\n");
    let also_x = write(dir, "also-x.s", b"nop\n.global x\nx: nop\n");
    let needs_main = write(dir, "needs-main.s", b"brsl $lr, main\nstop\n");
    let deep_minus = write(
        dir,
        "deep-minus.s",
        format!("nop\nil $3,{}1\n", "-".repeat(200_000)).as_bytes(),
    );
    let deep_parens = write(
        dir,
        "deep-parens.s",
        format!(
            "nop\nil $3,{}1{}\n",
            "(".repeat(200_000),
            ")".repeat(200_000)
        )
        .as_bytes(),
    );
    let illegal = write(dir, "illegal.s", b"il $3,1\n.word 0x00800000\n");
    let unsupported = write(dir, "unsupported.s", b"rdch $3,$ch5\n");
    let blocked = write(dir, "blocked.s", b"rdch $3,SPU_RdInMbox\nstop\n");

    let mut rows = vec![
        case(
            "missing file",
            &[&missing],
            EXIT_USAGE,
            &["cannot read", &missing, "No such file"],
        ),
        case(
            "a directory instead of a file",
            &[&directory],
            EXIT_USAGE,
            &["cannot read", &directory],
        ),
        case(
            "not UTF-8 text",
            &[&not_text],
            EXIT_USAGE,
            &["cannot read", &not_text, "not UTF-8 text", "offset 2"],
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
            "10 MB of code",
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
            "file over 16 MiB",
            &[&oversized],
            EXIT_USAGE,
            &["cannot read", &oversized, "larger than the 16 MiB"],
        ),
        case(
            "200 000 `-` in an expression",
            &[&deep_minus],
            EXIT_USAGE,
            // `il $3,` is 6 bytes; the 129th `-` (one past MAX_NESTING = 128) is column 135.
            &[
                &format!("{deep_minus}:2:135: "),
                "nested too deeply",
                "more than 128",
            ],
        ),
        case(
            "200 000 `(` in an expression",
            &[&deep_parens],
            EXIT_USAGE,
            &[&format!("{deep_parens}:2:135: "), "nested too deeply"],
        ),
        case(
            "--din names the program file",
            &["--din", &good, &good],
            EXIT_USAGE,
            &[
                &format!("--din `{good}` is the program file `{good}`"),
                "refusing to overwrite an input",
            ],
        )
        .keeping(&good),
        case(
            "--konata names the program file",
            &["--konata", &good, &good],
            EXIT_USAGE,
            &[
                &format!("--konata `{good}` is the program file `{good}`"),
                "refusing to overwrite an input",
            ],
        )
        .keeping(&good),
        case(
            "--stats=false",
            &["--stats=false", &good],
            EXIT_USAGE,
            &["--stats is a flag and takes no value", "`--stats=false`"],
        ),
        case(
            "--regs=true",
            &["--regs=true", &good],
            EXIT_USAGE,
            &["--regs is a flag and takes no value"],
        ),
        case(
            "unknown option",
            &["--frobnicate", &good],
            EXIT_USAGE,
            &["unknown option `--frobnicate`", "usage:"],
        ),
        case(
            "option without its value",
            &[&good, "--max-cycles"],
            EXIT_USAGE,
            &["--max-cycles needs a value"],
        ),
        case(
            "--din with an empty file name",
            &["--din=", &good],
            EXIT_USAGE,
            &["--din needs a file name"],
        ),
        case(
            "no program file",
            &["--stats"],
            EXIT_USAGE,
            &["no program file given"],
        ),
        case(
            "a global symbol two sources define",
            &[&defines_x, &also_x],
            EXIT_USAGE,
            &[
                "also-x.s:3:1: multiple definition of `x` (first defined in",
                "defines-x.s)",
            ],
        ),
        case(
            "a symbol no source defines",
            &[&good, &needs_main],
            EXIT_USAGE,
            &["needs-main.s:1:11: undefined label `main`"],
        ),
        case(
            "a --defsym that is no definition",
            &["--defsym", "x", &good],
            EXIT_USAGE,
            &["--defsym expects NAME=VALUE"],
        ),
        case(
            "a --defsym of an unknown symbol",
            &["--defsym", "x=nowhere+4", &good],
            EXIT_USAGE,
            &["--defsym `x=nowhere+4`:3: undefined label `nowhere`"],
        ),
        case(
            "listeners with --trace",
            &["--stack-distance", "--trace", &good],
            EXIT_USAGE,
            &["cannot be combined with --trace/--konata"],
        ),
        case(
            "unknown --pmu event",
            &["--pmu", "CACHE_MAGIC", &good],
            EXIT_USAGE,
            &["--pmu: `CACHE_MAGIC`"],
        ),
        case(
            "--pmu event listed twice",
            &["--pmu", "INST_RETIRED,inst_retired", &good],
            EXIT_USAGE,
            &["INST_RETIRED is listed twice"],
        ),
        case(
            "--read-timeout 0",
            &["--read-timeout", "0", &good],
            EXIT_USAGE,
            &["--read-timeout must be at least 1 second"],
        ),
        case(
            "--trace-from not a number",
            &["--trace-from", "soon", &good],
            EXIT_USAGE,
            &["--trace-from expects a cycle number, found `soon`"],
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
            "illegal instruction",
            &[&illegal],
            EXIT_RUN_ERROR,
            &["fault: illegal instruction 0x00800000"],
        ),
        case(
            "unsupported channel",
            &[&unsupported],
            EXIT_RUN_ERROR,
            &["fault: rdch on unsupported channel 5"],
        ),
        case(
            "channel that never gets data",
            &[&blocked],
            EXIT_RUN_ERROR,
            &["blocked: channel 29 waits for data the host never sends"],
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
            &["--max-cycles expects a number, found `lots`"],
        ),
    ];
    #[cfg(unix)]
    rows.extend(unix_rows::unix_rows(dir, &good));
    rows
}

#[test]
fn every_bad_input_gives_a_clear_message_and_its_exit_status() {
    let dir = scratch("bad_input");
    let mut failures = Vec::new();
    for row in table(&dir) {
        failures.extend(check(row));
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));

    // The control: the same tool on a good program succeeds, so the failures above are about
    // the input, not a broken binary.
    let good = dir.join("good.s");
    let output = spusim(&[good.into_os_string()]);
    assert_eq!(output.status.code(), Some(0));
}

/// The bad-input table of `docs/robustness.md` lists exactly this file's rows (its first
/// column, between backquote-free bars), except the rows no input can reach yet.
#[test]
fn the_documented_table_lists_these_rows() {
    let dir = scratch("bad_input_names");
    let mut tested: Vec<String> = table(&dir).iter().map(|row| row.name.to_string()).collect();
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/robustness.md");
    let text = std::fs::read_to_string(&docs).expect("read docs/robustness.md");
    let section = text
        .split("## Bad input to spusim")
        .nth(1)
        .expect("docs/robustness.md has a `## Bad input to spusim` section");
    let section = section.split("\n## ").next().unwrap_or_default();
    let mut documented: Vec<String> = section
        .lines()
        .filter(|line| {
            line.starts_with("| ") && !line.starts_with("| input") && !line.contains("(unit test)")
        })
        .filter_map(|line| line.split(" | ").next())
        .map(|cell| cell.trim_start_matches("| ").to_string())
        .collect();
    tested.sort();
    documented.sort();
    assert_eq!(
        documented, tested,
        "docs/robustness.md and bad_input.rs differ"
    );
}

#[cfg(unix)]
#[test]
fn non_utf8_file_names_work() {
    use std::os::unix::ffi::OsStringExt;
    let dir = scratch("non_utf8_names");
    let mut program = dir.join("").into_os_string().into_vec();
    program.extend_from_slice(b"prog-\xff.s");
    let program = PathBuf::from(OsString::from_vec(program));
    std::fs::write(&program, "il $3,1\nstop\n").expect("write the program");
    let mut din = dir.join("").into_os_string().into_vec();
    din.extend_from_slice(b"trace-\xfe.din");
    let din = PathBuf::from(OsString::from_vec(din));
    let output = spusim(&[
        "--din".into(),
        din.clone().into_os_string(),
        program.into_os_string(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(din.exists(), "the din file under its non-UTF-8 name");
}
