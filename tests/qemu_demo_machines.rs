//! The demo firmware on other machines than the default: its banner on the CPU models and GICs
//! QEMU offers (cortex-a57 = MIDR 0x411fd070, PMUv3, PMCR.N = 6, PMCEID0 = 0x20101; `-cpu max`
//! = PMUVer 6; GICv2 by default, GICv3 with `gic-version=3`), `-cpu max` on 8 cores, and QEMU
//! without `-icount` (as under KVM or on a board), where the PMU lacks INST_RETIRED: the demo
//! shows the lack with PMCEID as its evidence, skips the checks that need it and exits 0.
mod common;

use common::demo::{DemoRun, assert_spread, run_demo_with};
use common::demo_mfc::assert_mfc;
use common::qemu::{Options, demo_elf, run_image};

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
    // One SPU of the work queue per core after its interleaved part.
    assert_mfc(&run, 0, 1);
    assert!(!run.stdout.contains("skipped"), "{}", run.context());
    assert!(
        run.stdout.contains("cross-checks held; exit 0"),
        "{}",
        run.context()
    );
}

/// `--list-events` on cortex-a57: PMCEID0 = 0x20101 under -icount announces SW_INCR,
/// INST_RETIRED and CPU_CYCLES (names and numbers as Arm's cortex-a57.json gives them);
/// the A57 table's events from 0x40 up follow, and the demo itself does not run.
#[test]
fn list_events_on_cortex_a57_prints_the_announced_events_and_exits_0() {
    let run = run_demo_with("list-events", &[], &["--list-events"]);
    assert_eq!(run.exit_code, Some(0), "{}", run.context());
    let out = &run.stdout;
    let announced_at = out
        .find("Events of Cortex-A57 (MIDR_EL1 0x411fd070) that PMCEID announces:")
        .unwrap_or_else(|| panic!("no announced-events heading\n{}", run.context()));
    let beyond_at = out
        .find("Events Cortex-A57 lists that PMCEID cannot describe (0x40 and up):")
        .unwrap_or_else(|| panic!("no core-table heading\n{}", run.context()));
    let announced: Vec<&str> = out[announced_at..beyond_at]
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(
        announced,
        ["SW_INCR", "INST_RETIRED", "CPU_CYCLES"],
        "{}",
        run.context()
    );
    // The firmware carries no descriptions (image size): a name line, no bracketed text.
    assert!(
        out.contains("  INST_RETIRED                     [0x0008]\n"),
        "{}",
        run.context()
    );
    assert!(
        out.contains("  CPU_CYCLES                       [0x0011]\n"),
        "{}",
        run.context()
    );
    assert!(out[beyond_at..].contains("  L1D_CACHE_RD                     [0x0040]"));
    assert!(!out.contains("pmprobe demo firmware"), "{}", run.context());
}
