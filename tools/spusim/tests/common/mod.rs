//! What the spusim end-to-end tests share: running the binary and reading its output.
// Each test file uses a subset of these.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn programs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../spu/programs")
}

pub fn spusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spusim"))
        .args(args)
        .output()
        .expect("spusim runs")
}

pub fn program(name: &str) -> String {
    programs().join(name).display().to_string()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn temp_program(name: &str, source: &str) -> String {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, source).expect("write temp program");
    path.display().to_string()
}
