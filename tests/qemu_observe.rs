//! QEMU tests of real-core observability: hardware breakpoints and watchpoints through the
//! runtime's debug exception handler (names contain `breakpoint` / `watchpoint`), and the
//! sampling profiler end to end (guest, semihosted profile, `qemu/run`'s pmprofile step).
mod common;
#[path = "qemu_observe/perf_tools.rs"]
mod perf_tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::qemu::{GuestRun, Options, guest_dir, repo, run_guest};

/// A fresh directory for one test's files (the profile goes into QEMU's working directory).
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmprobe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Boots `elf` with `qemu/run` in `dir` (where the guest's semihosted files land and where the
/// runner's pmprofile step writes its outputs), on the runner's default cores.
fn run_in(dir: &Path, name: &str, elf: &Path, args: &[&str]) -> GuestRun {
    run_on_cores(dir, name, elf, None, args)
}

/// [`run_in`] with `--smp cores` when given.
fn run_on_cores(dir: &Path, name: &str, elf: &Path, cores: Option<u32>, args: &[&str]) -> GuestRun {
    let mut runner = Command::new(repo().join("qemu").join("run"));
    if let Some(cores) = cores {
        runner.args(["--smp", &cores.to_string()]);
    }
    let out = runner
        .current_dir(dir)
        .args(["--timeout", "240"])
        .arg(elf)
        .args(args)
        .output()
        .expect("run qemu/run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let checks = stdout
        .lines()
        .filter_map(|line| {
            let (check, result) = line
                .trim_start()
                .strip_prefix("check ")?
                .split_once(" ... ")?;
            Some((check.to_string(), result.starts_with("ok")))
        })
        .collect();
    GuestRun {
        name: name.to_string(),
        exit_code: out.status.code(),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        checks,
    }
}

/// The `self %`, `total %` and sample count of `function`'s row in pmprofile's table.
fn table_row(stdout: &str, function: &str) -> Option<(f64, f64, u64)> {
    table_row_where(stdout, |name| name == function)
}

/// [`table_row`] of the first row whose function name (the rest of the line after the three
/// figures: a demangled method of an `impl` block holds a space) satisfies `wanted`.
fn table_row_where(stdout: &str, wanted: impl Fn(&str) -> bool) -> Option<(f64, f64, u64)> {
    let line = stdout.lines().find(|l| {
        let mut fields = l.split_whitespace();
        fields.by_ref().take(3).count() == 3 && wanted(&fields.collect::<Vec<_>>().join(" "))
    })?;
    let mut fields = line.split_whitespace();
    let percent = |f: Option<&str>| f?.trim_end_matches('%').parse::<f64>().ok();
    Some((
        percent(fields.next())?,
        percent(fields.next())?,
        fields.next()?.parse().ok()?,
    ))
}

#[test]
fn profile_of_a_hot_loop_attributes_it_at_least_90_percent() {
    let dir = scratch("profile-hot-loop");
    let elf = guest_dir(&[]).join("profile_hot_loop");
    let run = run_in(&dir, "profile_hot_loop", &elf, &[]);
    run.assert_passed();
    let (_, total, samples) = table_row(&run.stdout, "profile_hot_loop::hot_loop")
        .unwrap_or_else(|| panic!("no row for hot_loop in\n{}", run.stdout));
    println!("hot_loop: {total}% of the samples ({samples})");
    assert!(total >= 90.0, "hot_loop has {total}% of the samples");
    let (_, main_total, main_samples) =
        table_row(&run.stdout, "profile_hot_loop::main").expect("a row for main");
    assert_eq!(main_total, 100.0, "every stack reaches main");
    assert!(main_samples >= 100);
    let folded = std::fs::read_to_string(dir.join("pmprobe-profile.folded")).unwrap();
    let in_folded: u64 = folded
        .lines()
        .filter(|l| l.contains("profile_hot_loop::hot_loop"))
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(
        in_folded, samples,
        "the folded stacks hold the table's count"
    );
    let svg = std::fs::read_to_string(dir.join("pmprobe-profile.svg")).unwrap();
    assert!(svg.contains("hot_loop"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Every core samples its own run of a hot loop into one profile (qemu/run's 4 cores).
#[test]
fn profile_of_a_hot_loop_on_every_core_holds_each_core_samples() {
    let dir = scratch("profile-cores");
    let elf = guest_dir(&[]).join("profile_cores");
    let run = run_in(&dir, "profile_cores", &elf, &[]);
    run.assert_passed();
    let per_core = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("samples per core: "))
        .unwrap_or_else(|| panic!("pmprofile's samples per core\n{}", run.stdout));
    let counts: Vec<u64> = per_core
        .split(", ")
        .map(|entry| entry.rsplit_once(": ").unwrap().1.parse().unwrap())
        .collect();
    assert_eq!(counts.len(), 4, "{per_core}");
    assert!(counts.iter().all(|&n| n >= 20), "{per_core}");
    // Each core's stacks start at a "core N" frame, with that core's samples.
    for (core, count) in counts.iter().enumerate() {
        let root = format!("core {core}");
        let samples = run
            .stdout
            .lines()
            .find_map(|l| l.trim_end().strip_suffix(&root)?.split_whitespace().nth(2))
            .and_then(|samples| samples.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("a row for {root}\n{}", run.stdout));
        assert_eq!(samples, *count, "{root}");
    }
    let (_, total, _) = table_row(&run.stdout, "profile_cores::hot_loop")
        .unwrap_or_else(|| panic!("no row for hot_loop in\n{}", run.stdout));
    assert!(total >= 90.0, "hot_loop has {total}% of the samples");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn profile_skid_of_both_sources_is_measured() {
    let run = run_guest("profile_skid", &Options::default());
    run.assert_passed();
    println!("{}", run.stdout);
}

#[test]
fn breakpoint_on_a_function_fires_once_per_call_and_steps_past() {
    let run = run_guest("breakpoint_hits", &Options::default());
    run.assert_passed();
    for check in [
        "results_unchanged_by_stepping",
        "breakpoint_fires_once_per_call",
        "listener_saw_every_hit",
        "hit_pc_is_the_function",
        "no_hit_after_removal",
        "pc_event_runs_per_hit",
    ] {
        assert_eq!(run.check(check), Some(true), "{check}");
    }
}

#[test]
fn breakpoint_comparators_all_in_use_is_a_typed_error() {
    let run = run_guest("breakpoint_hits", &Options::default());
    assert_eq!(
        run.check("all_breakpoints_in_use_is_a_typed_error"),
        Some(true),
        "{}",
        run.stdout
    );
    run.assert_output_contains("breakpoint comparators (ID_AA64DFR0_EL1.BRPs + 1): 6");
}

#[test]
fn watchpoint_on_a_variable_reports_every_write_with_pc_and_size() {
    let run = run_guest("watchpoint_writes", &Options::default());
    run.assert_passed();
    for check in [
        "every_store_happened",
        "every_write_reported_once",
        "write_pc_size_and_kind",
        "write_address_inside_the_access",
        "no_report_after_removal",
    ] {
        assert_eq!(run.check(check), Some(true), "{check}");
    }
    for size in [8, 4, 2, 1] {
        assert!(
            run.stdout.contains(&format!(" size {size} ")),
            "a write of {size} bytes\n{}",
            run.stdout
        );
    }
}

#[test]
fn watchpoint_comparators_all_in_use_is_a_typed_error() {
    let run = run_guest("watchpoint_writes", &Options::default());
    assert_eq!(
        run.check("all_watchpoints_in_use_is_a_typed_error"),
        Some(true),
        "{}",
        run.stdout
    );
    run.assert_output_contains("watchpoint comparators (ID_AA64DFR0_EL1.WRPs + 1): 4");
}

/// On the runner's 4 cores the host table, and so the profile, is the one-core reference runs
/// on the boot core.
#[test]
fn profile_of_the_demo_agrees_with_its_host_instruction_table() {
    profile_of_the_demo_on(None);
}

/// On one core the host table, and so the profile, is the SPU phase itself.
#[test]
fn profile_of_the_demo_on_one_core_agrees_with_its_host_instruction_table() {
    profile_of_the_demo_on(Some(1));
}

fn profile_of_the_demo_on(cores: Option<u32>) {
    let dir = scratch(&format!("profile-demo-{}", cores.unwrap_or(0)));
    let elf = common::qemu::demo_elf();
    // perf record's sampling options, one per run: `-F 5000` (the timer every 62.5 MHz / 5000
    // = 12 500 ticks) and `-c 12500` (every 12 500 ticks), half the default rate either way.
    let sampling: &[&str] = match cores {
        Some(1) => &["--profile", "-F", "5000"],
        _ => &["--profile", "-c", "12500"],
    };
    let run = run_on_cores(&dir, "demo --profile", &elf, cores, sampling);
    run.assert_passed();
    assert!(
        run.stdout
            .contains(" samples of the generic timer every 12500 ticks, 0 dropped"),
        "{}",
        run.stdout
    );
    // The firmware's own cross-checks (a listener on the sample probe point) and pmprofile's
    // (the call stacks, symbolized).
    for check in [
        "profile_share_pipeline",
        "profile_share_instruction",
        "profile_pipeline_larger_share",
        "profile_no_drops",
        "share_pipeline",
        "share_instruction",
    ] {
        assert_eq!(run.check(check), Some(true), "{check}\n{}", run.stdout);
    }
    let table_start = run
        .stdout
        .find("# ")
        .and_then(|at| run.stdout[at..].find(" samples of ").map(|_| at))
        .expect("pmprofile's table");
    let table = &run.stdout[table_start..];
    // Every sample is in the runs the host table shows: with several cores the one-core
    // reference runs, on one core the SPU phase.
    let sampled_runs = match cores {
        Some(1) => "pmprobe::demo::cores::spread::run_phase",
        _ => "pmprobe::demo::cores::reference::check",
    };
    let (_, sampled_total, _) = table_row(table, sampled_runs)
        .unwrap_or_else(|| panic!("a row for {sampled_runs}\n{table}"));
    assert_eq!(sampled_total, 100.0, "{sampled_runs}\n{table}");
    // `Pipeline::run`, whichever module of `spu::pipeline` defines the type: its symbol then
    // reads `pmprobe::spu::pipeline::<impl pmprobe::spu::pipeline::state::Pipeline>::run`.
    let pipeline_run = |name: &str| {
        name.starts_with("pmprobe::spu::pipeline::")
            && (name.ends_with("::Pipeline::run") || name.ends_with("::Pipeline>::run"))
    };
    let (_, pipeline_total, _) = table_row_where(table, pipeline_run)
        .unwrap_or_else(|| panic!("a row for the pipeline\n{table}"));
    let (_, functional_total, _) =
        table_row(&format!("{table}\n"), "pmprobe::spu::unit::run_functional")
            .unwrap_or((0.0, 0.0, 0));
    assert!(
        pipeline_total > functional_total,
        "pipeline mode has the larger share: {pipeline_total}% vs {functional_total}%"
    );
    for file in [
        "pmprobe-profile.folded",
        "pmprobe-profile.svg",
        "pmprobe-profile.json",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains("pmprobe::spu::pipeline::"), "{file}");
    }
    perf_tools::check_demo_perf_data(&dir, &elf);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn breakpoint_and_watchpoint_hit_costs_are_measured() {
    let run = run_guest("breakpoint_watchpoint_cost", &Options::default());
    run.assert_passed();
    for line in run.stdout.lines().filter(|l| l.starts_with("one ")) {
        println!("{line}");
    }
}
