//! The QEMU side of the set-up: `qemu-system-aarch64`, installed with the system's package
//! manager when this user may (root, or passwordless sudo), else one line naming the command.

use std::path::Path;
use std::process::Command;

/// The emulator the firmware boots in.
const QEMU: &str = "qemu-system-aarch64";

/// What the machine offers, as far as installing QEMU goes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Facts {
    pub qemu_present: bool,
    /// Running as root (uid 0).
    pub root: bool,
    /// `sudo -n true` succeeds: sudo without a password.
    pub passwordless_sudo: bool,
    pub apt_get: bool,
    pub dnf: bool,
    pub brew: bool,
}

/// What to do about QEMU.
#[derive(Debug, PartialEq, Eq)]
pub enum Plan {
    /// It is there: touch nothing.
    Nothing,
    /// Run these commands, in order, then look again.
    Install(Vec<Vec<String>>),
    /// Stop with this one line.
    Tell(String),
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

/// Decides from the facts alone (so that every branch is tested without a machine for each).
pub fn plan(facts: Facts) -> Plan {
    if facts.qemu_present {
        return Plan::Nothing;
    }
    // Homebrew installs as the user; it refuses to run as root.
    if facts.brew && !facts.root {
        return Plan::Install(vec![words("brew install qemu")]);
    }
    let (manager_commands, manual) = if facts.apt_get {
        (
            vec![
                "apt-get update -qq",
                "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-arm",
            ],
            "sudo apt-get install qemu-system-arm",
        )
    } else if facts.dnf {
        (
            vec!["dnf install -y qemu-system-aarch64"],
            "sudo dnf install qemu-system-aarch64",
        )
    } else {
        return Plan::Tell(format!(
            "{QEMU} not found and no known package manager (apt-get, dnf, brew) here: install QEMU for AArch64 (qemu-system-aarch64) and run again"
        ));
    };
    let prefix = if facts.root {
        ""
    } else if facts.passwordless_sudo {
        "sudo -n "
    } else {
        return Plan::Tell(format!("{QEMU} not found: run `{manual}`, then run again"));
    };
    Plan::Install(
        manager_commands
            .iter()
            .map(|command| words(&format!("{prefix}{command}")))
            .collect(),
    )
}

/// Whether `program` is an executable file in one of the `PATH` directories.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| is_executable(&dir.join(program)))
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn succeeds(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Reads the facts. The costly ones (sudo) only when QEMU is missing.
fn facts() -> Facts {
    let qemu_present = on_path(QEMU);
    if qemu_present {
        return Facts {
            qemu_present,
            ..Facts::default()
        };
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
    Facts {
        qemu_present,
        root,
        passwordless_sudo: !root && on_path("sudo") && succeeds("sudo", &["-n", "true"]),
        apt_get: on_path("apt-get"),
        dnf: on_path("dnf"),
        brew: on_path("brew"),
    }
}

/// Makes `qemu-system-aarch64` available, or says in one line what to run.
pub fn ensure() -> Result<(), String> {
    match plan(facts()) {
        Plan::Nothing => Ok(()),
        Plan::Tell(line) => Err(line),
        Plan::Install(commands) => {
            let shown: Vec<String> = commands.iter().map(|c| c.join(" ")).collect();
            eprintln!(
                "pmprobe: {QEMU} not found; installing it: {}",
                shown.join(" && ")
            );
            for command in &commands {
                let out = Command::new(&command[0])
                    .args(&command[1..])
                    .stdin(std::process::Stdio::null())
                    .output()
                    .map_err(|e| format!("could not run {}: {e}", command[0]))?;
                if !out.status.success() {
                    return Err(format!(
                        "`{}` failed: {}",
                        command.join(" "),
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                }
            }
            if on_path(QEMU) {
                Ok(())
            } else {
                Err(format!(
                    "{QEMU} is still not on PATH after `{}`",
                    shown.join(" && ")
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(plan: Plan) -> Vec<String> {
        match plan {
            Plan::Install(commands) => commands.iter().map(|c| c.join(" ")).collect(),
            other => panic!("expected an install, got {other:?}"),
        }
    }

    #[test]
    fn a_machine_with_qemu_is_not_touched() {
        let facts = Facts {
            qemu_present: true,
            root: true,
            apt_get: true,
            ..Facts::default()
        };
        assert_eq!(plan(facts), Plan::Nothing);
    }

    #[test]
    fn root_on_debian_installs_with_apt_get_after_an_update() {
        let facts = Facts {
            root: true,
            apt_get: true,
            ..Facts::default()
        };
        let commands = commands(plan(facts));
        assert_eq!(commands[0], "apt-get update -qq");
        assert!(
            commands[1].ends_with("apt-get install -y -qq qemu-system-arm"),
            "{commands:?}"
        );
    }

    #[test]
    fn passwordless_sudo_installs_through_sudo() {
        let facts = Facts {
            passwordless_sudo: true,
            dnf: true,
            ..Facts::default()
        };
        assert_eq!(
            commands(plan(facts)),
            ["sudo -n dnf install -y qemu-system-aarch64"]
        );
    }

    #[test]
    fn without_root_or_sudo_one_line_names_the_command() {
        let facts = Facts {
            apt_get: true,
            ..Facts::default()
        };
        let Plan::Tell(line) = plan(facts) else {
            panic!("expected a message");
        };
        assert_eq!(line.lines().count(), 1);
        assert!(
            line.contains("`sudo apt-get install qemu-system-arm`"),
            "{line}"
        );
    }

    #[test]
    fn homebrew_installs_as_the_user() {
        let facts = Facts {
            brew: true,
            ..Facts::default()
        };
        assert_eq!(commands(plan(facts)), ["brew install qemu"]);
    }

    #[test]
    fn no_package_manager_says_what_to_install() {
        let Plan::Tell(line) = plan(Facts::default()) else {
            panic!("expected a message");
        };
        assert!(line.contains("qemu-system-aarch64"), "{line}");
    }
}
