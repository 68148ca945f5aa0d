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
    /// `--profile` (and `--profile-*=`, `-c N`, `-F HZ`): sample the SPU runs, write the
    /// profile for pmprofile.
    pub profile: Option<super::profile::ProfileOptions>,
    /// `-e EVENTS`, `-r N`, `-x SEP`: perf stat of the measured work instead of the demo.
    pub stat: Option<super::perf_stat::StatOptions>,
}

/// perf's short options with a value, given as `-e X` or `-eX`: the letter and the value.
fn short_option<'a>(
    word: &'a str,
    words: &mut impl Iterator<Item = &'a str>,
) -> Option<(char, Option<&'a str>)> {
    let rest = word
        .strip_prefix('-')
        .filter(|rest| !rest.starts_with('-'))?;
    let mut letters = rest.chars();
    let letter = letters
        .next()
        .filter(|c| matches!(c, 'e' | 'r' | 'x' | 'c' | 'F'))?;
    let attached = letters.as_str();
    Some((
        letter,
        if attached.is_empty() {
            words.next()
        } else {
            Some(attached)
        },
    ))
}

/// The long spelling of perf's options: `--event`, `--repeat`, `--field-separator`,
/// `--count`, `--freq`.
fn long_option(word: &str) -> Option<char> {
    Some(match word {
        "--event" => 'e',
        "--repeat" => 'r',
        "--field-separator" => 'x',
        "--count" => 'c',
        "--freq" => 'F',
        _ => return None,
    })
}

/// Takes perf's option `letter` with `value` (`None`: missing); the offending word on error.
fn perf_option<'a>(
    options: &mut Options,
    word: &'a str,
    letter: char,
    value: Option<&'a str>,
) -> Result<(), &'a str> {
    let value = value.ok_or(word)?;
    let number = || value.parse::<u64>().ok().filter(|n| *n > 0).ok_or(value);
    if matches!(letter, 'c' | 'F') {
        let profile = options.profile.get_or_insert_default();
        if letter == 'c' {
            profile.period = Some(number()?);
        } else {
            profile.frequency = Some(number()?);
        }
        return Ok(());
    }
    let stat = options.stat.get_or_insert_default();
    match letter {
        'e' => stat.events = Some(value.try_into().map_err(|_| value)?),
        'r' => {
            stat.repeat = u32::try_from(number()?)
                .ok()
                .filter(|n| *n <= super::perf_stat::MAX_RUNS)
                .ok_or(value)?;
        }
        _ => stat.separator = Some(value.try_into().map_err(|_| value)?),
    }
    Ok(())
}

/// Parses the semihosting command line (program name first); an unknown word, or the value
/// a known option refuses, is returned as the error.
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
            other => {
                let (letter, value) = match long_option(other) {
                    Some(letter) => (letter, words.next()),
                    None => short_option(other, &mut words).ok_or(other)?,
                };
                perf_option(&mut options, other, letter, value)?;
            }
        }
    }
    Ok(options)
}
