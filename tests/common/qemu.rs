//! Host side of the QEMU guest tests: build the `pmprobe-guest` programs (and the demo firmware)
//! for aarch64-unknown-none once per test process, boot them with `qemu/run`, and read the checks
//! they print (`check <name> ... ok|FAILED`).
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// How to boot a guest.
#[derive(Clone, Debug)]
pub struct Options {
    /// The `-M` machine, as `qemu/run --machine` takes it (`virt`, `raspi3b`).
    pub machine: &'static str,
    /// `-cpu` value.
    pub cpu: &'static str,
    /// Pass `-icount shift=0` (deterministic instruction and cycle counts).
    pub icount: bool,
    /// Wall-clock timeout in seconds.
    pub timeout_s: u32,
    /// Cargo features of the guest crate (e.g. `&["defmt"]`).
    pub features: &'static [&'static str],
    /// Extra QEMU arguments, e.g. `&["-M", "virt,gic-version=3"]` or `&["-smp", "4"]`.
    pub extra: &'static [&'static str],
}

impl Default for Options {
    fn default() -> Self {
        Self {
            machine: "virt",
            cpu: "cortex-a57",
            icount: true,
            timeout_s: 60,
            features: &[],
            extra: &[],
        }
    }
}

/// The outcome of one guest run.
#[derive(Debug)]
pub struct GuestRun {
    pub name: String,
    /// QEMU's exit status (the guest's semihosting status; 124 = timeout).
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Each `check` line in order: (name, passed).
    pub checks: Vec<(String, bool)>,
}

impl GuestRun {
    /// The result of the check called `name`, if the guest reported it.
    pub fn check(&self, name: &str) -> Option<bool> {
        self.checks
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, ok)| ok)
    }

    /// Asserts exit status 0, at least one check, and no failed check.
    pub fn assert_passed(&self) {
        let failed: Vec<&str> = self
            .checks
            .iter()
            .filter(|(_, ok)| !ok)
            .map(|(n, _)| n.as_str())
            .collect();
        assert!(
            self.exit_code == Some(0) && !self.checks.is_empty() && failed.is_empty(),
            "guest {} failed: exit {:?}, {} checks, failed: {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.name,
            self.exit_code,
            self.checks.len(),
            failed,
            self.stdout,
            self.stderr
        );
        for (name, _) in &self.checks {
            println!("guest {}: check {name} ok", self.name);
        }
    }

    /// Asserts that the output contains `text` (stdout or stderr).
    pub fn assert_output_contains(&self, text: &str) {
        assert!(
            self.stdout.contains(text) || self.stderr.contains(text),
            "guest {}: output lacks {text:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.name,
            self.stdout,
            self.stderr
        );
    }
}

/// The repository root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo_build(args: &[&str], target_dir: &Path) {
    super::toolchain::set_up_machine(repo());
    let out = Command::new(env!("CARGO"))
        .current_dir(repo())
        .env("CARGO_TARGET_DIR", target_dir)
        .args(["build", "--release", "--target", "aarch64-unknown-none"])
        .args(args)
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "building guest programs failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Builds the guest programs with `features` (once per process) and returns their directory.
/// A separate target directory per feature set keeps the outer `cargo test` build lock free.
pub fn guest_dir(features: &[&str]) -> PathBuf {
    build_guests(features, None)
}

/// The guest program `name` built with `features`. The default feature set builds every guest
/// program at once, as most tests use it; another set builds only the programs its tests ask
/// for (each is a whole-program LTO link: all 29 with `defmt` took a minute of CI's time for
/// the three that run with it).
fn guest_program(features: &[&str], name: &str) -> PathBuf {
    if features.is_empty() {
        guest_dir(features).join(name)
    } else {
        build_guests(features, Some(name)).join(name)
    }
}

/// Builds `program` (every guest program when `None`) with `features`, once per process.
fn build_guests(features: &[&str], program: Option<&str>) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let key = features.join(",");
    let built_key = format!("{key}/{}", program.unwrap_or("*"));
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(dir) = built.get(&built_key) {
        return dir.clone();
    }
    // The default feature set shares the firmware's target directory; another set has its
    // own, as its programs have the same names.
    let target_dir = if key.is_empty() {
        firmware_target_dir()
    } else {
        repo()
            .join("target")
            .join(format!("guest-{}", key.replace(',', "-")))
    };
    // Not a workspace member (bare metal only): built through its own manifest.
    let manifest = repo().join("tests").join("guest").join("Cargo.toml");
    let manifest = manifest.to_str().expect("a UTF-8 repository path");
    let mut args = vec!["--manifest-path", manifest];
    match program {
        Some(name) => args.extend(["--bin", name]),
        None => args.push("--bins"),
    }
    let feature_list: String = features
        .iter()
        .map(|f| format!("pmprobe-guest/{f}"))
        .collect::<Vec<_>>()
        .join(",");
    if !features.is_empty() {
        args.extend(["--features", feature_list.as_str()]);
    }
    cargo_build(&args, &target_dir);
    let dir = target_dir.join("aarch64-unknown-none").join("release");
    built.insert(built_key, dir.clone());
    dir
}

/// The target directory of the firmware builds (the demo, the examples, the guest programs
/// with their default features): one for all, so that the dependencies they share (and the
/// host's proc-macro crates) are built once. Not the default one, whose lock the outer
/// `cargo test` holds.
pub fn firmware_target_dir() -> PathBuf {
    repo().join("target").join("firmware")
}

/// Builds the demo firmware (`src/main.rs`, release) once and returns its ELF path.
pub fn demo_elf() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let target_dir = firmware_target_dir();
            cargo_build(&["-p", "pmprobe", "--bin", "pmprobe"], &target_dir);
            target_dir
                .join("aarch64-unknown-none")
                .join("release")
                .join("pmprobe")
        })
        .clone()
}

/// Builds the embedding example (`examples/embedded`, release) once and returns its ELF path.
/// Built on its own (`-p pmprobe-embedded`), so pmprobe's `rt` feature stays off for it.
pub fn embedded_elf() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let target_dir = firmware_target_dir();
            cargo_build(&["-p", "pmprobe-embedded"], &target_dir);
            target_dir
                .join("aarch64-unknown-none")
                .join("release")
                .join("pmprobe-embedded")
        })
        .clone()
}

/// Builds the second board's example (`examples/raspi3b`, release) once and returns its raw
/// image: the board starts a raw image at EL2 (an ELF, QEMU starts at EL3 on every core).
pub fn raspi3b_image() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let target_dir = firmware_target_dir();
            cargo_build(&["-p", "pmprobe-raspi3b"], &target_dir);
            let elf = target_dir
                .join("aarch64-unknown-none")
                .join("release")
                .join("pmprobe-raspi3b");
            let raw = elf.with_extension("img");
            let objcopy = super::toolchain::llvm_tool(repo(), "llvm-objcopy");
            let status = Command::new(&objcopy)
                .args(["-O", "binary"])
                .arg(&elf)
                .arg(&raw)
                .status()
                .unwrap_or_else(|e| panic!("run {}: {e}", objcopy.display()));
            assert!(status.success(), "llvm-objcopy failed");
            raw
        })
        .clone()
}

/// Boots the guest program `name` (a binary of tests/guest) and collects its output.
pub fn run_guest(name: &str, opts: &Options) -> GuestRun {
    let elf = guest_program(opts.features, name);
    assert!(elf.exists(), "no guest program {name} at {}", elf.display());
    run_image(name, &elf, opts)
}

/// Boots any firmware image (ELF or raw binary) with `qemu/run`.
pub fn run_image(name: &str, image: &Path, opts: &Options) -> GuestRun {
    let mut cmd = Command::new(repo().join("qemu").join("run"));
    cmd.current_dir(repo())
        .arg("--machine")
        .arg(opts.machine)
        .arg("--cpu")
        .arg(opts.cpu)
        .arg("--timeout")
        .arg(opts.timeout_s.to_string());
    if !opts.icount {
        cmd.arg("--no-icount");
    }
    // QEMU takes the last -M; qemu/run puts these after its own.
    cmd.env("PMPROBE_QEMU_EXTRA", opts.extra.join(" "));
    let out = cmd.arg(image).output().expect("run qemu/run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let checks = stdout
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("check ")?;
            let (check, result) = rest.split_once(" ... ")?;
            Some((check.to_string(), result == "ok"))
        })
        .collect();
    GuestRun {
        name: name.to_string(),
        exit_code: out.status.code(),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        checks,
    }
}
