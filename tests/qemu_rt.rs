//! QEMU tests of the bare-metal runtime and of the test harness itself.
mod common;

use common::qemu::{Options, repo, run_guest, run_image};

#[test]
fn boot_reaches_main_at_el1_with_fp() {
    run_guest("boot", &Options::default()).assert_passed();
}

#[test]
fn raw_binary_image_boots_like_the_elf() {
    // The same program, objcopy'd to a raw image, must boot at 0x4008_0000 too.
    let elf = common::qemu::guest_dir(&[]).join("boot");
    let raw = elf.with_extension("bin");
    let objcopy = common::toolchain::llvm_tool(repo(), "llvm-objcopy");
    let status = std::process::Command::new(&objcopy)
        .args(["-O", "binary"])
        .arg(&elf)
        .arg(&raw)
        .status()
        .unwrap_or_else(|e| panic!("run {}: {e}", objcopy.display()));
    assert!(status.success());
    run_image("boot (raw image)", &raw, &Options::default()).assert_passed();
}

#[test]
fn timer_interrupts_return_and_preserve_state() {
    run_guest("timer_irq", &Options::default()).assert_passed();
}

#[test]
fn undefined_instruction_is_reported_and_exits_nonzero() {
    let run = run_guest("undefined_instruction", &Options::default());
    assert_eq!(
        run.exit_code,
        Some(3),
        "exit status for an exception\n{}",
        run.stdout
    );
    run.assert_output_contains("*** EXCEPTION: Synchronous from current EL with SP_ELx");
    run.assert_output_contains("class: Unknown reason (EC=0x00, IL=1)");
    for field in [
        "ESR_EL1  = 0x0000000002000000",
        "ELR_EL1  = 0x00000000400",
        "FAR_EL1",
        "SPSR_EL1",
    ] {
        run.assert_output_contains(field);
    }
    assert!(
        !run.stdout.contains("survived"),
        "execution continued after the fault"
    );
}

#[test]
fn panic_prints_message_and_location_and_exits_nonzero() {
    let run = run_guest("panic", &Options::default());
    assert_eq!(
        run.exit_code,
        Some(101),
        "exit status for a panic\n{}",
        run.stdout
    );
    // The guest programs are their own workspace: paths are relative to tests/guest.
    run.assert_output_contains("*** PANIC at src/bin/panic.rs:");
    run.assert_output_contains("deliberate guest panic, value = 42");
}

#[test]
fn hung_guest_is_killed_by_the_timeout_and_reported() {
    let opts = Options {
        timeout_s: 3,
        ..Options::default()
    };
    let run = run_guest("hang", &opts);
    assert_eq!(
        run.exit_code,
        Some(124),
        "a hung guest must end with the timeout status"
    );
    run.assert_output_contains("TIMEOUT: the guest did not exit within 3s");
    run.assert_output_contains("spinning forever");
}

#[test]
fn runner_without_qemu_names_the_package() {
    // bash itself by absolute path, and a PATH in which no qemu can be found.
    let out = std::process::Command::new("/bin/bash")
        .arg(repo().join("qemu/run"))
        .arg("whatever.elf")
        .env("PATH", "/nonexistent-pmprobe-test-dir")
        .output()
        .expect("run bash");
    assert_eq!(out.status.code(), Some(127));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("qemu-system-arm"),
        "message must name the package: {err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
}

#[test]
fn defmt_build_is_decoded_by_the_runner() {
    // Built with the defmt feature the UART carries binary defmt frames; qemu/run must decode them
    // (installing defmt-print on first use) so that the checks read exactly as in text mode.
    let opts = Options {
        features: &["defmt"],
        timeout_s: 300,
        ..Options::default()
    };
    let run = run_guest("boot", &opts);
    run.assert_passed();
    let panic = run_guest("panic", &opts);
    assert_eq!(panic.exit_code, Some(101));
    panic.assert_output_contains("deliberate guest panic, value = 42");
}

#[test]
fn irq_mutex_masks_interrupts_also_while_formatting() {
    run_guest("irq_mutex", &Options::default()).assert_passed();
}

/// QEMU options for the GICv3 model of `virt`.
fn gicv3() -> Options {
    Options {
        extra: &["-M", "virt,gic-version=3"],
        ..Options::default()
    }
}

#[test]
fn timer_interrupts_on_gicv3() {
    run_guest("timer_irq", &gicv3()).assert_passed();
}

#[test]
fn pmu_overflow_interrupt_on_gicv3() {
    run_guest("pmu_irq", &gicv3()).assert_passed();
}

#[test]
fn gic_register_indexing_past_intid_64_on_gicv2() {
    let run = run_guest("gic_spi", &Options::default());
    run.assert_passed();
    run.assert_output_contains("GIC: Ok(V2), 288 INTIDs");
}

#[test]
fn gic_register_indexing_past_intid_64_on_gicv3() {
    let run = run_guest("gic_spi", &gicv3());
    run.assert_passed();
    run.assert_output_contains("GIC: Ok(V3), 256 INTIDs");
}

#[test]
fn psci_answers_and_a_missing_conduit_is_an_error() {
    run_guest("psci", &Options::default()).assert_passed();
}

/// Boots `boot_smp` with `extra` and checks that main ran once and every other core was parked.
fn one_core_runs_main(extra: &'static [&'static str], cores: usize) -> common::qemu::GuestRun {
    let run = run_guest(
        "boot_smp",
        &Options {
            extra,
            ..Options::default()
        },
    );
    run.assert_passed();
    assert_eq!(
        run.stdout.matches("guest boot_smp: start").count(),
        1,
        "main ran more than once:\n{}",
        run.stdout
    );
    run.assert_output_contains(&format!(
        "started {} cores, turned away {}",
        cores - 1,
        cores - 1
    ));
    run
}

#[test]
fn only_the_boot_core_runs_main_with_4_cores() {
    one_core_runs_main(&["-smp", "4"], 4);
}

#[test]
fn only_the_boot_core_runs_main_with_a_second_cluster() {
    // GICv3 `virt` puts 16 cores in a cluster (MPIDR Aff0 0..15): core 16 is Aff1 = 1, Aff0 = 0.
    let run = one_core_runs_main(&["-M", "virt,gic-version=3", "-smp", "18"], 18);
    run.assert_output_contains("cluster 1 core with Aff0 = 0: true");
}

#[test]
fn console_benchmark_prints_its_figures() {
    let run = run_guest("console_bench", &Options::default());
    run.assert_passed();
    run.assert_output_contains("bytes of println! =");
}

/// Boots `smp_locks` on 4 cores with `opts` and checks its verdict and the console lines that
/// all four cores printed at once, each from three `print!` calls.
fn smp_locks_on_4_cores(opts: Options) {
    let run = run_guest("smp_locks", &opts);
    run.assert_passed();
    run.assert_output_contains(
        "the core with MPIDR 0x7f did not start: PSCI call failed: Invalid parameters",
    );
    run.assert_output_contains(
        "the core with MPIDR 0x80000000 did not start: PSCI call failed: Core already on",
    );
    let mut seen = std::collections::BTreeSet::new();
    for line in run.stdout.lines().filter(|line| line.contains("smp-line")) {
        let words: Vec<&str> = line.split(' ').collect();
        let whole = words.len() == 4
            && words[0] == "smp-line"
            && words[1].len() == 1
            && words[3] == words[1].repeat(40);
        assert!(
            whole,
            "a console line was cut into: {line:?}\n{}",
            run.stdout
        );
        assert!(
            seen.insert((words[1].to_string(), words[2].to_string())),
            "line printed twice: {line:?}"
        );
    }
    assert_eq!(
        seen.len(),
        4 * 40,
        "every core prints 40 lines\n{}",
        run.stdout
    );
}

#[test]
fn smp_locks_lose_no_update_and_lines_stay_whole_on_4_cores() {
    smp_locks_on_4_cores(Options {
        extra: &["-smp", "4"],
        ..Options::default()
    });
}

#[test]
fn smp_locks_on_4_cores_with_gicv3() {
    smp_locks_on_4_cores(Options {
        extra: &["-M", "virt,gic-version=3", "-smp", "4"],
        ..Options::default()
    });
}

#[test]
fn smp_locks_on_4_cores_with_defmt_frames() {
    // defmt frames from four cores: the logger's lock keeps each frame whole (a cut frame would
    // not decode), and a core that logs while another is inside a frame waits instead of exiting.
    smp_locks_on_4_cores(Options {
        extra: &["-smp", "4"],
        features: &["defmt"],
        timeout_s: 300,
        ..Options::default()
    });
}
