//! The pmprobe demo firmware for QEMU `virt` (see README.md, "What `cargo run` shows"):
//! SPU kernels on the static arena under probes, counted by emulated PMUs through the same
//! driver as the real core, whose own PMU measures the simulation.
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(target_os = "none")]
mod demo;

#[cfg(target_os = "none")]
pmprobe::entry!(main);

/// Banner, then (unless `--fault`) the SPU demo; exits 0 only when every cross-check held.
#[cfg(target_os = "none")]
fn main() -> i32 {
    use demo::command_line::{options, perf_stat, profile};
    use demo::machine::{banner, list_events};
    use demo::shared::checks::Checks;

    let options = match pmprobe::rt::semihosting::command_line() {
        Ok(line) => options::parse(&line).map_err(|word| {
            pmprobe::println!(
                "demo: unknown argument {word} (known: --fault, --miscount, --no-icount, --list-events, --interval-ms N, --extra-core MPIDR, {}, {})",
                profile::OPTIONS,
                perf_stat::OPTIONS
            );
        }),
        // No command line from the host: run with the defaults.
        Err(_) => Ok(options::Options::default()),
    };
    let Ok(options) = options else {
        return 2;
    };
    if options.list_events {
        return list_events::print();
    }
    if let Some(stat) = &options.stat {
        return demo::scenario::with_unit(perf_stat::WORK_SPU, |unit| perf_stat::run(stat, unit));
    }
    if !banner::print(&options.extra_cores) {
        return 1;
    }
    banner::print_count_mode(options.no_icount);
    if options.fault {
        banner::provoke_exception();
    }
    let mut checks = Checks::new();
    let profiling = options
        .profile
        .is_some_and(|settings| profile::start(&settings, &mut checks));
    demo::scenario::run(&options, &mut checks);
    if profiling {
        profile::finish(&mut checks, options.no_icount);
    }
    checks.finish()
}

/// On the host this binary is the launcher behind plain `cargo run`: it installs what the
/// machine lacks, builds the firmware for `aarch64-unknown-none` and boots it in QEMU.
#[cfg(not(target_os = "none"))]
mod launcher;

#[cfg(not(target_os = "none"))]
fn main() -> std::process::ExitCode {
    launcher::main()
}
