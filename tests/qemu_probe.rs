//! QEMU tests of the probe framework: a point notified from the timer interrupt while the main
//! program attaches and detaches listeners; and the instructions-per-notify benchmark.
mod common;

use common::qemu::{Options, run_guest};

#[test]
fn a_point_notified_from_an_interrupt_stays_consistent_under_attach_and_detach() {
    let run = run_guest("probe_irq", &Options::default());
    println!("{}", run.stdout);
    run.assert_passed();
}

#[test]
fn instructions_per_notify_benchmark() {
    let run = run_guest("probe_bench", &Options::default());
    for line in run.stdout.lines().filter(|l| l.starts_with("probe_bench:")) {
        println!("{line}");
    }
    run.assert_passed();
}
