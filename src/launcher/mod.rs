//! The host side of `cargo run`: the demo firmware's binary, built for the host, is a launcher.
//!
//! Plain `cargo run` builds this binary for the machine it runs on (the repository sets no
//! default target), and it then does what a newcomer would otherwise have to find out: it
//! installs what `rust-toolchain.toml` lists and the toolchain lacks (through rustup), installs
//! QEMU when it is missing and it may (root or passwordless sudo), builds the firmware for
//! `aarch64-unknown-none` with the same profile and features, and boots it with `qemu/run`.
//! On a machine that has everything it only looks (no network, a few milliseconds).
//!
//! `--setup-only` does the installing part alone: the QEMU tests call it before they build
//! guest programs, so that `cargo test --workspace` sets up a fresh machine the same way.
#![forbid(unsafe_code)]

mod args;
mod lock;
mod qemu;
mod toolchain;

use std::path::Path;
use std::process::{Command, ExitCode};

/// The target the firmware is built for.
pub const FIRMWARE_TARGET: &str = "aarch64-unknown-none";

/// Runs the launcher with the process's arguments; the exit code is the guest's.
pub fn main() -> ExitCode {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let launch = match args::parse(std::env::args().skip(1)) {
        Ok(launch) => launch,
        Err(message) => {
            eprintln!("pmprobe: {message}");
            return ExitCode::from(2);
        }
    };
    if let Err(problem) = set_up(repo) {
        eprintln!("pmprobe: {problem}");
        return ExitCode::from(problem.exit_code());
    }
    if launch.setup_only {
        return ExitCode::SUCCESS;
    }
    match build_firmware(repo) {
        Ok(elf) => boot(repo, &elf, &launch),
        Err(message) => {
            eprintln!("pmprobe: {message}");
            ExitCode::from(2)
        }
    }
}

/// Everything the run and the tests need from the machine, installed where missing.
fn set_up(repo: &Path) -> Result<(), SetupProblem> {
    // Tests run this from several processes at once (nextest); rustup and apt-get must not.
    let _guard = lock::SetupLock::acquire(&repo.join("target")).map_err(SetupProblem::Other)?;
    toolchain::ensure(repo).map_err(SetupProblem::Other)?;
    qemu::ensure().map_err(SetupProblem::Qemu)
}

/// Why the machine could not be set up.
#[derive(Debug)]
enum SetupProblem {
    /// QEMU is missing and could not be installed (the message names the command to run).
    Qemu(String),
    Other(String),
}

impl SetupProblem {
    /// 127 for a missing QEMU, as `qemu/run` and shells say for a missing command.
    fn exit_code(&self) -> u8 {
        match self {
            SetupProblem::Qemu(_) => 127,
            SetupProblem::Other(_) => 2,
        }
    }
}

impl core::fmt::Display for SetupProblem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SetupProblem::Qemu(message) | SetupProblem::Other(message) => f.write_str(message),
        }
    }
}

/// Builds the firmware with this launcher's profile and features; returns the ELF's path.
fn build_firmware(repo: &Path) -> Result<std::path::PathBuf, String> {
    let release = !cfg!(debug_assertions);
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .current_dir(repo)
        .args(["build", "--target", FIRMWARE_TARGET, "--bin", "pmprobe"]);
    if release {
        cargo.arg("--release");
    }
    if cfg!(feature = "defmt") {
        cargo.args(["--features", "defmt"]);
    }
    let status = cargo
        .status()
        .map_err(|e| format!("could not run cargo to build the firmware: {e}"))?;
    if !status.success() {
        return Err("building the firmware failed (see cargo's messages above)".into());
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| repo.join("target"));
    let profile = if release { "release" } else { "debug" };
    Ok(target_dir
        .join(FIRMWARE_TARGET)
        .join(profile)
        .join("pmprobe"))
}

/// Boots `elf` under `qemu/run` and returns the guest's exit status.
fn boot(repo: &Path, elf: &Path, launch: &args::Launch) -> ExitCode {
    let status = Command::new(repo.join("qemu").join("run"))
        .args(&launch.runner)
        .arg(elf)
        .args(&launch.guest)
        .status();
    match status {
        Ok(status) => ExitCode::from(status.code().map_or(1, |code| code.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!("pmprobe: could not run qemu/run: {e}");
            ExitCode::from(2)
        }
    }
}
