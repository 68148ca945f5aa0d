//! What spusim does to an assembly source before the library's assembler sees it, the part
//! of GNU as's job that needs files: `.S` files go through the C preprocessor (as `gcc`
//! does), and `.include "file"` is replaced by the file's text. The library assembles one
//! text and has no file system (it also runs on bare metal); here every line of the text
//! it gets remembers the file and line it came from, so an error names the original place.
//! `.incbin "file"[, skip[, count]]` becomes `.byte` lines of the file's bytes.
//!
//! A file that cannot be read is not an error yet: GNU as opens an included file only when it
//! reaches the directive, so one inside a false `.if` (or behind an include guard) is never
//! opened. The directive stays in the text, the assembler stops on it only if it reaches it
//! ([`AsmErrorKind::NeedsFileAccess`]), and [`ExpandedSource::describe`] then gives the reason
//! found here.

use std::path::{Path, PathBuf};
use std::process::Command;

use pmprobe::spu::isa::asm::{AsmError, AsmErrorKind};

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
    /// Directives left in the text because their file could not be read: the text's line
    /// (from 1) and why.
    unreadable: Vec<(u32, String)>,
}

impl ExpandedSource {
    /// `file:line` of the expanded text's line `line` (from 1), as the user wrote it.
    /// The file the source was read from (its includes aside).
    pub fn path(&self) -> Option<&Path> {
        self.files.first().map(PathBuf::as_path)
    }

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

    /// The assembler's `error` as `file:line:col: what`, at the place the user wrote it; for a
    /// `.include` or `.incbin` whose file could not be read, the reason it could not.
    pub fn describe(&self, error: &AsmError) -> String {
        let place = self.locate(error.line);
        if matches!(error.kind, AsmErrorKind::NeedsFileAccess(_))
            && let Some((_, why)) = self.unreadable.iter().find(|(line, _)| *line == error.line)
        {
            return format!("{place}:{}: {why}", error.column);
        }
        let mut text = format!("{place}:{}: {}", error.column, error.kind);
        // In a macro or repeat body: where the expansion was started, as gas's note says.
        if let Some((line, column)) = error.invoked_at {
            text.push_str(&format!(
                "\n{}:{column}: note: expansion started here",
                self.locate(line)
            ));
        }
        text
    }

    fn place(&self, origin: Origin) -> String {
        format!(
            "{}:{}",
            self.files
                .get(origin.file)
                .map_or(String::new(), |f| f.display().to_string()),
            origin.line
        )
    }

    /// Keeps `line` (a file directive) as it is, for the assembler to stop on if it reaches it.
    fn push_unreadable(&mut self, line: &str, origin: Origin, why: String) -> Result<(), Failure> {
        self.push_line(line, origin)?;
        self.unreadable.push((self.origins.len() as u32, why));
        Ok(())
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
        let (labels, statement) = split_labels(line);
        let Some((directive, target)) = file_directive(statement) else {
            expanded.push_line(line, origin)?;
            continue;
        };
        let target = match target {
            Ok(target) => target,
            Err(why) => {
                return Err(Failure::Program(format!(
                    "{}: {directive}: {why}",
                    expanded.place(origin)
                )));
            }
        };
        let current_file = expanded
            .files
            .get(origin.file)
            .cloned()
            .unwrap_or_else(|| path.into());
        let resolved = resolve(&current_file, target.name);
        if directive == ".incbin" {
            match std::fs::read(&resolved) {
                Ok(bytes) => incbin_lines(expanded, labels, &bytes, &target, origin)?,
                Err(error) => expanded.push_unreadable(
                    line,
                    origin,
                    format!(".incbin \"{}\": {error}", target.name),
                )?,
            }
            continue;
        }
        if depth + 1 > MAX_INCLUDE_DEPTH {
            expanded.push_unreadable(
                line,
                origin,
                format!(
                    ".include \"{}\" nests more than {MAX_INCLUDE_DEPTH} files deep (does a file \
                     include itself?)",
                    target.name
                ),
            )?;
            continue;
        }
        match std::fs::read_to_string(&resolved) {
            Ok(body) => {
                // The directive's own line stays (its labels only), so the includer's later
                // lines keep their numbers.
                expanded.push_line(labels, origin)?;
                let index = expanded.file_index(&resolved);
                include_lines(expanded, &resolved, index, &body, false, depth + 1)?;
            }
            Err(error) => expanded.push_unreadable(
                line,
                origin,
                format!(".include \"{}\": {error}", target.name),
            )?,
        }
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

/// The file a `.include "name"` or `.incbin "name"[, skip[, count]]` names, and for
/// `.incbin` which of its bytes.
#[derive(Debug, PartialEq, Eq)]
struct FileTarget<'a> {
    name: &'a str,
    skip: u64,
    count: Option<u64>,
}

/// For a line whose statement is `.include` or `.incbin`: the directive and its target, or
/// why it is malformed. Other lines (including the words inside a string or after a `#`):
/// `None`.
fn file_directive(line: &str) -> Option<(&'static str, Result<FileTarget<'_>, &'static str>)> {
    let statement = line.trim_start();
    let (directive, rest) = [".include", ".incbin"]
        .into_iter()
        .find_map(|d| Some((d, statement.strip_prefix(d)?)))?;
    if !rest.is_empty() && !rest.starts_with([' ', '\t', '"']) {
        // `.includes`, some other word.
        return None;
    }
    Some((directive, file_target(directive, rest)))
}

fn file_target<'a>(directive: &str, rest: &'a str) -> Result<FileTarget<'a>, &'static str> {
    let quoted = rest
        .trim_start()
        .strip_prefix('"')
        .ok_or("expected a file name in double quotes")?;
    let end = quoted
        .find('"')
        .ok_or("the file name's closing quote is missing")?;
    let mut after = quoted.get(end + 1..).unwrap_or("");
    // A comment ends the statement.
    if let Some(comment) = after.find(['#']).into_iter().chain(after.find("/*")).min() {
        after = after.get(..comment).unwrap_or("");
    }
    let after = after.trim();
    let mut target = FileTarget {
        name: quoted.get(..end).unwrap_or(""),
        skip: 0,
        count: None,
    };
    if after.is_empty() {
        return Ok(target);
    }
    if directive == ".include" {
        return Err("unexpected text after the file name");
    }
    let mut numbers = after
        .strip_prefix(',')
        .ok_or("expected `, skip` or the end of the statement after the file name")?
        .split(',')
        .map(|n| parse_number(n.trim()));
    target.skip = numbers
        .next()
        .flatten()
        .ok_or("skip must be a number (spusim reads .incbin's skip and count as literals)")?;
    if let Some(count) = numbers.next() {
        target.count =
            Some(count.ok_or(
                "count must be a number (spusim reads .incbin's skip and count as literals)",
            )?);
    }
    if numbers.next().is_some() {
        return Err("expected at most `\"file\", skip, count`");
    }
    Ok(target)
}

/// A decimal, `0x` hexadecimal or `0b` binary literal, as GNU as writes them.
fn parse_number(text: &str) -> Option<u64> {
    let lower = text.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(binary) = lower.strip_prefix("0b") {
        u64::from_str_radix(binary, 2).ok()
    } else {
        lower.parse().ok()
    }
}

/// `line` as its leading labels (`name:` and `1:`, as many as there are) and the statement
/// after them.
fn split_labels(line: &str) -> (&str, &str) {
    let mut end = 0;
    loop {
        let rest = line.get(end..).unwrap_or("");
        let word = rest.trim_start();
        let name_len = word.len()
            - word
                .trim_start_matches(|c: char| {
                    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')
                })
                .len();
        if name_len == 0 || word.get(name_len..name_len + 1) != Some(":") {
            return (line.get(..end).unwrap_or(""), rest);
        }
        end += rest.len() - word.len() + name_len + 1;
    }
}

/// The bytes `.incbin` takes from `bytes`, as `.byte` lines all at the directive's place,
/// the first one after the directive's `labels`.
fn incbin_lines(
    expanded: &mut ExpandedSource,
    labels: &str,
    bytes: &[u8],
    target: &FileTarget<'_>,
    origin: Origin,
) -> Result<(), Failure> {
    let skip = usize::try_from(target.skip).unwrap_or(usize::MAX);
    let Some(rest) = bytes.get(skip..) else {
        return Err(Failure::Program(format!(
            "{}: .incbin \"{}\": skip {} is past the file's end ({} bytes)",
            expanded.place(origin),
            target.name,
            target.skip,
            bytes.len()
        )));
    };
    let taken = match target.count {
        // GNU as takes what there is when count passes the end, with a warning.
        Some(count) => rest.get(..usize::try_from(count).unwrap_or(usize::MAX).min(rest.len())),
        None => Some(rest),
    }
    .unwrap_or(rest);
    if taken.is_empty() {
        return expanded.push_line(labels, origin);
    }
    for (n, chunk) in taken.chunks(16).enumerate() {
        let mut line = String::from(if n == 0 { labels } else { "" });
        line.push_str(" .byte ");
        for (i, byte) in chunk.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            line.push_str(&byte.to_string());
        }
        expanded.push_line(&line, origin)?;
    }
    Ok(())
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
        let file = |name| FileTarget {
            name,
            skip: 0,
            count: None,
        };
        assert_eq!(
            file_directive("  .include \"a.inc\""),
            Some((".include", Ok(file("a.inc"))))
        );
        assert_eq!(
            file_directive(".include\"a.inc\" # why"),
            Some((".include", Ok(file("a.inc"))))
        );
        assert!(matches!(
            file_directive(".include a.inc"),
            Some((".include", Err(_)))
        ));
        assert!(matches!(
            file_directive(".include \"a.inc\", 3"),
            Some((".include", Err(_)))
        ));
        assert_eq!(file_directive(".includes"), None);
        assert_eq!(file_directive("# .include \"x\""), None);
    }

    #[test]
    fn labels_before_a_file_directive_are_kept_apart() {
        assert_eq!(
            split_labels("a: 1:  .incbin \"x\""),
            ("a: 1:", "  .incbin \"x\"")
        );
        assert_eq!(split_labels("  .include \"x\""), ("", "  .include \"x\""));
        assert_eq!(split_labels("il $3, 1"), ("", "il $3, 1"));
    }

    #[test]
    fn incbin_takes_skip_and_count_as_gas_does() {
        // gas manual, `.incbin "file"[,skip[,count]]`.
        assert_eq!(
            file_directive(".incbin \"t.bin\", 0x10, 4"),
            Some((
                ".incbin",
                Ok(FileTarget {
                    name: "t.bin",
                    skip: 16,
                    count: Some(4)
                })
            ))
        );
        assert!(matches!(
            file_directive(".incbin \"t.bin\", SKIP"),
            Some((".incbin", Err(_)))
        ));
    }
}
