//! QEMU tests of the probe framework: a point notified from the timer interrupt while the main
//! program attaches and detaches listeners; the instructions-per-notify benchmark; and the
//! instructions per event of each way of observing the SPU (PMU feeds, stall feed, stack
//! distance, memory trace).
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

#[test]
fn instructions_per_observed_event_benchmark() {
    let run = run_guest("observer_bench", &Options::default());
    for line in run
        .stdout
        .lines()
        .filter(|l| l.starts_with("observer_bench:"))
    {
        println!("{line}");
    }
    run.assert_passed();
}
