//! The firmware's command line, read through semihosting (`cargo run -- --fault`).

/// What the command line asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `--fault`: take an exception on purpose after the banner (shows the exception report
    /// and the non-zero exit).
    pub fault: bool,
    /// `--miscount`: add one INST_RETIRED to SPU0's emulated PMU behind the probes' back, as
    /// a broken wiring would; the cross-checks must catch it and the exit status be non-zero.
    pub miscount: bool,
    /// `--profile` (and `--profile-*=`): sample the SPU runs, write the profile for pmprofile.
    pub profile: Option<super::profile::ProfileOptions>,
}

/// Parses the semihosting command line (program name first); an unknown word is returned as
/// the error.
pub fn parse(line: &str) -> Result<Options, &str> {
    let mut options = Options::default();
    for word in line.split_ascii_whitespace().skip(1) {
        match word {
            "--fault" => options.fault = true,
            "--miscount" => options.miscount = true,
            other if super::profile::parse(other, &mut options.profile) => {}
            other => return Err(other),
        }
    }
    Ok(options)
}
