//! The QEMU tests' check of the toolchain, on made-up sysroots: a toolchain without the
//! `aarch64-unknown-none` target or without llvm-tools gets one line that names the fix.
mod common;

use std::fs;
use std::path::PathBuf;

use common::toolchain::{TARGET, llvm_tool_in, missing_target};

/// An empty directory under target/ for one made-up sysroot.
fn sysroot(name: &str) -> PathBuf {
    let dir = common::qemu::repo()
        .join("target")
        .join("toolchain-detection")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("lib/rustlib")).expect("create a made-up sysroot");
    dir
}

#[test]
fn a_toolchain_without_the_target_gets_one_line_naming_the_fix() {
    let bare = sysroot("without-target");
    let message = missing_target(&bare, TARGET).expect("the target must be reported missing");
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains(TARGET), "{message}");
    assert!(message.contains("rustup toolchain install"), "{message}");

    let complete = sysroot("with-target");
    fs::create_dir_all(complete.join("lib/rustlib").join(TARGET).join("lib")).unwrap();
    assert_eq!(missing_target(&complete, TARGET), None);
}

#[test]
fn a_toolchain_without_llvm_tools_gets_one_line_naming_the_fix() {
    let host = "x86_64-unknown-linux-gnu";
    let bare = sysroot("without-llvm-tools");
    let message = llvm_tool_in(&bare, host, "llvm-objcopy").unwrap_err();
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("llvm-objcopy"), "{message}");
    assert!(message.contains("llvm-tools"), "{message}");
    assert!(message.contains("rustup toolchain install"), "{message}");

    let complete = sysroot("with-llvm-tools");
    let bin = complete.join("lib/rustlib").join(host).join("bin");
    fs::create_dir_all(&bin).unwrap();
    fs::write(bin.join("llvm-objcopy"), b"").unwrap();
    assert_eq!(
        llvm_tool_in(&complete, host, "llvm-objcopy"),
        Ok(bin.join("llvm-objcopy"))
    );
}
