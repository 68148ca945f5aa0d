//! Checks of the `spusim_options` fuzz target (also run on the committed seeds by
//! `tools/spusim/tests/fuzz_seeds.rs`): arbitrary argument vectors through spusim.
//!
//! Input: the arguments, separated by NUL bytes (any other bytes, UTF-8 or not, are kept).
//! The parser (`spusim::options::parse`) gets them as they are: it must not panic, and a
//! refusal has a message. Then the whole tool runs in-process (`spusim::run`, or
//! `spusim::simulate` for a parsed run) and must end with a status of 0 to 3, a final line on
//! stdout for 0 and 1 and a message on stderr for 2 and 3.
//!
//! A parsed run is sandboxed first, since the arguments name arbitrary files: the program (and
//! up to three more sources to link with it) becomes one of a few known programs in a scratch
//! directory (picked by the name given), the
//! output files become scratch files, or the program file itself when the arguments named the
//! program as an output (spusim must refuse, and the check verifies the program's bytes are
//! unchanged), and `--max-cycles` is capped so an input runs in milliseconds. Runs with
//! listeners (`--pmu`, `--stack-distance`, `--din`) leak their listeners by design (they live
//! for the process, see spusim's `attach.rs`), so at most `LISTENER_RUNS` of them run per
//! process; later ones run without listeners.
use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use spusim::options::{Command, Options, parse};
use spusim::usage::USAGE;

/// Listener runs per process (each leaks a few hundred KiB).
const LISTENER_RUNS: usize = 200;
/// `--max-cycles` at most, and with `--trace` (a frame per cycle).
const MAX_CYCLES: u64 = 5_000;
const MAX_TRACED_CYCLES: u64 = 300;
/// Arguments used at most.
const MAX_ARGS: usize = 64;

/// The programs a run may get: the repository's examples and small ones that halt, fault,
/// block, send mail and never stop.
const PROGRAMS: [(&str, &str); 9] = [
    ("loop.s", include_str!("../../spu/programs/loop.s")),
    ("call.s", include_str!("../../spu/programs/call.s")),
    ("memcpy.s", include_str!("../../spu/programs/memcpy.s")),
    ("dot.s", include_str!("../../spu/programs/dot.s")),
    ("halt.s", "il $3,1\nheqi $3,1\nstop\n"),
    ("fault.s", "il $3,1\n.word 0x00800000\n"),
    ("blocked.s", "rdch $3,SPU_RdInMbox\nstop\n"),
    (
        "mail.s",
        "il $3,0x55\nwrch SPU_WrOutMbox,$3\nwrch SPU_WrOutIntrMbox,$3\nstop 0x2000\n",
    ),
    ("forever.s", "loop: br loop\n"),
];

static LISTENER_RUNS_DONE: AtomicUsize = AtomicUsize::new(0);

/// The scratch directory with the programs written into it (once per process).
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("spusim-options-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        for (name, text) in PROGRAMS {
            std::fs::write(dir.join(name), text).expect("write a scratch program");
        }
        dir
    })
}

#[cfg(unix)]
fn os_string(bytes: &[u8]) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(bytes.to_vec())
}

#[cfg(not(unix))]
fn os_string(bytes: &[u8]) -> OsString {
    OsString::from(String::from_utf8_lossy(bytes).into_owned())
}

fn fnv(bytes: &[u8]) -> usize {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    }) as usize
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let args: Vec<OsString> = data
        .split(|&b| b == 0)
        .take(MAX_ARGS)
        .map(os_string)
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let (status, objdump) = match parse(args.clone()) {
        Err(error) => {
            assert!(!error.0.is_empty(), "a refusal without a message");
            let status = spusim::run(args, &mut out, &mut err);
            assert_eq!(status, 2, "usage error status");
            let text = String::from_utf8_lossy(&err);
            assert!(text.starts_with(&format!("spusim: {error}")) && text.contains(USAGE));
            return;
        }
        Ok(Command::Help) => {
            let status = spusim::run(args, &mut out, &mut err);
            assert_eq!((status, out.as_slice()), (0, USAGE.as_bytes()), "--help");
            return;
        }
        Ok(Command::Run(options)) => {
            let options = sandbox(options);
            let program_before = std::fs::read(&options.program).expect("read the program");
            let status = spusim::simulate(&options, &mut out, &mut err);
            let program_after = std::fs::read(&options.program).expect("read the program");
            assert!(
                program_after == program_before,
                "the run changed the program file"
            );
            (status, options.link.objdump)
        }
    };
    let stdout = String::from_utf8_lossy(&out);
    let stderr = String::from_utf8_lossy(&err);
    match status {
        // `--objdump` prints objdump's text and runs nothing.
        0 if objdump => assert!(
            stdout.contains(":     file format elf32-spu\n"),
            "--objdump without objdump's first line: {stdout:?}"
        ),
        0 | 1 => {
            let last = stdout.lines().last().unwrap_or_default();
            assert!(
                last.contains(" at pc 0x") && last.ends_with(" cycles"),
                "status {status} without a final line: {last:?}"
            );
        }
        2 | 3 => assert!(
            !stderr.trim().is_empty(),
            "status {status} without a message"
        ),
        other => panic!("exit status {other}\nstderr: {stderr}"),
    }
    let _ = std::io::stderr().flush();
}

/// The options with every file in the scratch directory and bounded work.
fn sandbox(mut options: Options) -> Options {
    let dir = scratch();
    let given = options.program.as_os_str().as_encoded_bytes().to_vec();
    let (name, _) = PROGRAMS[fnv(&given) % PROGRAMS.len()];
    let program = dir.join(name);
    let output = |path: &Option<PathBuf>, scratch_name: &str| {
        path.as_ref().map(|path| {
            if path.as_os_str().as_encoded_bytes() == given.as_slice() {
                program.clone()
            } else {
                dir.join(scratch_name)
            }
        })
    };
    options.attachments.din = output(&options.attachments.din, "out.din");
    options.pipeline.konata = output(&options.pipeline.konata, "out.kanata");
    options.elf_output = output(&options.elf_output, "out.elf");
    options.program = program;
    // More sources: known programs too (linking two of them may well fail: status 2).
    options.link.more_sources = options
        .link
        .more_sources
        .iter()
        .take(3)
        .map(|path| {
            let (name, _) = PROGRAMS[fnv(path.as_os_str().as_encoded_bytes()) % PROGRAMS.len()];
            dir.join(name)
        })
        .collect();
    let limit = if options.pipeline.trace {
        MAX_TRACED_CYCLES
    } else {
        MAX_CYCLES
    };
    options.max_cycles = options.max_cycles.min(limit);
    if options.attachments.any()
        && LISTENER_RUNS_DONE.fetch_add(1, Ordering::Relaxed) >= LISTENER_RUNS
    {
        options.attachments = Default::default();
    }
    options
}
