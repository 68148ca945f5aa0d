//! The embedding example on a second board (`examples/raspi3b`): QEMU `raspi3b` starts its raw
//! image at EL2 on core 0; it runs one SPU under a probe listener, measures it with the real PMU
//! at EL2, and takes a timer interrupt through the BCM2836 local interrupt controller.
mod common;

use common::qemu::{Options, raspi3b_image, run_image};

#[test]
fn raspi3b_example_boots_at_el2_and_passes() {
    let run = run_image(
        "raspi3b",
        &raspi3b_image(),
        &Options {
            machine: "raspi3b",
            cpu: "cortex-a53",
            ..Options::default()
        },
    );
    run.assert_passed();
    run.assert_output_contains("pmprobe embedded on raspi3b (BCM2837, aarch64-rt at EL2)");
    // CurrentEL reads 2 on core 0 (MPIDR Aff0 0); aarch64-rt's el2 set SCTLR_EL2.{M,C,I}.
    run.assert_output_contains("core 0 at EL2, MMU on, caches on (SCTLR_EL2 0x");
    // dot.s: 16 fma lanes give 1^2 + ... + 16^2 = 1496.0 = 0x44bb0000.
    run.assert_output_contains("$3 = 0x44bb0000 (1496)");
    // The EL1 physical timer, Non-secure, is bit 1 of the controller's core 0 IRQ source
    // register (QA7 rev 3.4, 0x4000_0060).
    run.assert_output_contains("IRQs taken at EL2: 1, sources 0x2");
    for check in [
        "el2",
        "result",
        "listener",
        "host_pmu",
        "timer_routed",
        "timer_irq",
    ] {
        assert_eq!(
            run.check(check),
            Some(true),
            "check {check}\n{}",
            run.stdout
        );
    }
    run.assert_output_contains("raspi3b: 0 checks failed");
}
