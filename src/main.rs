//! The pmprobe demo firmware for QEMU `virt` (see README.md): `cargo run` boots it.
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(target_os = "none")]
pmprobe::entry!(main);

/// Prints what this core is and what its PMU offers, then exits 0 (1 if there is no usable PMU).
#[cfg(target_os = "none")]
fn main() -> i32 {
    use pmprobe::pmu::{PmuBackend, detect, sysreg::SysRegPmu};
    use pmprobe::println;

    let real = SysRegPmu::new();
    println!("pmprobe demo firmware");
    println!(
        "  CPU      {} (MIDR_EL1 0x{:08x})",
        pmprobe::pmu::decode_midr(real.midr()),
        real.midr()
    );
    println!("  EL       {:?}", real.current_el());
    match detect(&real) {
        Ok(info) => {
            println!(
                "  PMU      {} (PMUVer {})",
                info.version,
                info.version.pmuver()
            );
            println!(
                "  counters N = {} event counters + cycle counter",
                info.counters
            );
            println!(
                "  events   {} implemented common events: {}",
                info.events.len(),
                info.events
            );
            0
        }
        Err(e) => {
            println!("  PMU      {e}");
            1
        }
    }
}

/// Built for a hosted target only so that `cargo test --target host-tuple` can build the
/// workspace; the firmware itself needs `aarch64-unknown-none` (the default in .cargo/config.toml).
#[cfg(not(target_os = "none"))]
fn main() {
    eprintln!(
        "pmprobe: this is the QEMU firmware; build it for aarch64-unknown-none (plain `cargo run`)."
    );
    std::process::exit(2);
}
