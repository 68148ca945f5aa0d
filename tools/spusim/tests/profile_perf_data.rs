//! `spusim --profile-perf-data`: the exact per-function profile as perf.data, read back by
//! stock perf (Debian's `linux-perf`, which `.ci/run` installs). `perf report` must give each
//! function the share the same run's `--profile` table prints (± 0.5 points), self and
//! children; `perf report -g` the call paths of the run's folded stacks; `perf script` the
//! samples, their periods adding up to the run's cycles. In instruction mode the shares are
//! the instruction counts `spu/programs/profile_calls.s` gives in its comment. `perf annotate`
//! needs binutils' objdump for the SPU: its test runs with `--ignored` where one was built.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use common::{program, spusim, stderr, stdout};

fn scratch(name: &str) -> String {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(name)
        .display()
        .to_string()
}

/// Runs stock `perf` with `args`; fails the test, saying how to install it, when it is missing.
fn perf(args: &[&str]) -> String {
    let out = Command::new("perf")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `perf` ({e}): install it (Debian: apt-get install linux-perf)")
        });
    assert!(
        out.status.success(),
        "perf {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `perf report --stdio -t '|'` with children: symbol -> (children %, self %).
fn report(data: &str, extra: &[&str]) -> BTreeMap<String, (f64, f64)> {
    let mut args = vec!["report", "--stdio", "-i", data, "--sort", "sym", "-t", "|"];
    args.extend_from_slice(extra);
    perf(&args)
        .lines()
        .filter(|line| !line.starts_with('#') && line.contains('|'))
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            let percents: Vec<f64> = fields
                .iter()
                .filter_map(|f| f.strip_suffix('%')?.parse().ok())
                .collect();
            let symbol = fields.iter().find_map(|f| f.strip_prefix("[.] "))?;
            Some((symbol.trim().to_string(), (percents[0], percents[1])))
        })
        .collect()
}

/// The `--profile` table: function -> (inclusive, self) of its first two columns, and the
/// total of the header line (`...: N cycles` or `: N instructions`).
fn table(text: &str) -> (BTreeMap<String, (f64, f64)>, f64) {
    let header = text
        .lines()
        .find(|l| l.starts_with("function profile of"))
        .unwrap();
    let total: f64 = header
        .rsplit_once("): ")
        .unwrap()
        .1
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let rows = text
        .lines()
        .skip_while(|l| !l.starts_with("function profile of"))
        .skip(2)
        .take_while(|l| l.starts_with(' '))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let number = |i: usize| fields[i].parse::<f64>().unwrap();
            (fields.last().unwrap().to_string(), (number(0), number(1)))
        })
        .collect();
    (rows, total)
}

fn close(perf: f64, exact: f64, what: &str) {
    assert!(
        (perf - exact).abs() <= 0.5,
        "{what}: perf {perf:.2}%, the profile {exact:.2}%"
    );
}

/// Runs `args` with `--profile --profile-perf-data DATA` and checks that perf's shares are
/// the table's. Returns the run's output.
fn shares_match(data: &str, args: &[&str]) -> String {
    let mut run = vec!["--profile", "--profile-perf-data", data];
    run.extend_from_slice(args);
    let output = spusim(&run);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let (rows, total) = table(&text);
    let perf_rows = report(data, &[]);
    assert_eq!(
        perf_rows.keys().collect::<Vec<_>>(),
        rows.keys().collect::<Vec<_>>(),
        "{text}"
    );
    for (function, (inclusive, own)) in &rows {
        let (children, self_share) = perf_rows[function];
        close(self_share, 100.0 * own / total, &format!("{function} self"));
        close(
            children,
            100.0 * inclusive / total,
            &format!("{function} children"),
        );
    }
    text
}

#[test]
fn perf_report_gives_each_function_the_profiles_cycle_share() {
    let elf = scratch("perf_calls.elf");
    let data = scratch("perf_calls_pipeline.data");
    let folded = scratch("perf_calls_pipeline.folded");
    let text = shares_match(
        &data,
        &[
            "--elf",
            &elf,
            "--profile-folded",
            &folded,
            &program("profile_calls.s"),
        ],
    );
    assert!(text.contains("(exact, pipeline mode)"));
    // The event perf names is cycles, and its count the run's cycles.
    let cycles: u64 = text
        .lines()
        .last()
        .and_then(|line| line.split_whitespace().rev().nth(1)?.parse().ok())
        .unwrap();
    let header = perf(&["report", "--stdio", "-i", &data, "--header-only"]);
    assert!(header.contains("event : name = cycles"), "{header}");
    let summary = perf(&["report", "--stdio", "-i", &data]);
    assert!(
        summary.contains(&format!("# Event count (approx.): {cycles}\n")),
        "{summary}"
    );
    // perf script: every sample on cpu 0 at one of the three functions, their periods adding
    // up to the run's cycles.
    let script = perf(&["script", "-i", &data, "-F", "cpu,period,ip,sym"]);
    // Each sample: `[cpu] period`, then its call chain, one frame a line, the sample's first.
    let lines: Vec<&str> = script.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut periods = 0;
    let mut samples = 0;
    for (at, line) in lines.iter().enumerate() {
        if !line.starts_with('[') {
            continue;
        }
        let head: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(head[0], "[000]", "{script}");
        periods += head[1].parse::<u64>().unwrap();
        samples += 1;
        let symbol = lines[at + 1].split_whitespace().nth(1).unwrap();
        assert!(["_start", "outer", "leaf"].contains(&symbol), "{script}");
    }
    assert!(samples > 3, "{script}");
    assert_eq!(periods, cycles);
    // perf report -g (callee order): leaf's share split by its callers as the folded stacks
    // split it, in points of the whole run.
    let folded = std::fs::read_to_string(&folded).unwrap();
    let path = |p: &str| -> f64 {
        let line = folded
            .lines()
            .find(|l| l.starts_with(&format!("{p} ")))
            .unwrap();
        100.0 * line.rsplit_once(' ').unwrap().1.parse::<f64>().unwrap() / cycles as f64
    };
    let graph = perf(&[
        "report",
        "--stdio",
        "-i",
        &data,
        "--no-children",
        "--sort",
        "sym",
        "-g",
        "caller,0.5,callee,function,percent",
        "--symbols",
        "leaf",
    ]);
    let branch = |caller: &str| -> f64 {
        let line = graph
            .lines()
            .find(|l| l.trim_end().ends_with(&format!("%--{caller}")))
            .unwrap_or_else(|| panic!("{caller} in {graph}"));
        let share = line.rsplit_once("%--").unwrap().0;
        share.rsplit_once("--").unwrap().1.parse().unwrap()
    };
    close(branch("outer"), path("_start;outer;leaf"), "leaf via outer");
    close(branch("_start"), path("_start;leaf"), "leaf from _start");
}

#[test]
fn in_instruction_mode_the_shares_are_the_programs_instruction_counts() {
    let elf = scratch("perf_calls_instruction.elf");
    let data = scratch("perf_calls_instruction.data");
    let text = shares_match(
        &data,
        &[
            "--mode",
            "instruction",
            "--elf",
            &elf,
            &program("profile_calls.s"),
        ],
    );
    assert!(text.contains("instructions only"), "{text}");
    // profile_calls.s's comment: self 6, 12, 99 and inclusive 117, 78, 99 of 117.
    let rows = report(&data, &[]);
    for (function, inclusive, own) in [
        ("_start", 117.0, 6.0),
        ("outer", 78.0, 12.0),
        ("leaf", 99.0, 99.0),
    ] {
        close(rows[function].0, 100.0 * inclusive / 117.0, function);
        close(rows[function].1, 100.0 * own / 117.0, function);
    }
    let header = perf(&["report", "--stdio", "-i", &data, "--header-only"]);
    assert!(header.contains("event : name = instructions"), "{header}");
}

#[test]
fn an_elf_program_is_its_own_binary_with_its_build_id() {
    // An ELF file spusim wrote, given a build id as `spu-ld --build-id` would: a
    // `.note.gnu.build-id` section added by the host's objcopy, which knows no SPU and writes
    // e_machine 0, put back to EM_SPU (23).
    let elf = scratch("perf_calls_id_plain.elf");
    let output = spusim(&["--elf", &elf, &program("profile_calls.s")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let note = scratch("perf_calls_build_id.note");
    let id: Vec<u8> = (1..=20).collect();
    let mut bytes = [4u32, 20, 3]
        .iter()
        .flat_map(|w| w.to_be_bytes())
        .collect::<Vec<u8>>();
    bytes.extend_from_slice(b"GNU\0");
    bytes.extend_from_slice(&id);
    std::fs::write(&note, bytes).unwrap();
    let with_id = scratch("perf_calls_id.elf");
    let status = Command::new("objcopy")
        .args([
            "-I",
            "elf32-big",
            "-O",
            "elf32-big",
            "--add-section",
            &format!(".note.gnu.build-id={note}"),
            "--set-section-flags",
            ".note.gnu.build-id=alloc,readonly",
            &elf,
            &with_id,
        ])
        .output()
        .expect("the host's objcopy (binutils)");
    assert!(status.status.success(), "{}", stderr(&status));
    let mut file = std::fs::read(&with_id).unwrap();
    file[18..20].copy_from_slice(&23u16.to_be_bytes());
    std::fs::write(&with_id, file).unwrap();

    let data = scratch("perf_calls_id.data");
    shares_match(&data, &[&with_id]);
    let ids = perf(&["buildid-list", "-i", &data]);
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(ids.trim(), format!("{hex} {with_id}"));
    // Without a build id (spu-ld's default) the file has none and perf opens the ELF by path.
    let data = scratch("perf_calls_no_id.data");
    shares_match(&data, &[&elf]);
    assert_eq!(perf(&["buildid-list", "-i", &data]).trim(), elf);
}

#[test]
fn a_thread_group_puts_each_spu_on_its_own_cpu() {
    let elf = scratch("perf_group.elf");
    let data = scratch("perf_group.data");
    let output = spusim(&[
        "--mode",
        "instruction",
        "--threads",
        "2",
        "--elf",
        &elf,
        "--profile-perf-data",
        &data,
        &program("profile_calls.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Both SPUs run the same 117 instructions: half the samples' weight each.
    let cpus = perf(&[
        "report",
        "--stdio",
        "-i",
        &data,
        "--no-children",
        "--sort",
        "cpu",
        "-g",
        "none",
    ]);
    let shares: Vec<&str> = cpus
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains('%'))
        .map(|l| l.trim())
        .collect();
    assert_eq!(shares, ["50.00%  000", "50.00%  001"], "{cpus}");
}

#[test]
fn a_source_program_without_elf_is_refused_before_the_run() {
    let data = scratch("perf_refused.data");
    let _ = std::fs::remove_file(&data);
    let output = spusim(&["--profile-perf-data", &data, &program("profile_calls.s")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "--profile-perf-data needs the program as an ELF file, where perf reads its \
             symbols: run an ELF file, or write one with --elf FILE"
        ),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).is_empty());
    assert!(!std::path::Path::new(&data).exists());
}

/// binutils 2.40's objdump for the SPU, as `tools/oracles/build-spu-objdump.sh` builds it.
fn spu_objdump() -> String {
    std::env::var("SPU_OBJDUMP")
        .unwrap_or_else(|_| "/tmp/spu-binutils/build/binutils/objdump".to_string())
}

#[test]
#[ignore = "needs binutils' objdump for the SPU, which Debian does not ship: build it with \
            tools/oracles/build-spu-objdump.sh, then run with --ignored (SPU_OBJDUMP=path if \
            not in /tmp/spu-binutils)"]
fn perf_annotate_shows_a_functions_instructions_with_spu_objdump() {
    let elf = scratch("perf_annotate.elf");
    let data = scratch("perf_annotate.data");
    let output = spusim(&[
        "--elf",
        &elf,
        "--profile-perf-data",
        &data,
        &program("profile_calls.s"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = perf(&[
        "annotate",
        "--stdio",
        "-i",
        &data,
        &format!("--objdump={}", spu_objdump()),
        "outer",
    ]);
    // `outer` in profile_calls.s: six instructions, every one charged some of its cycles.
    let rows: Vec<(f64, String)> = text
        .lines()
        .filter_map(|line| {
            let (percent, rest) = line.split_once(':')?;
            let percent: f64 = percent.trim().parse().ok()?;
            let mnemonic = rest.split_once(':')?.1.split_whitespace().next()?;
            Some((percent, mnemonic.to_string()))
        })
        .collect();
    let mnemonics: Vec<&str> = rows.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(
        mnemonics,
        ["ai", "stqd", "brsl", "lqd", "ai", "bi"],
        "{text}"
    );
    let total: f64 = rows.iter().map(|(p, _)| p).sum();
    assert!((total - 100.0).abs() < 0.1, "{text}");
}
