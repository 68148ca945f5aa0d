//! Links the firmware with aarch64-rt's image layout and this board's memory (QEMU `raspi3b`).
fn main() {
    println!("cargo:rerun-if-changed=memory.ld");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none") {
        // aarch64-rt's build script puts its image.ld on the link search path; memory.ld is here.
        let here = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
        println!("cargo:rustc-link-search={here}");
        println!("cargo:rustc-link-arg-bins=-Timage.ld");
        println!("cargo:rustc-link-arg-bins=-Tmemory.ld");
    }
}
