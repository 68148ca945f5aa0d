//! The demo firmware (`cargo run`) under QEMU.
//!
//! - (Its banner on other CPU models and GICs, and runs without `-icount`: qemu_demo_machines.rs.)
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
//!   is counted as channel stalls. The MFC sections follow (streaming with one buffer and two,
//!   the work queue on eight SPUs, the signal handshake on two cores): their checks hold and
//!   their tables say what they must (tests/common/demo_mfc.rs).
//! - The exit status says whether the cross-checks held: a deliberately disturbed PMU count
//!   (`--miscount`) must make the demo name the failed checks and exit 1; `--fault` must
//!   produce the exception report and exit 3 (the runtime's exception status).
mod common;

use common::demo::{
    assert_channels, assert_spread, chart_total, core_rows, din_records, estimate_rows, run_demo,
    run_demo_on, running_shares, stats_value, table_count,
};
use common::demo_mfc::assert_mfc;

#[test]
fn every_section_is_present_and_consistent() {
    let run = run_demo("consistent", &[]);
    // Without `--profile` the run writes no profile: nothing named pmprobe-profile* in its
    // working directory, and no "Profile" section.
    assert!(!run.stdout.contains("Profile"), "{}", run.context());
    let profiles: Vec<_> = std::fs::read_dir(&run.dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("pmprobe-profile"))
        .collect();
    assert!(profiles.is_empty(), "{profiles:?}");
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
    assert_mfc(&run, 0, 1);
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
    // (instruction mode). One run counts all ten events: the pinned ones (the first table
    // line of each event) exactly, the three flexible groups each a share of the time.
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
        assert_multiplexed(section);
        assert!(section.contains("_result ... ok"), "{section}");
        if section.contains("in pipeline mode") {
            pipeline += 1;
            assert_eq!(cycles, stats_value(section, "Total Cycle count"));
            assert_eq!(
                instructions,
                stats_value(section, "Total Instruction count")
            );
            // The exact column beside the scaled estimates is the SPU's own statistics.
            let exact = |event: &str| {
                estimate_rows(section)
                    .into_iter()
                    .find(|row| row.0 == event)
                    .unwrap_or_else(|| panic!("no estimate row for {event}\n{section}"))
                    .3
            };
            assert_eq!(
                exact("BR_RETIRED"),
                stats_value(section, "Branch instructions")
            );
            // Every stall cycle is either a front-end or a back-end stall.
            let issued = stats_value(section, "Single cycle")
                + stats_value(section, "Dual cycle")
                + stats_value(section, "Nop cycle");
            assert_eq!(
                exact("STALL_FRONTEND") + exact("STALL_BACKEND"),
                cycles - issued,
                "{section}"
            );
            // Top-down level 1 from the SPU's cycle accounting adds up to its cycles.
            assert!(
                section.contains(&format!("check spu{spu}_topdown_cycles ... ok")),
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

    // The Konata log of SPU2's log run: the Kanata header, and one retire record (`R` with
    // type 0) per completed instruction, except the stop's, whose cycle ends the run before it
    // leaves stage o. The log run takes the counted run's cycles and instructions.
    assert!(
        run.section("SPU2:")
            .contains("check spu2_konata_run_agrees ... ok"),
        "{}",
        run.context()
    );
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
    for check in ["spu0_insts_pmu_vs_run", "spu0_insts_pmu_vs_stats"] {
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
    assert!(run.stdout.contains("demo: 3 of "), "{}", run.context());
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
    // The channel pair and the handshake run interleaved on the one core.
    assert_channels(&run, 0, 0);
    assert_mfc(&run, 0, 0);
    assert!(
        run.stdout
            .contains("demo: all 97 cross-checks held; exit 0"),
        "{}",
        run.context()
    );
}

/// `--interval-ms 5`: perf stat -I's lines come while the SPU phase runs (before the SPU
/// sections), each with its time and SPU; per SPU the times grow and the intervals' counts of
/// INST_RETIRED (pinned) add up to the SPU's total.
#[test]
fn interval_mode_prints_each_spus_counts_while_the_phase_runs() {
    let run = run_demo("interval", &["--interval-ms", "5"]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    let header = run
        .stdout
        .find("#           time spu                counts unit events")
        .unwrap_or_else(|| panic!("no interval header\n{}", run.context()));
    let sections = run.stdout.find("\n== SPU0:").unwrap();
    assert!(header < sections, "{}", run.context());
    for spu in 0..4 {
        let tag = format!("SPU{spu}");
        let mut times = Vec::new();
        let mut instructions = 0;
        for line in run.stdout[header..sections].lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.len() < 4 || words[1] != tag || words[3] != "INST_RETIRED" {
                continue;
            }
            let (seconds, nanos) = words[0].split_once('.').unwrap();
            assert_eq!(nanos.len(), 9, "{line}");
            times.push(
                seconds.parse::<u64>().unwrap() * 1_000_000_000 + nanos.parse::<u64>().unwrap(),
            );
            instructions += words[2].replace(',', "").parse::<u64>().unwrap();
        }
        assert!(times.len() >= 2, "{tag}: {times:?}\n{}", run.context());
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{tag}: {times:?}");
        let section = run.section(&format!("SPU{spu}:"));
        assert_eq!(instructions, table_count(section, "INST_RETIRED"), "{tag}");
        assert!(
            section.contains(&format!("check spu{spu}_intervals_add_up ... ok")),
            "{section}"
        );
        assert!(section.contains("dropped (ring of 8)"), "{section}");
    }
}

#[test]
fn two_cores_share_the_spus_and_the_channel_pair() {
    let run = run_demo_on("two-cores", 2, &[]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    assert_spread(&run, 2);
    assert_channels(&run, 0, 1);
    assert_mfc(&run, 0, 1);
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

/// One SPU's multiplexed table: the four pinned events ran all the time (no percentage), the
/// nine events of the three flexible groups each a share of it, the same within a group, the
/// three groups' shares adding up to the whole time (one group on at a time); and each scaled
/// estimate's error is what its estimate and exact columns give.
fn assert_multiplexed(section: &str) {
    let shares = running_shares(section);
    assert_eq!(shares.len(), 13, "{section}");
    let names: Vec<&str> = shares.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names[..4],
        ["CPU_CYCLES", "INST_RETIRED", "LD_RETIRED", "ST_RETIRED"],
        "{section}"
    );
    assert!(
        shares[..4].iter().all(|(_, share)| share.is_none()),
        "{section}"
    );
    let groups: Vec<f64> = shares[4..]
        .chunks(3)
        .map(|group| {
            let first = group[0].1.expect("a flexible event ran part of the time");
            assert!(
                group.iter().all(|(_, share)| *share == Some(first)),
                "{section}"
            );
            first
        })
        .collect();
    let sum: f64 = groups.iter().sum();
    assert!((sum - 100.0).abs() < 0.02, "{groups:?}\n{section}");
    for (event, _, estimate, exact, error) in estimate_rows(section) {
        if exact == 0 {
            continue;
        }
        let expected = 100.0 * (estimate as f64 - exact as f64) / exact as f64;
        assert_eq!(error, format!("{expected:+.2} %"), "{event}\n{section}");
    }
}
