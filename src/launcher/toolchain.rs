//! The Rust side of the set-up: the targets and components `rust-toolchain.toml` lists.
//!
//! rustup installs them with the toolchain, but not when the toolchain was already there (or
//! `RUSTUP_AUTO_INSTALL=0` is set): then `rustup target add` / `rustup component add` do it,
//! and they work whatever `RUSTUP_AUTO_INSTALL` says.

use std::path::Path;
use std::process::Command;

/// The `targets` and `components` of a `rust-toolchain.toml`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    pub targets: Vec<String>,
    pub components: Vec<String>,
}

/// Reads the quoted items of the `key = [ ... ]` arrays of a toolchain file. The file is the
/// repository's own, so this small reader is enough: arrays may span lines; `#` comments end
/// a line.
pub fn parse_toolchain_file(text: &str) -> Wanted {
    let mut wanted = Wanted::default();
    let mut open: Option<&mut Vec<String>> = None;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut rest = line;
        if open.is_none() {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            open = match key.trim() {
                "targets" => Some(&mut wanted.targets),
                "components" => Some(&mut wanted.components),
                _ => None,
            };
            rest = value;
        }
        let Some(list) = open.as_deref_mut() else {
            continue;
        };
        let closed = rest.contains(']');
        let inside = rest.split(']').next().unwrap_or("");
        list.extend(
            inside
                .split(',')
                .map(|item| item.trim().trim_start_matches('[').trim().trim_matches('"'))
                .filter(|item| !item.is_empty())
                .map(String::from),
        );
        if closed {
            open = None;
        }
    }
    wanted
}

/// What of `wanted` the `rustup component list --installed` output lacks.
pub fn missing(wanted: &Wanted, installed: &str) -> Wanted {
    let lines: Vec<&str> = installed.lines().map(str::trim).collect();
    Wanted {
        targets: wanted
            .targets
            .iter()
            .filter(|target| !lines.contains(&format!("rust-std-{target}").as_str()))
            .cloned()
            .collect(),
        // A component's line is its name, `-`, the host triple (`llvm-tools-x86_64-...`).
        components: wanted
            .components
            .iter()
            .filter(|name| {
                !lines.iter().any(|line| {
                    line.strip_prefix(name.as_str())
                        .is_some_and(|rest| rest.starts_with('-'))
                })
            })
            .cloned()
            .collect(),
    }
}

/// Installs what the repository's toolchain file lists and the toolchain lacks.
pub fn ensure(repo: &Path) -> Result<(), String> {
    let file = repo.join("rust-toolchain.toml");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let wanted = parse_toolchain_file(&text);
    let listed = Command::new("rustup")
        .current_dir(repo)
        .args(["component", "list", "--installed"])
        .output();
    let installed = match listed {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => {
            return Err(format!(
                "rustup could not list the toolchain's components ({}); run `rustup toolchain install` in this checkout",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        // No rustup: a toolchain from elsewhere. Only the target can be checked, in its sysroot.
        Err(_) => return check_without_rustup(repo, &wanted),
    };
    let lacking = missing(&wanted, &installed);
    if !lacking.targets.is_empty() {
        rustup(repo, "target", &lacking.targets)?;
    }
    if !lacking.components.is_empty() {
        rustup(repo, "component", &lacking.components)?;
    }
    Ok(())
}

/// `rustup target add ...` or `rustup component add ...`, announced in one line.
fn rustup(repo: &Path, what: &str, names: &[String]) -> Result<(), String> {
    let command = format!("rustup {what} add {}", names.join(" "));
    eprintln!("pmprobe: this toolchain lacks what rust-toolchain.toml lists; running `{command}`");
    let out = Command::new("rustup")
        .current_dir(repo)
        .args([what, "add"])
        .args(names)
        .output()
        .map_err(|e| format!("could not run rustup: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{command}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn check_without_rustup(repo: &Path, wanted: &Wanted) -> Result<(), String> {
    let out = Command::new("rustc")
        .current_dir(repo)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("neither rustup nor rustc found: install rustup ({e})"))?;
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    for target in &wanted.targets {
        let lib = Path::new(&sysroot)
            .join("lib/rustlib")
            .join(target)
            .join("lib");
        if !lib.is_dir() {
            return Err(format!(
                "the Rust target {target} is not installed and rustup is not on PATH: add {target} to this toolchain"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repositorys_toolchain_file_lists_the_target_and_llvm_tools() {
        let wanted = parse_toolchain_file(include_str!("../../rust-toolchain.toml"));
        assert_eq!(wanted.targets, ["aarch64-unknown-none"]);
        assert!(
            wanted.components.iter().any(|c| c == "llvm-tools"),
            "{wanted:?}"
        );
    }

    #[test]
    fn arrays_may_span_lines_and_carry_comments() {
        let text = "[toolchain]\nchannel = \"1.95.0\" # pinned\ncomponents = [\n  \"rustfmt\", # fmt\n  \"clippy\"\n]\ntargets = [\"a\", \"b\"]\n";
        let wanted = parse_toolchain_file(text);
        assert_eq!(wanted.components, ["rustfmt", "clippy"]);
        assert_eq!(wanted.targets, ["a", "b"]);
    }

    /// Lines as `rustup component list --installed` prints them (rustup 1.28).
    const INSTALLED: &str = "cargo-x86_64-unknown-linux-gnu\nclippy-x86_64-unknown-linux-gnu\nrust-std-x86_64-unknown-linux-gnu\nrustc-x86_64-unknown-linux-gnu\nrustfmt-x86_64-unknown-linux-gnu\n";

    #[test]
    fn a_toolchain_without_the_target_and_llvm_tools_lacks_exactly_those() {
        let wanted = Wanted {
            targets: vec!["aarch64-unknown-none".into()],
            components: vec!["rustfmt".into(), "clippy".into(), "llvm-tools".into()],
        };
        let lacking = missing(&wanted, INSTALLED);
        assert_eq!(lacking.targets, ["aarch64-unknown-none"]);
        assert_eq!(lacking.components, ["llvm-tools"]);

        let complete = format!(
            "{INSTALLED}llvm-tools-x86_64-unknown-linux-gnu\nrust-std-aarch64-unknown-none\n"
        );
        assert_eq!(missing(&wanted, &complete), Wanted::default());
    }
}
