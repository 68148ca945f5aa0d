//! Shared by the pmprofile tests: a real aarch64 firmware ELF and sample files.
#![allow(dead_code)]
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use object::{Object, ObjectSymbol};
use pmprobe::sampling::{ProfileHeader, Sample, SampleSource, encode_profile};
use pmprofile::{Frame, Resolve, UNKNOWN};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Installs what building the firmware needs and the machine lacks (the aarch64 target), with
/// the launcher behind plain `cargo run` (pmprobe's src/launcher/). `cargo test --workspace`
/// has built it already (a package's binaries are built with its tests, before any test runs),
/// in this test's target directory; when it is not there (`cargo test -p pmprofile`), `cargo
/// run` builds it in a target directory of its own (the outer `cargo test` holds the lock of
/// the default one), which costs a whole host build of pmprobe and its dependencies.
fn set_up_machine() {
    let built = std::env::current_exe()
        .ok()
        .and_then(|test| {
            let profile_dir = test.parent()?.parent()?;
            Some(profile_dir.join(format!("pmprobe{}", std::env::consts::EXE_SUFFIX)))
        })
        .filter(|launcher| launcher.is_file());
    let out = match built {
        Some(launcher) => Command::new(launcher)
            .current_dir(repo())
            .arg("--setup-only")
            .output(),
        None => Command::new(env!("CARGO"))
            .current_dir(repo())
            .env("CARGO_TARGET_DIR", repo().join("target").join("launcher"))
            .args([
                "run",
                "--quiet",
                "-p",
                "pmprobe",
                "--bin",
                "pmprobe",
                "--",
                "--setup-only",
            ])
            .output(),
    }
    .expect("run the launcher");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "the machine could not be set up for the firmware build"
    );
}

/// Builds the demo firmware (release, aarch64-unknown-none) once per test process, in the same
/// target directory as the QEMU tests' demo build so `cargo test --workspace` builds it once.
pub fn firmware_elf() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            set_up_machine();
            let target_dir = repo().join("target").join("firmware");
            let out = Command::new(env!("CARGO"))
                .current_dir(repo())
                .env("CARGO_TARGET_DIR", &target_dir)
                .args(["build", "--release", "--target", "aarch64-unknown-none"])
                .args(["-p", "pmprobe", "--bin", "pmprobe"])
                .output()
                .expect("run cargo");
            assert!(
                out.status.success(),
                "building the firmware failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            target_dir
                .join("aarch64-unknown-none")
                .join("release")
                .join("pmprobe")
        })
        .clone()
}

/// Encodes `samples` as a PMPS file.
pub fn sample_file(samples: &[Sample], period: u64) -> Vec<u8> {
    let header = ProfileHeader {
        source: SampleSource::PmuOverflow,
        event: 0x08,
        period,
        dropped: 0,
    };
    let mut bytes = vec![0u8; 64 + samples.len() * 400];
    let len = encode_profile(&header, samples, &mut bytes).expect("buffer large enough");
    bytes.truncate(len);
    bytes
}

/// Three SPU model functions of the firmware, found through its symbol table: (address, name).
/// Names with a space (`<impl A for B>`) are left out: the `--expect` file's fields are
/// separated by spaces.
pub fn three_functions(elf: &[u8]) -> Vec<(u64, String)> {
    let file = object::File::parse(elf).unwrap();
    let mut found: Vec<(u64, String)> = file
        .symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text && s.size() >= 64)
        .map(|s| {
            let name = rustc_demangle::demangle(s.name().unwrap());
            (s.address(), format!("{name:#}"))
        })
        .filter(|(_, name)| name.starts_with("pmprobe::spu::") && !name.contains(' '))
        .collect();
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1);
    found.truncate(3);
    assert_eq!(found.len(), 3);
    found
}

/// A stand-in for the ELF: addresses to function names, innermost first (the inlined ones
/// before the function they are inlined into); an unknown address is `[unknown]`.
pub struct Table(pub HashMap<u64, Vec<&'static str>>);

impl Resolve for Table {
    fn frames(&self, address: u64) -> Vec<Frame> {
        let names = self.0.get(&address).cloned().unwrap_or(vec![UNKNOWN]);
        let last = names.len() - 1;
        names
            .into_iter()
            .enumerate()
            .map(|(i, function)| Frame {
                function: function.to_string(),
                file: None,
                line: None,
                inlined: i != last,
            })
            .collect()
    }
}
