//! What the QEMU tests need from the Rust toolchain besides the host compiler: the
//! `aarch64-unknown-none` target (its `core` and `alloc`) and, for the raw-image test, the
//! `llvm-tools` component (llvm-objcopy). `rust-toolchain.toml` lists both, but rustup adds them
//! only when it installs the toolchain: a machine that already had the toolchain lacks them. Then
//! the tests stop with one line that names the fix, instead of a cargo error dump.
use std::path::{Path, PathBuf};
use std::process::Command;

/// The bare-metal target the firmware and the guest programs are built for.
pub const TARGET: &str = "aarch64-unknown-none";

/// The one-time step that installs everything `rust-toolchain.toml` lists.
pub const FIX: &str = "run `rustup toolchain install` once in this checkout (it installs the target and components listed in rust-toolchain.toml)";

/// `rustc --print sysroot` and the host triple of the toolchain that builds this repository.
fn sysroot_and_host(repo: &Path) -> Result<(PathBuf, String), String> {
    let rustc = |args: &[&str]| {
        Command::new("rustc")
            .args(args)
            .current_dir(repo)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let sysroot = rustc(&["--print", "sysroot"]).ok_or("rustc not found: install rustup")?;
    let version = rustc(&["-vV"]).ok_or("rustc -vV failed")?;
    let host = version
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .ok_or("rustc -vV names no host")?;
    Ok((PathBuf::from(sysroot.trim()), host.to_string()))
}

/// Whether `sysroot` has the standard library of `target`.
pub fn target_installed(sysroot: &Path, target: &str) -> bool {
    sysroot
        .join("lib/rustlib")
        .join(target)
        .join("lib")
        .is_dir()
}

/// The path of the LLVM tool `tool` (e.g. `llvm-objcopy`) in `sysroot`, or a one-line error
/// naming the fix.
pub fn llvm_tool_in(sysroot: &Path, host: &str, tool: &str) -> Result<PathBuf, String> {
    let path = sysroot
        .join("lib/rustlib")
        .join(host)
        .join("bin")
        .join(tool);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{tool} is missing (rustup component llvm-tools is not installed): {FIX}"
        ))
    }
}

/// The one-line error for a toolchain without `target`, if it lacks it.
pub fn missing_target(sysroot: &Path, target: &str) -> Option<String> {
    (!target_installed(sysroot, target))
        .then(|| format!("the Rust target {target} is not installed for this toolchain: {FIX}"))
}

/// Fails the calling test with `message` as its only output: `resume_unwind` skips the panic
/// hook, so no "panicked at" line and no backtrace (whatever RUST_BACKTRACE says) bury the fix.
fn stop(message: String) -> ! {
    println!("{message}");
    std::panic::resume_unwind(Box::new(message))
}

/// Stops the calling test with one line when the toolchain cannot build the firmware.
pub fn require_target(repo: &Path) {
    match sysroot_and_host(repo) {
        Ok((sysroot, _)) => {
            if let Some(message) = missing_target(&sysroot, TARGET) {
                stop(message);
            }
        }
        Err(message) => stop(message),
    }
}

/// The path of an LLVM tool of this repository's toolchain; stops the test with one line when
/// llvm-tools is missing.
pub fn llvm_tool(repo: &Path, tool: &str) -> PathBuf {
    let (sysroot, host) = sysroot_and_host(repo).unwrap_or_else(|message| stop(message));
    llvm_tool_in(&sysroot, &host, tool).unwrap_or_else(|message| stop(message))
}
