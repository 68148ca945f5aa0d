//! The launcher's command line: its own options, `qemu/run`'s, and the firmware's.

/// What `cargo run -- ...` asked for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// `--setup-only`: install what is missing, then stop (the QEMU tests use it).
    pub setup_only: bool,
    /// Options for `qemu/run`, in order: `--no-icount`, `--cpu NAME`, `--smp N`, `--timeout S`.
    pub runner: Vec<String>,
    /// Everything else goes to the firmware's semihosting command line.
    pub guest: Vec<String>,
}

/// `qemu/run` options that take a value.
const RUNNER_WITH_VALUE: [&str; 3] = ["--cpu", "--smp", "--timeout"];

/// Splits the arguments; a runner option without its value is an error naming it.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Launch, String> {
    let mut launch = Launch::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--setup-only" {
            launch.setup_only = true;
        } else if arg == "--no-icount" {
            launch.runner.push(arg);
        } else if RUNNER_WITH_VALUE.contains(&arg.as_str()) {
            let value = args
                .next()
                .ok_or_else(|| format!("{arg} needs a value (see qemu/run --help)"))?;
            launch.runner.extend([arg, value]);
        } else if RUNNER_WITH_VALUE
            .iter()
            .any(|option| arg.starts_with(&format!("{option}=")))
        {
            launch.runner.push(arg);
        } else {
            launch.guest.push(arg);
        }
    }
    Ok(launch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn runner_options_go_before_the_elf_and_the_rest_to_the_guest() {
        let launch = parse(words(
            "--no-icount --fault --cpu max --smp=8 --extra-core 0x7",
        ))
        .unwrap();
        assert_eq!(launch.runner, words("--no-icount --cpu max --smp=8"));
        assert_eq!(launch.guest, words("--fault --extra-core 0x7"));
        assert!(!launch.setup_only);
    }

    #[test]
    fn a_runner_option_without_its_value_is_named() {
        let error = parse(words("--timeout")).unwrap_err();
        assert!(error.contains("--timeout"), "{error}");
    }

    #[test]
    fn setup_only_is_the_launchers_own() {
        let launch = parse(words("--setup-only")).unwrap();
        assert!(launch.setup_only);
        assert!(launch.runner.is_empty() && launch.guest.is_empty());
    }
}
