//! The test command sets a fresh machine up by itself: the path every QEMU and image test takes
//! first (`common::toolchain`) installs the firmware target and llvm-tools when
//! rust-toolchain.toml lists them and the toolchain lacks them. `.ci/fresh-machine` runs this
//! test with both removed; here it also holds on a machine that has them.
mod common;

use std::process::Command;

use common::qemu::repo;
use common::toolchain::{TARGET, llvm_tool};

#[test]
fn test_set_up_leaves_the_target_and_llvm_objcopy_installed() {
    let objcopy = llvm_tool(repo(), "llvm-objcopy");
    assert!(objcopy.is_file(), "no {}", objcopy.display());
    let installed = Command::new("rustup")
        .current_dir(repo())
        .args(["target", "list", "--installed"])
        .output()
        .expect("run rustup");
    let installed = String::from_utf8_lossy(&installed.stdout);
    assert!(
        installed.lines().any(|line| line.trim() == TARGET),
        "rustup lists no {TARGET} after the set-up: {installed}"
    );
}
