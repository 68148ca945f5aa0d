//! The demo firmware (`cargo run`) under QEMU.
//!
//! - Its banner must show what QEMU's CPU models report (cortex-a57 = MIDR 0x411fd070, PMUv3,
//!   PMCR.N = 6, PMCEID0 = 0x20101; `-cpu max` = PMUVer 6), that the MMU and caches are on, and
//!   which GIC and PSCI the board has (GICv2 by default, GICv3 with `gic-version=3`).
//! - Every section is present and consistent — the test parses the printed numbers
//!   itself: each SPU's PMU table against its own statistics block, the stack distance chart
//!   against the PMU's load/store counts, the memory trace file written through semihosting
//!   against the traced SPU's counts (Dinero din syntax: `<0|1|2> <hex address>`), and the
//!   Konata log (Kanata 0004 header, one retire record per completed instruction).
//! - The SPU phase runs on 4 cores by default (the SPUs dealt to the cores, each exactly once,
//!   a per-core table from each core's own PMU) and every SPU's figures must equal a run on one
//!   core alone; one core behaves as before; more cores than SPUs leave the rest idle; a core
//!   that does not start is named and the demo goes on. An SPU producer/consumer pair talks
//!   through mailboxes across cores (interleaved on one core): every word arrives, and waiting
//!   is counted as channel stalls.
//! - The exit status says whether the cross-checks held: a deliberately disturbed PMU count
//!   (`--miscount`) must make the demo name the failed checks and exit 1; `--fault` must
//!   produce the exception report and exit 3 (the runtime's exception status).
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::qemu::{Options, demo_elf, repo, run_image};

#[test]
fn banner_on_cortex_a57() {
    let run = run_image("demo", &demo_elf(), &Options::default());
    assert_eq!(run.exit_code, Some(0), "{}\n{}", run.stdout, run.stderr);
    for line in [
        "CPU      Arm Cortex-A57 r1p0 (MIDR_EL1 0x411fd070)",
        "EL       EL1",
        "PMU      PMUv3 (PMUVer 1)",
        "counters N = 6 event counters",
        "events   3 implemented common events: {SW_INCR, INST_RETIRED, CPU_CYCLES}",
        "memory   MMU on, caches on (SCTLR_EL1 0x",
        "GIC      GICv2 (288 INTIDs)",
        "PSCI     1.1 through hvc",
    ] {
        run.assert_output_contains(line);
    }
}

#[test]
fn banner_on_gicv3_names_it_and_the_demo_passes() {
    let run = run_image(
        "demo (gic-version=3)",
        &demo_elf(),
        &Options {
            extra: &["-M", "virt,gic-version=3"],
            ..Options::default()
        },
    );
    assert_eq!(run.exit_code, Some(0), "{}\n{}", run.stdout, run.stderr);
    run.assert_output_contains("GIC      GICv3 (256 INTIDs)");
    run.assert_output_contains("memory   MMU on, caches on (SCTLR_EL1 0x");
}

#[test]
fn banner_on_cpu_max_reports_pmuv3p5() {
    let run = run_image(
        "demo (-cpu max)",
        &demo_elf(),
        &Options {
            cpu: "max",
            ..Options::default()
        },
    );
    assert_eq!(run.exit_code, Some(0), "{}\n{}", run.stdout, run.stderr);
    run.assert_output_contains("PMU      PMUv3p5 (PMUVer 6)");
    run.assert_output_contains("counters N = 6 event counters");
}

/// A demo run in its own working directory (the semihosting files land there).
struct DemoRun {
    exit_code: Option<i32>,
    stdout: String,
    stderr: String,
    dir: PathBuf,
}

/// Runs the demo with qemu/run's default of 4 cores.
fn run_demo(name: &str, guest_args: &[&str]) -> DemoRun {
    run_demo_on(name, 4, guest_args)
}

fn run_demo_on(name: &str, cores: u32, guest_args: &[&str]) -> DemoRun {
    let cores = cores.to_string();
    run_demo_with(name, &["--smp", &cores], guest_args)
}

/// Runs the demo with `runner_args` for qemu/run (a later `--smp` wins over the default 4).
fn run_demo_with(name: &str, runner_args: &[&str], guest_args: &[&str]) -> DemoRun {
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
    fn context(&self) -> String {
        format!("--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }

    /// The text of the section whose heading starts with `== {title}`.
    fn section(&self, title: &str) -> &str {
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

/// The number in the first column of the line of `section` that holds `label` as a word.
fn table_count(section: &str, label: &str) -> u64 {
    section
        .lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            let count = words.next()?;
            (words.next()? == label).then(|| count.parse().ok())?
        })
        .unwrap_or_else(|| panic!("no table line for {label} in\n{section}"))
}

/// The last number of the statistics line `: <label> <value>`.
fn stats_value(section: &str, label: &str) -> u64 {
    section
        .lines()
        .find_map(|line| {
            let rest = line.trim_start().strip_prefix(": ")?.strip_prefix(label)?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no statistics line {label:?} in\n{section}"))
}

/// Total accesses of a stack distance chart block (`reads: N accesses`).
fn chart_total(section: &str, direction: &str) -> u64 {
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
fn din_records(path: &Path) -> Vec<(u8, u64)> {
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
fn core_rows(run: &DemoRun) -> Vec<(usize, Vec<usize>, u64, u64)> {
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
fn assert_spread(run: &DemoRun, cores: usize) {
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
fn assert_channels(run: &DemoRun, producer: usize, consumer: usize) {
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

#[test]
fn every_section_is_present_and_consistent() {
    let run = run_demo("consistent", &[]);
    // Four cores by default: the banner lists them, each SPU ran on its own core, and each one's
    // figures equal a run of the same SPU on one core alone.
    for core in 0..4 {
        assert!(
            run.stdout.contains(&format!(
                "core {core}   MPIDR 0x8000000{core}, PMUv3 (PMUVer 1), N = 6"
            )),
            "{}",
            run.context()
        );
    }
    assert_spread(&run, 4);
    assert_channels(&run, 0, 1);
    let reference = run.section("One-core reference");
    for spu in 0..4 {
        assert!(
            reference.contains(&format!("check spu{spu}_same_as_one_core ... ok")),
            "{reference}"
        );
    }
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    assert!(!run.stdout.contains("FAILED"), "{}", run.context());
    assert!(
        run.stdout.contains("cross-checks held; exit 0"),
        "{}",
        run.context()
    );

    // Sections 2-4: four SPUs, three in pipeline mode and one in instruction mode; each one's
    // PMU table agrees with its own statistics (pipeline) or with one cycle per instruction
    // (instruction mode).
    let mut pipeline = 0;
    let mut loads_stores = Vec::new();
    for spu in 0..4 {
        let section = run.section(&format!("SPU{spu}:"));
        let cycles = table_count(section, "CPU_CYCLES");
        let instructions = table_count(section, "INST_RETIRED");
        assert!(cycles > 10_000 && instructions > 1_000, "{section}");
        for event in [
            "BR_RETIRED",
            "BR_MIS_PRED",
            "STALL_FRONTEND",
            "STALL_BACKEND",
        ] {
            table_count(section, event);
        }
        assert!(
            section.contains(&format!("SPU{spu}: CP31, ")),
            "prof_cp31 line missing:\n{section}"
        );
        assert!(section.contains("_result ... ok"), "{section}");
        if section.contains("in pipeline mode") {
            pipeline += 1;
            assert_eq!(cycles, stats_value(section, "Total Cycle count"));
            assert_eq!(
                instructions,
                stats_value(section, "Total Instruction count")
            );
            assert_eq!(
                table_count(section, "BR_RETIRED"),
                stats_value(section, "Branch instructions")
            );
            // Every stall cycle is either a front-end or a back-end stall.
            let issued = stats_value(section, "Single cycle")
                + stats_value(section, "Dual cycle")
                + stats_value(section, "Nop cycle");
            assert_eq!(
                table_count(section, "STALL_FRONTEND") + table_count(section, "STALL_BACKEND"),
                cycles - issued,
                "{section}"
            );
        } else {
            assert!(section.contains("in instruction mode"), "{section}");
            assert_eq!(cycles, instructions, "instruction mode: one cycle each");
        }
        loads_stores.push(table_count(section, "LD_RETIRED") + table_count(section, "ST_RETIRED"));
    }
    assert_eq!(pipeline, 3);
    let saxpy = run.section("SPU0:");
    assert!(saxpy.contains("BreakPcEvent fired: SPU0 reached saxpy_branch"));

    // Section 5: host figures for every SPU, in both modes.
    let host = run.section("Host core");
    for spu in 0..4 {
        let row = host
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("SPU{spu} ")))
            .unwrap_or_else(|| panic!("no host row for SPU{spu}\n{host}"));
        let numbers: Vec<f64> = row
            .split_whitespace()
            .skip(2)
            .map(|w| w.parse().unwrap())
            .collect();
        // SPU cycles, host instructions, host cycles, and the two ratios.
        assert_eq!(numbers.len(), 5, "{row}");
        assert!(
            numbers[1] > numbers[0],
            "the host works for each SPU cycle: {row}"
        );
        let ratio = numbers[1] / numbers[0];
        assert!((ratio - numbers[3]).abs() < 0.01, "{row}");
    }
    assert!(host.contains("pipeline mode: ") && host.contains("instruction mode: "));

    // Section 6: the stack distance chart covers SPU1's loads and stores exactly.
    let chart = run.section("Stack distance");
    assert_eq!(
        chart_total(chart, "reads") + chart_total(chart, "writes"),
        loads_stores[1]
    );

    // The din trace of SPU3 holds one record per load/store it made, reads 0, writes 1, all
    // inside the 256 KiB local store, 16-byte aligned (quadword accesses).
    let din = din_records(&run.dir.join("pmprobe-demo-spu3.din"));
    assert_eq!(din.len() as u64, loads_stores[3]);
    assert!(
        din.iter()
            .all(|&(label, address)| label < 2 && address < 256 * 1024 && address % 16 == 0)
    );
    let section = run.section("SPU3:");
    assert_eq!(
        din.iter().filter(|&&(label, _)| label == 0).count() as u64,
        table_count(section, "LD_RETIRED")
    );
    let trace = run.section("Memory trace");
    assert!(trace.contains("wrote pmprobe-demo-spu3.din"), "{trace}");
    assert!(
        trace.contains(&format!(
            "kept 256, dropped {} records",
            loads_stores[3] - 256
        )),
        "{trace}"
    );

    // The Konata log of SPU2's second run: the Kanata header, and one retire record (`R`
    // with type 0) per completed instruction, except the stop's, whose cycle ends the run
    // before it leaves stage o.
    let konata = run.section("Konata");
    assert!(
        konata.contains("wrote pmprobe-demo-spu2.konata"),
        "{konata}"
    );
    let text = std::fs::read_to_string(run.dir.join("pmprobe-demo-spu2.konata"))
        .expect("the Konata log was written");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("Kanata\t0004"));
    assert!(lines.next().unwrap_or_default().starts_with("C=\t"));
    let retired = text
        .lines()
        .filter(|l| l.starts_with("R\t") && l.ends_with("\t0"))
        .count() as u64;
    let instructions = table_count(run.section("SPU2:"), "INST_RETIRED");
    assert!(
        (instructions - 1..=instructions).contains(&retired),
        "{retired} retire records, {instructions} instructions"
    );
}

#[test]
fn a_disturbed_count_fails_the_named_checks() {
    let run = run_demo("miscount", &["--miscount"]);
    assert_eq!(run.exit_code, Some(1), "{}", run.context());
    for check in [
        "spu0_insts_pmu_vs_run",
        "spu0_insts_pmu_vs_stats",
        "spu0_runs_agree",
    ] {
        assert!(
            run.stdout.contains(&format!("check {check} ... FAILED")),
            "{check}\n{}",
            run.context()
        );
        assert!(run.stdout.contains(&format!("  - {check}\n")), "{check}");
    }
    // On 4 cores, SPU0's disturbed run also differs from its undisturbed one-core reference.
    assert!(
        run.stdout
            .contains("check spu0_same_as_one_core ... FAILED"),
        "{}",
        run.context()
    );
    assert!(run.stdout.contains("demo: 4 of "), "{}", run.context());
}

#[test]
fn one_core_runs_the_demo_as_before() {
    let run = run_demo_on("one-core", 1, &[]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    assert!(run.stdout.contains("cores    1 (the boot core + 0 started"));
    assert_spread(&run, 1);
    // Everything ran on this one core: there is nothing to compare, and the host table is
    // measured in the runs themselves.
    assert!(
        !run.stdout.contains("One-core reference"),
        "{}",
        run.context()
    );
    assert!(!run.stdout.contains("Measured in the one-core reference"));
    for spu in 0..4 {
        assert!(
            run.stdout
                .contains(&format!("check spu{spu}_result ... ok"))
        );
    }
    // The channel pair runs interleaved on the one core.
    assert_channels(&run, 0, 0);
    assert!(
        run.stdout
            .contains("demo: all 71 cross-checks held; exit 0"),
        "{}",
        run.context()
    );
}

#[test]
fn two_cores_share_the_spus_and_the_channel_pair() {
    let run = run_demo_on("two-cores", 2, &[]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    assert_spread(&run, 2);
    assert_channels(&run, 0, 1);
    assert!(
        run.stdout.contains("cross-checks held; exit 0"),
        "{}",
        run.context()
    );
}

#[test]
fn more_cores_than_spus_leave_the_rest_idle() {
    let run = run_demo_on("six-cores", 6, &[]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    assert_spread(&run, 6);
    let rows = core_rows(&run);
    assert!(
        rows[4].1.is_empty() && rows[5].1.is_empty(),
        "{}",
        run.context()
    );
    assert!(run.section("Cores:").contains("idle"));
}

#[test]
fn a_core_that_does_not_start_is_named_and_the_demo_goes_on() {
    // 0x7f is no core of the machine; the boot core's MPIDR is a core that is already on.
    let run = run_demo(
        "bad-cores",
        &["--extra-core", "0x7f", "--extra-core", "0x80000000"],
    );
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    for line in [
        "error    the core with MPIDR 0x7f did not start: PSCI call failed: Invalid parameters",
        "error    the core with MPIDR 0x80000000 did not start: PSCI call failed: Core already on",
        "cores    4 (the boot core + 3 started",
    ] {
        assert!(run.stdout.contains(line), "{line}\n{}", run.context());
    }
    assert_spread(&run, 4);
    assert!(
        run.stdout.contains("cross-checks held; exit 0"),
        "{}",
        run.context()
    );
}

#[test]
fn fault_argument_gives_the_exception_report_and_a_non_zero_exit() {
    let run = run_demo("fault", &["--fault"]);
    assert_eq!(run.exit_code, Some(3), "{}", run.context());
    assert!(
        run.stdout
            .contains("*** EXCEPTION: Synchronous from current EL")
    );
    assert!(run.stdout.contains("class: Unknown reason (EC=0x00"));
    assert!(
        !run.stdout.contains("== SPU0"),
        "the demo stops at the fault"
    );
}

#[test]
fn unknown_argument_is_refused() {
    let run = run_demo("unknown-argument", &["--no-such-option"]);
    assert_eq!(run.exit_code, Some(2), "{}", run.context());
    assert!(run.stdout.contains("unknown argument --no-such-option"));
    let run = run_demo("bad-mpidr", &["--extra-core", "0xnope"]);
    assert_eq!(run.exit_code, Some(2), "{}", run.context());
    assert!(
        run.stdout.contains("unknown argument 0xnope"),
        "{}",
        run.context()
    );
}

/// What QEMU 7.2's PMU implements without `-icount` (target/arm/helper.c, `pm_events`): SW_INCR
/// (0x00) and CPU_CYCLES (0x11) always, INST_RETIRED (0x08) only when icount is enabled. So
/// PMCEID0_EL0 = bit 0 | bit 17 = 0x20001, with bit 8 clear.
const PMCEID0_WITHOUT_ICOUNT: &str = "PMCEID0_EL0 = 0x20001, bit 8 clear";

/// The checks that compare the host's INST_RETIRED: one per SPU of the host table.
const HOST_INSTRUCTION_CHECKS: [&str; 4] = [
    "host_measured_spu0",
    "host_measured_spu1",
    "host_measured_spu2",
    "host_measured_spu3",
];

/// Asserts a passing demo whose host PMU lacks INST_RETIRED: the lack is shown with PMCEID as
/// its evidence and the checks that need the event are skipped, not failed.
fn assert_passes_without_inst_retired(run: &DemoRun) {
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    assert!(!run.stdout.contains("FAILED"), "{}", run.context());
    let lacking = format!("INST_RETIRED not supported by this PMU ({PMCEID0_WITHOUT_ICOUNT})");
    assert!(run.stdout.contains(&lacking), "{}", run.context());
    assert!(
        run.stdout
            .contains("counts   not exact (QEMU without -icount)"),
        "{}",
        run.context()
    );
    for check in HOST_INSTRUCTION_CHECKS {
        let skipped = format!("check {check} ... skipped ({lacking})");
        assert!(run.stdout.contains(&skipped), "{check}\n{}", run.context());
    }
    assert!(
        run.stdout
            .contains("cross-checks held (4 skipped, see their reasons); exit 0"),
        "{}",
        run.context()
    );
}

#[test]
fn without_icount_the_demo_names_what_the_pmu_lacks_and_exits_0() {
    let run = run_demo_with("no-icount", &["--no-icount"], &[]);
    assert_passes_without_inst_retired(&run);
    // The SPU model does not depend on the host's clock: its checks all run and hold.
    for spu in 0..4 {
        let check = format!("check spu{spu}_same_as_one_core ... ok");
        assert!(run.stdout.contains(&check), "{check}\n{}", run.context());
    }
}

#[test]
fn without_icount_on_cpu_max_with_8_cores_the_demo_exits_0() {
    let run = run_demo_with(
        "no-icount-max-8",
        &["--no-icount", "--cpu", "max", "--smp", "8"],
        &[],
    );
    assert_passes_without_inst_retired(&run);
    assert!(
        run.stdout.contains("cores    8 (the boot core + 7 started"),
        "{}",
        run.context()
    );
}

#[test]
fn cpu_max_with_8_cores_passes_every_check() {
    let run = run_demo_with("max-8", &["--cpu", "max", "--smp", "8"], &[]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    assert!(
        run.stdout.contains("PMU      PMUv3p5 (PMUVer 6)"),
        "{}",
        run.context()
    );
    assert_spread(&run, 8);
    assert!(!run.stdout.contains("skipped"), "{}", run.context());
    assert!(
        run.stdout.contains("cross-checks held; exit 0"),
        "{}",
        run.context()
    );
}
