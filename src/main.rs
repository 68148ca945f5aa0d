//! The pmprobe demo firmware for QEMU `virt` (see README.md).
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(target_os = "none")]
pmprobe::entry!(main);

#[cfg(target_os = "none")]
fn main() -> i32 {
    pmprobe::println!("pmprobe demo");
    0
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
