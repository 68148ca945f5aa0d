//! What spusim does to an assembly source before the library's assembler sees it, the part
//! of GNU as's job that needs files: `.S` files go through the C preprocessor (as `gcc`
//! does), and `.include "file"` is replaced by the file's text. The library assembles one
//! text and has no file system (it also runs on bare metal); here every line of the text
//! it gets remembers the file and line it came from, so an error names the original place.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::exit::Failure;
use crate::source::MAX_SOURCE_BYTES;

/// Deepest `.include` nesting (GNU as has no limit of its own; a file that includes itself
/// would otherwise never end).
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// Where one line of the expanded text came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Origin {
    file: usize,
    line: u32,
}

/// The text the assembler reads, and each of its lines' origin.
#[derive(Debug, Default)]
pub struct ExpandedSource {
    /// The whole program, includes inlined, preprocessed when it was a `.S` file.
    pub text: String,
    files: Vec<PathBuf>,
    origins: Vec<Origin>,
}

impl ExpandedSource {
    /// `file:line` of the expanded text's line `line` (from 1), as the user wrote it.
    pub fn locate(&self, line: u32) -> String {
        let origin = (line as usize)
            .checked_sub(1)
            .and_then(|index| self.origins.get(index));
        match origin.and_then(|o| Some((self.files.get(o.file)?, o.line))) {
            Some((file, line)) => format!("{}:{line}", file.display()),
            None => format!(
                "{}:{line}",
                self.files
                    .first()
                    .map_or(String::new(), |f| f.display().to_string())
            ),
        }
    }

    fn file_index(&mut self, path: &Path) -> usize {
        match self.files.iter().position(|known| known == path) {
            Some(index) => index,
            None => {
                self.files.push(path.to_path_buf());
                self.files.len() - 1
            }
        }
    }

    fn push_line(&mut self, text: &str, origin: Origin) -> Result<(), Failure> {
        if self.text.len() + text.len() + 1 > MAX_SOURCE_BYTES {
            return Err(Failure::Program(format!(
                "{}:{}: with its included files the source is larger than {} MiB",
                self.files
                    .get(origin.file)
                    .map_or(String::new(), |f| f.display().to_string()),
                origin.line,
                MAX_SOURCE_BYTES >> 20
            )));
        }
        self.text.push_str(text);
        self.text.push('\n');
        self.origins.push(origin);
        Ok(())
    }
}

/// Expands the program `text` read from `path`.
pub fn expand(path: &Path, text: &str) -> Result<ExpandedSource, Failure> {
    let mut expanded = ExpandedSource::default();
    let file = expanded.file_index(path);
    if is_preprocessed_assembly(path) {
        let output = preprocess(path)?;
        include_lines(&mut expanded, path, file, &output, true, 0)?;
    } else {
        include_lines(&mut expanded, path, file, text, false, 0)?;
    }
    Ok(expanded)
}

/// `.S` (and `.sx`) is assembly for the C preprocessor, as gcc decides by the name.
fn is_preprocessed_assembly(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("S" | "sx"))
}

/// Runs the first C preprocessor found on PATH over `path` in assembler mode (`#` comments
/// pass through, `'` is not a character literal), keeping its line markers.
fn preprocess(path: &Path) -> Result<String, Failure> {
    let shown = path.display();
    let candidates: [(&str, &[&str]); 3] = [
        ("cpp", &["-x", "assembler-with-cpp"]),
        ("clang", &["-E", "-x", "assembler-with-cpp"]),
        ("gcc", &["-E", "-x", "assembler-with-cpp"]),
    ];
    for (program, args) in candidates {
        let output = match Command::new(program).args(args).arg(path).output() {
            Ok(output) => output,
            // Not installed: try the next one.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => {
                return Err(Failure::Io(format!(
                    "{shown}: cannot run `{program}`: {error}"
                )));
            }
        };
        if !output.status.success() {
            return Err(Failure::Program(format!(
                "{shown}: the C preprocessor (`{program}`) failed:\n{}",
                String::from_utf8_lossy(&output.stderr).trim_end()
            )));
        }
        return String::from_utf8(output.stdout).map_err(|_| {
            Failure::Program(format!("{shown}: `{program}` wrote text that is not UTF-8"))
        });
    }
    Err(Failure::Program(format!(
        "{shown}: a .S file goes through the C preprocessor, and none of cpp, clang, gcc is on \
         PATH: install one, or run `cpp -x assembler-with-cpp {shown} > FILE.s` elsewhere and \
         pass FILE.s"
    )))
}

/// Appends `text` (the lines of `path`, file number `file`) with its `.include`s inlined;
/// `markers`: the text is the preprocessor's, whose `# N "file"` lines say where the next
/// line came from.
fn include_lines(
    expanded: &mut ExpandedSource,
    path: &Path,
    file: usize,
    text: &str,
    markers: bool,
    depth: usize,
) -> Result<(), Failure> {
    let mut origin = Origin { file, line: 0 };
    for line in text.lines() {
        origin.line += 1;
        if markers && let Some((number, name)) = line_marker(line) {
            // The marker names the line after it; the marker itself becomes an empty line so
            // that the text's line count stays the origin list's.
            let marked = expanded.file_index(Path::new(name));
            expanded.push_line("", origin)?;
            origin = Origin {
                file: marked,
                line: number.saturating_sub(1),
            };
            continue;
        }
        let Some(included) = include_target(line) else {
            expanded.push_line(line, origin)?;
            continue;
        };
        let here = || {
            format!(
                "{}:{}",
                expanded
                    .files
                    .get(origin.file)
                    .map_or(String::new(), |f| f.display().to_string()),
                origin.line
            )
        };
        let included = match included {
            Ok(name) => name,
            Err(why) => return Err(Failure::Program(format!("{}: .include: {why}", here()))),
        };
        if depth + 1 > MAX_INCLUDE_DEPTH {
            return Err(Failure::Program(format!(
                "{}: .include \"{included}\" nests more than {MAX_INCLUDE_DEPTH} files deep \
                 (does a file include itself?)",
                here()
            )));
        }
        let current_file = expanded
            .files
            .get(origin.file)
            .cloned()
            .unwrap_or_else(|| path.into());
        let target = resolve(&current_file, included);
        let body = std::fs::read_to_string(&target).map_err(|error| {
            Failure::Program(format!("{}: .include \"{included}\": {error}", here()))
        })?;
        // The directive's own line stays, empty, so the includer's later lines keep theirs.
        expanded.push_line("", origin)?;
        let index = expanded.file_index(&target);
        include_lines(expanded, &target, index, &body, false, depth + 1)?;
    }
    Ok(())
}

/// `# 12 "file.h" 1` (or `#line 12 "file.h"`): the line number and file name.
fn line_marker(line: &str) -> Option<(u32, &str)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let number = rest.get(..digits)?.parse().ok()?;
    let name = rest.get(digits..)?.trim_start().strip_prefix('"')?;
    Some((number, name.get(..name.find('"')?)?))
}

/// For a line whose statement is `.include "name"`: the name, or why it is malformed.
/// Other lines (including `.include` inside a string or after a `#`): `None`.
fn include_target(line: &str) -> Option<Result<&str, &'static str>> {
    let statement = line.trim_start();
    let rest = statement.strip_prefix(".include")?;
    if !rest.is_empty() && !rest.starts_with([' ', '\t', '"']) {
        // `.includes`, some other word.
        return None;
    }
    let Some(quoted) = rest.trim_start().strip_prefix('"') else {
        return Some(Err("expected a file name in double quotes"));
    };
    let Some(end) = quoted.find('"') else {
        return Some(Err("the file name's closing quote is missing"));
    };
    let after = quoted.get(end + 1..).unwrap_or("").trim_start();
    if !(after.is_empty() || after.starts_with('#') || after.starts_with("/*")) {
        return Some(Err("unexpected text after the file name"));
    }
    Some(Ok(quoted.get(..end).unwrap_or("")))
}

/// An included name relative to the including file's folder, as the Cell SDK's sources
/// expect, unless it is absolute.
fn resolve(including: &Path, name: &str) -> PathBuf {
    let name = Path::new(name);
    if name.is_absolute() {
        return name.to_path_buf();
    }
    including
        .parent()
        .map_or_else(|| name.to_path_buf(), |folder| folder.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_markers_of_gnu_cpp_are_read() {
        // GNU cpp's output format (cpp.info, "Preprocessor Output"): `# linenum "filename" flags`.
        assert_eq!(line_marker("# 7 \"defs.h\" 1"), Some((7, "defs.h")));
        assert_eq!(line_marker("#line 3 \"a.S\""), Some((3, "a.S")));
        assert_eq!(line_marker("# a comment"), None);
        assert_eq!(line_marker("il $3,1"), None);
    }

    #[test]
    fn include_statements_are_told_from_other_lines() {
        assert_eq!(include_target("  .include \"a.inc\""), Some(Ok("a.inc")));
        assert_eq!(include_target(".include\"a.inc\" # why"), Some(Ok("a.inc")));
        assert!(matches!(include_target(".include a.inc"), Some(Err(_))));
        assert_eq!(include_target(".includes"), None);
        assert_eq!(include_target("# .include \"x\""), None);
    }
}
