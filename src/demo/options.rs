//! The firmware's command line, read through semihosting (`cargo run -- --fault`).

/// What the command line asked for.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--fault`: take an exception on purpose after the banner (shows the exception report
    /// and the non-zero exit).
    pub fault: bool,
    /// `--miscount`: add one INST_RETIRED to SPU0's emulated PMU behind the probes' back, as
    /// a broken wiring would; the cross-checks must catch it and the exit status be non-zero.
    pub miscount: bool,
    /// `--extra-core MPIDR` (hex with `0x`, or decimal; up to 4): MPIDRs to start besides the
    /// cores PSCI reports, to show how a core that does not exist (or one already on) is
    /// reported while the demo goes on with the cores that started.
    pub extra_cores: heapless::Vec<u64, 4>,
    /// `--no-icount`: QEMU runs without `-icount` (qemu/run says so on the command line), as
    /// under KVM or on a board: counts are real, not exact, so the checks that need exact
    /// counts are skipped, each with its reason.
    pub no_icount: bool,
    /// `--list-events`: print the running core's events (`perf list` style) and exit 0.
    pub list_events: bool,
    /// `--interval-ms N` (N >= 1): interval mode on the SPU phase, `perf stat -I N`: each SPU's
    /// counts every N ms of the generic timer while the SPUs run.
    pub interval_ms: Option<u32>,
    /// `--profile` (and `--profile-*=`): sample the SPU runs, write the profile for pmprofile.
    pub profile: Option<super::profile::ProfileOptions>,
}

/// Parses the semihosting command line (program name first); an unknown word is returned as
/// the error.
pub fn parse(line: &str) -> Result<Options, &str> {
    let mut options = Options::default();
    let mut words = line.split_ascii_whitespace().skip(1);
    while let Some(word) = words.next() {
        match word {
            "--fault" => options.fault = true,
            "--miscount" => options.miscount = true,
            "--no-icount" => options.no_icount = true,
            "--list-events" => options.list_events = true,
            "--interval-ms" => {
                let value = words.next().ok_or(word)?;
                let ms = value
                    .parse::<u32>()
                    .ok()
                    .filter(|ms| *ms > 0)
                    .ok_or(value)?;
                options.interval_ms = Some(ms);
            }
            "--extra-core" => {
                let value = words.next().ok_or(word)?;
                let mpidr = match value.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => value.parse(),
                }
                .map_err(|_| value)?;
                options.extra_cores.push(mpidr).map_err(|_| value)?;
            }
            other if super::profile::parse(other, &mut options.profile) => {}
            other => return Err(other),
        }
    }
    Ok(options)
}
