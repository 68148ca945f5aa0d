//! The guest programs are bare-metal binaries: link them with pmprobe's QEMU virt script
//! (pmprobe's build script puts it on the search path).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none") {
        println!("cargo:rustc-link-arg-bins=-Tpmprobe-qemu-virt.ld");
        // A GNU build id, as the demo firmware has: qemu/run's pmprofile step writes a
        // perf.data for a profiling guest only when perf can identify the ELF by one.
        println!("cargo:rustc-link-arg-bins=--build-id=sha1");
        if std::env::var_os("CARGO_FEATURE_DEFMT").is_some() {
            println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
        }
    }
}
