//! Link set-up for the bare-metal runtime.
//!
//! Only for `target_os = "none"` with the `rt` feature: the linker script is placed in OUT_DIR and
//! put on the link search path (which cargo propagates to crates that depend on pmprobe, e.g. the
//! QEMU guest tests), and this package's own binaries get `-T`. Host builds never see it.
use std::{env, fs, path::PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=linker/qemu-virt.ld");
    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let rt = env::var_os("CARGO_FEATURE_RT").is_some();
    if target_os != "none" || !rt {
        return;
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy("linker/qemu-virt.ld", out.join("pmprobe-qemu-virt.ld"))
        .expect("copy linker/qemu-virt.ld to OUT_DIR");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg-bins=-Tpmprobe-qemu-virt.ld");
    // A GNU build id (the 20-byte SHA-1 form GNU ld writes): perf's tools identify an ELF by
    // it, and pmprofile's perf.data names the firmware with it (docs/profiling.md).
    println!("cargo:rustc-link-arg-bins=--build-id=sha1");
    if env::var_os("CARGO_FEATURE_DEFMT").is_some() {
        println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
    }
}
