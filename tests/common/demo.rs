//! The demo firmware's runs for the QEMU tests: each in its own working directory (the
//! semihosting files land there), and readers of its printed sections.
use std::path::{Path, PathBuf};
use std::process::Command;

use super::qemu::{demo_elf, repo};

/// A demo run in its own working directory (the semihosting files land there).
pub struct DemoRun {
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub dir: PathBuf,
}

/// Runs the demo with qemu/run's default of 4 cores.
pub fn run_demo(name: &str, guest_args: &[&str]) -> DemoRun {
    run_demo_on(name, 4, guest_args)
}

pub fn run_demo_on(name: &str, cores: u32, guest_args: &[&str]) -> DemoRun {
    let cores = cores.to_string();
    run_demo_with(name, &["--smp", &cores], guest_args)
}

/// Runs the demo with `runner_args` for qemu/run (a later `--smp` wins over the default 4).
pub fn run_demo_with(name: &str, runner_args: &[&str], guest_args: &[&str]) -> DemoRun {
    let elf = demo_elf();
    let dir = repo().join("target").join("demo-runs").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the run directory");
    let out = Command::new(repo().join("qemu").join("run"))
        .current_dir(&dir)
        .env_remove("PMPROBE_QEMU_SMP")
        .env_remove("PMPROBE_QEMU_EXTRA")
        .arg("--timeout")
        .arg("120")
        .args(runner_args)
        .arg(&elf)
        .args(guest_args)
        .output()
        .expect("run qemu/run");
    DemoRun {
        exit_code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        dir,
    }
}

impl DemoRun {
    pub fn context(&self) -> String {
        format!("--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }

    /// The text of the section whose heading starts with `== {title}`.
    pub fn section(&self, title: &str) -> &str {
        let heading = format!("\n== {title}");
        let start = self
            .stdout
            .find(&heading)
            .unwrap_or_else(|| panic!("no section {title:?}\n{}", self.context()))
            + 1;
        let rest = &self.stdout[start..];
        let end = rest[3..].find("\n== ").map_or(rest.len(), |i| i + 3);
        &rest[..end]
    }
}

/// The number in the first column of the first line of `section` that holds `label` as its
/// second word (perf stat's count, thousands separators allowed).
pub fn table_count(section: &str, label: &str) -> u64 {
    section
        .lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            let count = words.next()?.replace(',', "");
            (words.next()? == label).then(|| count.parse().ok())?
        })
        .unwrap_or_else(|| panic!("no table line for {label} in\n{section}"))
}

/// The share of the time perf stat's line for `label` in `group` ran, `(xx.xx%)` at its end:
/// the lines of a multiplexed table, in the order printed; `None` for a line without one.
pub fn running_shares(section: &str) -> Vec<(String, Option<f64>)> {
    let table = section
        .split_once("Performance counter stats for")
        .map_or("", |(_, rest)| rest);
    table
        .lines()
        .skip(1)
        .take_while(|line| {
            let first = line.split_whitespace().next().unwrap_or("");
            first.replace(',', "").parse::<u64>().is_ok() || first == "<not"
        })
        .map(|line| {
            let name = line
                .split_whitespace()
                .find(|word| word.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
                .unwrap_or_default()
                .to_string();
            let share = line
                .trim_end()
                .strip_suffix("%)")
                .and_then(|rest| rest.rsplit_once('('))
                .and_then(|(_, number)| number.parse().ok());
            (name, share)
        })
        .collect()
}

/// The rows of the "Scaled estimates against the SPU's own figures" table: (event, group,
/// estimate, exact, error text).
pub fn estimate_rows(section: &str) -> Vec<(String, String, u64, u64, String)> {
    let table = section
        .split_once("Scaled estimates against")
        .map_or("", |(_, rest)| rest);
    table
        .lines()
        .skip(2)
        .map_while(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let group = words.get(1)?.strip_prefix('(')?.strip_suffix(')')?;
            Some((
                words[0].to_string(),
                group.to_string(),
                words.get(2)?.parse().ok()?,
                words.get(3)?.parse().ok()?,
                words.get(4..)?.join(" "),
            ))
        })
        .collect()
}

/// The last number of the statistics line `: <label> <value>`.
pub fn stats_value(section: &str, label: &str) -> u64 {
    section
        .lines()
        .find_map(|line| {
            let rest = line.trim_start().strip_prefix(": ")?.strip_prefix(label)?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no statistics line {label:?} in\n{section}"))
}

/// Total accesses of a stack distance chart block (`reads: N accesses`).
pub fn chart_total(section: &str, direction: &str) -> u64 {
    section
        .lines()
        .find_map(|line| {
            let rest = line
                .trim_start()
                .strip_prefix(direction)?
                .strip_prefix(": ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no {direction} total in\n{section}"))
}

/// Parses a Dinero IV din file: `<label> <hex address>` per line, label 0, 1 or 2.
pub fn din_records(path: &Path) -> Vec<(u8, u64)> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()));
    text.lines()
        .map(|line| {
            let (label, address) = line
                .split_once(' ')
                .unwrap_or_else(|| panic!("din line {line:?} has no space"));
            assert!(
                matches!(label, "0" | "1" | "2"),
                "din label {label:?} in {line:?}"
            );
            assert!(
                !address.is_empty()
                    && address
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "din address {address:?} in {line:?}"
            );
            (
                label.parse().unwrap(),
                u64::from_str_radix(address, 16).unwrap(),
            )
        })
        .collect()
}

/// The per-core table: (core number, SPUs it ran, CPU_CYCLES, INST_RETIRED) per row.
pub fn core_rows(run: &DemoRun) -> Vec<(usize, Vec<usize>, u64, u64)> {
    run.section("Cores:")
        .lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("core ")?;
            let words: Vec<&str> = rest.split_whitespace().collect();
            let core = words.first()?.parse().ok()?;
            let (spus, counts) = words.get(2..)?.split_at(words.len().checked_sub(4)?);
            let spus = spus
                .iter()
                .filter(|word| **word != "idle")
                .map(|word| word.strip_prefix("SPU").and_then(|n| n.parse().ok()))
                .collect::<Option<Vec<usize>>>()?;
            Some((core, spus, counts[0].parse().ok()?, counts[1].parse().ok()?))
        })
        .collect()
}

/// Every SPU of the demo ran exactly once, every core (up to four) ran at least one, and with
/// four cores or more each of the first four ran exactly one.
pub fn assert_spread(run: &DemoRun, cores: usize) {
    let rows = core_rows(run);
    assert_eq!(rows.len(), cores, "one row per core\n{}", run.context());
    let mut ran: Vec<usize> = rows.iter().flat_map(|row| row.1.clone()).collect();
    ran.sort_unstable();
    assert_eq!(ran, [0, 1, 2, 3], "{}", run.context());
    for (core, spus, cycles, instructions) in &rows {
        assert_eq!(
            spus.len(),
            match (*core, cores) {
                (_, 1) => 4,
                (0..4, 4..) => 1,
                (4.., _) => 0,
                _ => spus.len().max(1),
            },
            "core {core}\n{}",
            run.context()
        );
        if !spus.is_empty() {
            assert!(
                *cycles > 1_000_000 && *instructions > 1_000_000,
                "{}",
                run.context()
            );
        }
    }
}

/// The channel pair ran with its producer on `producer` and its consumer on `consumer`, every
/// word crossed (the consumer's fold equals Rust's), and the consumer's waits were counted as
/// channel stalls, on its PMU as on its statistics.
pub fn assert_channels(run: &DemoRun, producer: usize, consumer: usize) {
    let section = run.section("Channels across cores");
    assert!(
        section.contains(&format!(
            "SPU4 (channel_producer.s) on core {producer} -> SPU5 (channel_consumer.s) on core {consumer}"
        )),
        "{section}"
    );
    for check in [
        "channel_producer_stops",
        "channel_consumer_stops",
        "channel_producer_state",
        "channel_consumer_result",
        "channel_consumer_waited",
        "channel_consumer_frontend_pmu_vs_stats",
        "channel_producer_frontend_pmu_vs_stats",
    ] {
        assert!(
            section.contains(&format!("check {check} ... ok")),
            "{check}\n{section}"
        );
    }
    let consumer_row = section
        .lines()
        .find(|line| line.trim_start().starts_with("consumer"))
        .unwrap_or_else(|| panic!("no consumer row\n{section}"));
    let stalls: u64 = consumer_row
        .split_whitespace()
        .nth(6)
        .unwrap()
        .parse()
        .unwrap();
    assert!(stalls > 0, "{consumer_row}");
}
