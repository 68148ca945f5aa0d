//! The demo firmware (`cargo run`) under QEMU: its banner must show what QEMU's CPU models report
//! (facts from pmu-reference.md: cortex-a57 = MIDR 0x411fd070, PMUv3, PMCR.N = 6, PMCEID0 = 0x20101;
//! `-cpu max` = PMUVer 6).
mod common;

use common::qemu::{Options, demo_elf, run_image};

#[test]
fn banner_on_cortex_a57() {
    let run = run_image("demo", &demo_elf(), &Options::default());
    assert_eq!(run.exit_code, Some(0), "{}\n{}", run.stdout, run.stderr);
    for line in [
        "CPU      Arm Cortex-A57 r1p0 (MIDR_EL1 0x411fd070)",
        "EL       El1",
        "PMU      PMUv3 (PMUVer 1)",
        "counters N = 6 event counters",
        "events   3 implemented common events: {SW_INCR, INST_RETIRED, CPU_CYCLES}",
    ] {
        run.assert_output_contains(line);
    }
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
