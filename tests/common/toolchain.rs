//! What the QEMU tests need from the machine besides the host compiler: the
//! `aarch64-unknown-none` target, the `llvm-tools` component (llvm-objcopy, llvm-size) and
//! `qemu-system-aarch64`. The launcher (`pmprobe --setup-only`, the host build of the firmware's
//! binary, src/launcher/) installs what is missing, as plain `cargo run` does, so that
//! `cargo test --workspace` sets up a fresh machine by itself; when it cannot (no root, no sudo),
//! the tests stop with its one line naming the command to run.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The bare-metal target the firmware and the guest programs are built for.
pub const TARGET: &str = "aarch64-unknown-none";

/// Fails the calling test with `message` as its only output: `resume_unwind` skips the panic
/// hook, so no "panicked at" line and no backtrace (whatever RUST_BACKTRACE says) bury the fix.
fn stop(message: String) -> ! {
    println!("{message}");
    std::panic::resume_unwind(Box::new(message))
}

/// Runs the launcher's set-up once per test process; stops the test with its message when the
/// machine could not be set up.
pub fn set_up_machine(repo: &Path) {
    static OUTCOME: OnceLock<Result<(), String>> = OnceLock::new();
    let outcome = OUTCOME.get_or_init(|| {
        let out = Command::new(env!("CARGO_BIN_EXE_pmprobe"))
            .current_dir(repo)
            .arg("--setup-only")
            .output()
            .map_err(|e| format!("could not run the launcher: {e}"))?;
        // What it installed, in one line each, for the test log.
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    });
    if let Err(message) = outcome {
        stop(message.clone());
    }
}

/// The path of the LLVM tool `tool` (e.g. `llvm-objcopy`) of this repository's toolchain, after
/// the set-up installed llvm-tools.
pub fn llvm_tool(repo: &Path, tool: &str) -> PathBuf {
    set_up_machine(repo);
    let rustc = |args: &[&str]| {
        Command::new("rustc")
            .args(args)
            .current_dir(repo)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let sysroot = rustc(&["--print", "sysroot"]).unwrap_or_else(|| stop("rustc not found".into()));
    let version = rustc(&["-vV"]).unwrap_or_else(|| stop("rustc -vV failed".into()));
    let host = version
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .unwrap_or_else(|| stop("rustc -vV names no host".into()));
    let path = Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(host)
        .join("bin")
        .join(tool);
    if !path.is_file() {
        stop(format!(
            "{tool} is missing at {} after the set-up",
            path.display()
        ));
    }
    path
}
