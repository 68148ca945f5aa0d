//! Stock Linux perf (Debian's `linux-perf`) as the oracle of the perf-format tests.
use std::process::Command;

/// Runs `perf` with `args` and returns its standard output and error; fails the test, saying
/// how to install perf, when it is missing (`.ci/run` installs it), and when perf fails.
pub fn perf_output(args: &[&str]) -> (String, String) {
    let out = Command::new("perf")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `perf` ({e}): this test checks pmprobe's output against stock perf; \
             install it (Debian: apt-get install linux-perf binutils-aarch64-linux-gnu)"
            )
        });
    assert!(
        out.status.success(),
        "perf {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`perf_output`]'s standard output.
pub fn perf(args: &[&str]) -> String {
    perf_output(args).0
}
