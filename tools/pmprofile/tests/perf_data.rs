//! `pmprofile --perf-data`: a sample file of known shares at real firmware functions, written
//! as perf.data and read back by stock perf (Debian's `linux-perf`; `.ci/run` installs it):
//! `perf report` must give the shares the samples were made with, `perf script` every sample
//! on its core, `perf annotate` the sampled instruction, `perf buildid-list` the ELF's build id.
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use object::Object;
use pmprobe::sampling::{Sample, WalkEnd};

fn pmprofile() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pmprofile"))
}

/// Runs stock `perf` with `args`; fails the test, saying how to install it, when perf is missing.
fn perf(args: &[&str]) -> String {
    let out = Command::new("perf")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `perf` ({e}): these tests check pmprofile's perf.data with stock perf; \
             install it (Debian: apt-get install linux-perf binutils-aarch64-linux-gnu)"
            )
        });
    assert!(
        out.status.success(),
        "perf {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `perf report --stdio -t '|'` rows: the percentages (one or two columns) and the symbol.
fn report_rows(text: &str) -> Vec<(Vec<f64>, String)> {
    text.lines()
        .filter(|line| !line.starts_with('#') && line.contains('|'))
        .map(|line| {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            let percents = fields
                .iter()
                .filter_map(|f| f.strip_suffix('%')?.parse().ok())
                .collect();
            let symbol = fields
                .iter()
                .find_map(|f| f.strip_prefix("[.] "))
                .unwrap_or_default()
                .trim()
                .to_string();
            (percents, symbol)
        })
        .collect()
}

struct Written {
    dir: PathBuf,
    elf: PathBuf,
    data: PathBuf,
    hot: (u64, String),
    warm: (u64, String),
    caller: (u64, String),
}

/// 70 samples at the entry of one firmware function and 30 at another's, all called from 8
/// bytes into a third, spread over 4 cores (sample i on core i % 4), written as perf.data.
fn write_known_profile(name: &str) -> Written {
    let elf = common::firmware_elf();
    let bytes = std::fs::read(&elf).unwrap();
    let functions = common::three_functions(&bytes);
    let (hot, warm, caller) = (
        functions[0].clone(),
        functions[1].clone(),
        functions[2].clone(),
    );
    let samples: Vec<Sample> = (0..100)
        .map(|i| {
            let pc = if i < 70 { hot.0 } else { warm.0 };
            Sample::with_frames(pc, 0, &[caller.0 + 8], WalkEnd::Complete).on_core((i % 4) as u8)
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("pmprofile-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let samples_path = dir.join("profile.pmps");
    std::fs::write(&samples_path, common::sample_file(&samples, 10_000)).unwrap();
    let data = dir.join("perf.data");
    let out = pmprofile()
        .arg("--perf-data")
        .arg(&data)
        .arg(&elf)
        .arg(&samples_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Written {
        dir,
        elf,
        data,
        hot,
        warm,
        caller,
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn perf_report_gives_the_shares_the_samples_were_made_with() {
    let w = write_known_profile("perf-report");
    let data = path(&w.data);
    // Self shares: 70 and 30 of 100 samples, each of period 10 000 (perf weighs by period).
    let table = |mode: &str, sort: &str| {
        perf(&[
            "report", "--stdio", "-i", data, mode, "--sort", sort, "-g", "none", "-t", "|",
        ])
    };
    let own = report_rows(&table("--no-children", "sym"));
    let share = |rows: &[(Vec<f64>, String)], name: &str| {
        rows.iter()
            .find(|(_, symbol)| symbol == name)
            .unwrap_or_else(|| panic!("no row for {name} in {rows:?}"))
            .0
            .clone()
    };
    assert_eq!(share(&own, &w.hot.1), [70.0]);
    assert_eq!(share(&own, &w.warm.1), [30.0]);
    // Children and self: the caller is on every stack and has no sample of its own.
    let children = report_rows(&table("--children", "sym"));
    assert_eq!(share(&children, &w.caller.1), [100.0, 0.0]);
    assert_eq!(share(&children, &w.hot.1), [70.0, 70.0]);
    // One cpu per core: samples i % 4.
    let cpus = table("--children", "cpu");
    let mut per_cpu: Vec<(String, String)> = cpus
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains('|'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            (f[f.len() - 1].to_string(), f[0].to_string())
        })
        .collect();
    per_cpu.sort();
    assert_eq!(
        per_cpu,
        [
            ("000".into(), "25.00%".into()),
            ("001".into(), "25.00%".into()),
            ("002".into(), "25.00%".into()),
            ("003".into(), "25.00%".into())
        ]
    );
    // The call graph, callee first: hot, then its caller. (Sorted by symbol, perf leaves the
    // chain's first entry out, as it repeats the row's symbol: so the default sort here.)
    let graph = perf(&[
        "report",
        "--stdio",
        "-i",
        data,
        "--no-children",
        "-g",
        "graph,0.5,callee",
    ]);
    let chain: Vec<&str> = graph
        .split_once(&format!("[.] {}\n", w.hot.1))
        .unwrap_or_else(|| panic!("no entry for {} in\n{graph}", w.hot.1))
        .1
        .lines()
        .map(|line| line.trim_start_matches([' ', '|', '-']))
        .filter(|line| !line.is_empty())
        .take(2)
        .collect();
    assert_eq!(chain, [w.hot.1.as_str(), w.caller.1.as_str()], "{graph}");
    std::fs::remove_dir_all(&w.dir).ok();
}

#[test]
fn perf_script_lists_every_sample_on_its_core_with_its_chain() {
    let w = write_known_profile("perf-script");
    let script = perf(&[
        "script",
        "-i",
        path(&w.data),
        "-F",
        "comm,pid,cpu,period,ip,sym",
    ]);
    // A sample is a header line, its chain (the PC, then the caller), and an empty line.
    let headers: Vec<&str> = script
        .lines()
        .filter(|l| l.starts_with("pmprobe"))
        .collect();
    assert_eq!(headers.len(), 100, "{script}");
    for (i, line) in headers.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            words,
            ["pmprobe", "1", &format!("[{:03}]", i % 4), "10000"],
            "{line}"
        );
    }
    let hot_lines = script
        .lines()
        .filter(|l| l.trim_end().ends_with(&format!(" {}", w.hot.1)))
        .count();
    let caller_lines = script
        .lines()
        .filter(|l| l.trim_end().ends_with(&format!(" {}", w.caller.1)))
        .count();
    assert_eq!(hot_lines, 70, "{script}");
    assert_eq!(caller_lines, 100, "{script}");
    std::fs::remove_dir_all(&w.dir).ok();
}

/// perf annotate disassembles the AArch64 ELF with a cross objdump (perf picks
/// `aarch64-linux-gnu-objdump` from the file's HEADER_ARCH): every sample of the hot function
/// is at its first instruction.
#[test]
fn perf_annotate_puts_the_samples_on_the_sampled_instruction() {
    let w = write_known_profile("perf-annotate");
    let annotate = perf(&["annotate", "--stdio", "-i", path(&w.data), &w.hot.1]);
    let entry = format!("{:x}:", w.hot.0);
    let line = annotate
        .lines()
        .find(|l| l.split_whitespace().nth(2) == Some(entry.as_str()))
        .unwrap_or_else(|| panic!("no instruction at {entry} in\n{annotate}"));
    assert!(line.trim_start().starts_with("100.00"), "{line}");
    std::fs::remove_dir_all(&w.dir).ok();
}

#[test]
fn perf_finds_the_firmware_by_its_build_id() {
    let w = write_known_profile("perf-buildid");
    let elf = std::fs::read(&w.elf).unwrap();
    let id = object::File::parse(&*elf)
        .unwrap()
        .build_id()
        .unwrap()
        .expect("the firmware is linked with --build-id");
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let listed = perf(&["buildid-list", "-i", path(&w.data)]);
    let absolute = std::path::absolute(&w.elf).unwrap();
    assert_eq!(
        listed.trim(),
        format!("{hex} {}", absolute.display()),
        "{listed}"
    );
    let header = perf(&["report", "--header-only", "-i", path(&w.data)]);
    for line in [
        "# arch : aarch64",
        "# nrcpus online : 4",
        "# nrcpus avail : 4",
    ] {
        assert!(header.contains(line), "{line}\n{header}");
    }
    std::fs::remove_dir_all(&w.dir).ok();
}
