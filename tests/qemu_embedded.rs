//! The embedding example (`examples/embedded`): a firmware with its own runtime (aarch64-rt)
//! that uses pmprobe as a library (`default-features = false`) boots under QEMU, runs one SPU
//! under a probe listener, measures it with the real PMU and exits 0 when everything agrees.
mod common;

use common::qemu::{Options, embedded_elf, run_image};

#[test]
fn embedding_example_boots_with_its_own_runtime_and_passes() {
    let run = run_image("embedded", &embedded_elf(), &Options::default());
    run.assert_passed();
    run.assert_output_contains("pmprobe embedded in a firmware of its own (aarch64-rt)");
    run.assert_output_contains("MMU on, caches on (SCTLR_EL1 0x");
    // dot.s: 16 fma lanes give 1496.0; the listener saw every retired instruction.
    run.assert_output_contains("$3 = 0x44bb0000 (1496)");
    run.assert_output_contains("RetiredInsts listener counted");
    run.assert_output_contains("embedded: 0 checks failed");
}
