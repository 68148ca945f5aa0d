//! Stock perf on the perf.data that `qemu/run`'s pmprofile step wrote from the demo's samples
//! (`pmprobe-profile.perf.data`): `perf report` must show the functions and shares of
//! pmprofile's own table, `perf report -g` the call graph, `perf script` every sample and
//! `perf annotate` the hottest function's instructions with the shares the sample file gives
//! them. perf is Debian's `linux-perf` (`.ci/run` installs it, with the AArch64 objdump perf
//! annotate needs); without it the test fails and says so.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use pmprobe::sampling::ProfileDecoder;

use super::common::perf_tool::perf;
use super::common::qemu::repo;

/// How far perf's shares may be from pmprofile's, in percentage points.
const TOLERANCE: f64 = 0.5;

/// The pmprofile that `qemu/run` built for its host step.
fn pmprofile() -> PathBuf {
    let rustc = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("run rustc");
    let info = String::from_utf8_lossy(&rustc.stdout).into_owned();
    let host = info
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc names its host");
    repo()
        .join("target/host-tools")
        .join(host)
        .join("release/pmprofile")
}

/// One function's shares in percent: (self, total).
type Shares = HashMap<String, (f64, f64)>;

/// pmprofile's table by symbol-table function (`--no-inline`, the functions perf shows):
/// `self % total % samples function` rows, and the sample count of its header.
fn pmprofile_table(dir: &Path, elf: &Path) -> (Shares, u64) {
    let out = Command::new(pmprofile())
        .args(["--no-inline", "--top", "100000"])
        .arg(elf)
        .arg(dir.join("pmprobe-profile.pmps"))
        .output()
        .expect("run pmprofile");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    let samples = text
        .lines()
        .find_map(|line| {
            line.strip_prefix("# ")?
                .split_once(" samples of ")?
                .0
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("pmprofile's header\n{text}"));
    let rows = text
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let percent = |w: Option<&str>| w?.strip_suffix('%')?.parse::<f64>().ok();
            let own = percent(words.next())?;
            let total = percent(words.next())?;
            words.next()?.parse::<u64>().ok()?;
            Some((words.collect::<Vec<_>>().join(" "), (own, total)))
        })
        .collect();
    (rows, samples)
}

/// `perf report --children` by symbol, no inlined functions: each symbol's (self, children).
/// Several symbols may have one name (the instances of a generic function); pmprofile merges
/// them by name, perf lists each, so a name maps to all its rows.
fn perf_report(data: &str) -> HashMap<String, Vec<(f64, f64)>> {
    let text = perf(&[
        "report",
        "--stdio",
        "-i",
        data,
        "--children",
        "--no-inline",
        "--sort",
        "sym",
        "-g",
        "none",
        "--percent-limit",
        "0",
        "-t",
        "|",
    ]);
    let mut rows: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
    for line in text
        .lines()
        .filter(|line| !line.starts_with('#') && line.contains("|[.] "))
    {
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let percent = |f: Option<&&str>| f?.strip_suffix('%')?.parse::<f64>().ok();
        let (Some(children), Some(own), Some(symbol)) = (
            percent(fields.first()),
            percent(fields.get(1)),
            fields.get(2).and_then(|f| f.strip_prefix("[.] ")),
        ) else {
            continue;
        };
        rows.entry(symbol.trim().to_string())
            .or_default()
            .push((own, children));
    }
    rows
}

/// The checks, on the files of a demo run in `dir` with firmware `elf`.
pub fn check_demo_perf_data(dir: &Path, elf: &Path) {
    let data_path = dir.join("pmprobe-profile.perf.data");
    assert!(data_path.exists(), "qemu/run wrote no perf.data");
    let data = data_path.to_str().expect("a UTF-8 path");
    let (ours, samples) = pmprofile_table(dir, elf);
    let theirs = perf_report(data);

    // Same functions, same shares: every function of pmprofile's table is in perf's, and back.
    // A name perf lists several times: the selves add up; a sample through two instances
    // counts once in pmprofile's total and once in each instance's children.
    for (function, &(own, total)) in &ours {
        let rows = theirs
            .get(function)
            .unwrap_or_else(|| panic!("perf report has no row for {function}: {theirs:?}"));
        let perf_own: f64 = rows.iter().map(|r| r.0).sum();
        let largest = rows.iter().map(|r| r.1).fold(0.0, f64::max);
        let summed: f64 = rows.iter().map(|r| r.1).sum();
        let total_agrees = if rows.len() == 1 {
            (largest - total).abs() <= TOLERANCE
        } else {
            largest <= total + TOLERANCE && summed >= total - TOLERANCE
        };
        assert!(
            (perf_own - own).abs() <= TOLERANCE && total_agrees,
            "{function}: pmprofile self {own}% total {total}%, perf report (self, children) \
             {rows:?}"
        );
    }
    for function in theirs.keys() {
        assert!(
            ours.contains_key(function),
            "{function} only in perf report"
        );
    }
    let hottest = ours
        .iter()
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0))
        .map(|(name, _)| name.clone())
        .expect("a function with samples");
    println!(
        "perf report: {} functions within {TOLERANCE} points of pmprofile's table; hottest {hottest} \
         ({}% self)",
        ours.len(),
        ours[&hottest].0
    );

    // The call graph: the hottest function's callers, up to the sampled-run marker frame.
    let graph = perf(&[
        "report",
        "--stdio",
        "-i",
        data,
        "--no-children",
        "--no-inline",
        "-g",
        "graph,0.5,callee",
    ]);
    let hottest_entry = graph
        .split_once(&format!("[.] {hottest}\n"))
        .unwrap_or_else(|| panic!("no entry for {hottest} in perf report -g"))
        .1;
    let entry = hottest_entry.split("\n\n").next().unwrap_or_default();
    assert!(
        entry.contains("pmprobe::demo::spu_runs::plan_run::run_plan")
            && entry.contains("aarch64_rt::rust_entry"),
        "the call chains of {hottest} reach run_plan and the entry point:\n{entry}"
    );

    // perf script: one sample record per sample of the file, all on core 0 (the boot core
    // samples), each with its event and period.
    let script = perf(&["script", "-i", data, "-F", "comm,cpu,event,period"]);
    let lines: Vec<&str> = script.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len() as u64, samples, "perf script's samples");
    assert!(
        lines
            .iter()
            .all(|line| line.split_whitespace().collect::<Vec<_>>()
                == ["pmprobe", "[000]", "12500", "cpu-clock:"]),
        "{}",
        lines.first().copied().unwrap_or_default()
    );

    check_annotate(dir, data, &hottest);
}

/// perf annotate of `function`: each instruction's share of the function's samples equals the
/// share the sample file gives its address (counted here from the firmware's own file).
fn check_annotate(dir: &Path, data: &str, function: &str) {
    let text = perf(&["annotate", "--stdio", "-i", data, function]);
    // Instruction lines: `  12.34 :   400dbf50:       stp ...`.
    let lines: Vec<(f64, u64)> = text
        .lines()
        .filter_map(|line| {
            let (percent, rest) = line.split_once(':')?;
            let percent = percent.trim().parse::<f64>().ok()?;
            let address = rest.trim_start().split_once(':')?.0;
            Some((percent, u64::from_str_radix(address, 16).ok()?))
        })
        .collect();
    assert!(
        lines.len() > 4,
        "perf annotate gave no instructions:\n{text}"
    );
    let first = lines.iter().map(|l| l.1).min().unwrap_or(0);
    let last = lines.iter().map(|l| l.1).max().unwrap_or(0);
    let bytes = std::fs::read(dir.join("pmprobe-profile.pmps")).unwrap();
    let decoder = ProfileDecoder::new(&bytes).expect("the firmware's sample file");
    let mut at: HashMap<u64, u64> = HashMap::new();
    for sample in decoder {
        let pc = sample.expect("a sample record").pc;
        if (first..=last).contains(&pc) {
            *at.entry(pc).or_default() += 1;
        }
    }
    let inside: u64 = at.values().sum();
    assert!(inside > 0, "no sample in {function}");
    let mut listed = 0.0;
    for (percent, address) in &lines {
        let expected = 100.0 * at.get(address).copied().unwrap_or(0) as f64 / inside as f64;
        // perf prints two decimals.
        assert!(
            (percent - expected).abs() <= 0.006,
            "{function} at {address:#x}: perf annotate {percent}%, the sample file {expected:.3}%"
        );
        listed += percent;
    }
    // Each share is rounded to two decimals, so the sum is 100 within half a hundredth each.
    let rounded = lines.iter().filter(|l| l.0 > 0.0).count() as f64;
    assert!((listed - 100.0).abs() <= 0.005 * rounded + 1e-9, "{listed}");
    let (top, address) = lines
        .iter()
        .copied()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or_default();
    println!(
        "perf annotate {function}: {} instructions, {inside} samples, the hottest {address:#x} at \
         {top}%",
        lines.len()
    );
}
