//! Assembling and linking the program's sources with the library's `link` (one source is a
//! link of one), reporting errors as gas and ld do: every error met, each as
//! `file:line:col: message`.
//!
//! The library stops at the first error. To report more, as gas goes on with the next
//! statement, the statement's line is blanked in its source and the link run again; the
//! first pass's errors come in source order, then the second pass's (such as undefined
//! names, in the source that uses them). An error that is not one statement's (a limit, the
//! end of a source, a `--defsym`) ends the report.

use pmprobe::spu::isa::asm::{AsmError, AsmErrorKind, Program, link};

use crate::exit::Failure;
use crate::expand_source::ExpandedSource;

/// Labels an assembled program may define.
pub const SYMBOL_CAPACITY: usize = 4096;

/// Most errors reported for one link (gas reports every error it meets; after one, later
/// statements may fail only because the first did).
const MAX_REPORTED_ERRORS: usize = 20;

/// Links `sources` (expanded: includes inlined, preprocessed) with `definitions` into
/// `image`; on errors, reports up to [`MAX_REPORTED_ERRORS`] of them.
pub fn link_reporting(
    sources: &[ExpandedSource],
    definitions: &[String],
    image: &mut [u8],
) -> Result<Box<Program<SYMBOL_CAPACITY>>, Failure> {
    let mut texts: Vec<String> = sources.iter().map(|s| s.text.clone()).collect();
    let definitions: Vec<&str> = definitions.iter().map(String::as_str).collect();
    let mut errors: Vec<AsmError> = Vec::new();
    loop {
        let error = match link_on_big_stack(&texts, &definitions, image)? {
            Ok(program) if errors.is_empty() => return Ok(program),
            Ok(_) => break,
            Err(error) => error,
        };
        let one_statement = !matches!(
            error.kind,
            AsmErrorKind::ImageOverflow { .. }
                | AsmErrorKind::UnterminatedComment
                | AsmErrorKind::MissingEnd { .. }
                | AsmErrorKind::UnmatchedEnd(_)
                | AsmErrorKind::ExpansionLimit { .. }
                | AsmErrorKind::NestingLimit { .. }
                | AsmErrorKind::ArgumentSpace { .. }
                | AsmErrorKind::TooManySymbols { .. }
                | AsmErrorKind::TooManySections { .. }
                | AsmErrorKind::TooManyMacros { .. }
                | AsmErrorKind::TooManySources { .. }
                | AsmErrorKind::MultipleDefinition { .. }
                | AsmErrorKind::NeedsFileAccess(_)
        );
        let repeated = errors
            .iter()
            .any(|e| e.file == error.file && e.line == error.line);
        errors.push(error);
        if !one_statement || repeated || errors.len() >= MAX_REPORTED_ERRORS {
            break;
        }
        let text = texts.get_mut(usize::from(error.file));
        if !text.is_some_and(|text| blank_line(text, error.line)) {
            break;
        }
    }
    let report: Vec<String> = errors
        .iter()
        .map(|e| describe(sources, &definitions, e))
        .collect();
    Err(Failure::Program(report.join("\n")))
}

/// `file:line:col: message` for `error`, in the file it is in (or the `--defsym` it is in).
fn describe(sources: &[ExpandedSource], definitions: &[&str], error: &AsmError) -> String {
    let file = usize::from(error.file);
    let Some(source) = sources.get(file) else {
        let text = definitions.get(file - sources.len()).copied().unwrap_or("");
        return format!("--defsym `{text}`:{}: {}", error.column, error.kind);
    };
    match error.kind {
        AsmErrorKind::MultipleDefinition { name, first_file } => {
            let first = sources
                .get(usize::from(first_file))
                .and_then(ExpandedSource::path)
                .map_or_else(String::new, |path| path.display().to_string());
            format!(
                "{}:{}: multiple definition of `{name}` (first defined in {first})",
                source.locate(error.line),
                error.column
            )
        }
        _ => source.describe(error),
    }
}

/// Replaces line `line` (from 1) of `text` with an empty one; false if there is none.
fn blank_line(text: &mut String, line: u32) -> bool {
    let Some(index) = (line as usize).checked_sub(1) else {
        return false;
    };
    let start = if index == 0 {
        Some(0)
    } else {
        text.match_indices('\n').nth(index - 1).map(|(i, _)| i + 1)
    };
    let Some(start) = start else {
        return false;
    };
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    text.replace_range(start..end, "");
    true
}

/// Stack for the assembler's thread. The heap-free assembler keeps its symbol table (with
/// names inline), sections and line buffers in its frame: over 2 MiB for
/// [`SYMBOL_CAPACITY`] symbols, more than a spawned thread's default stack (a test harness
/// calling spusim in-process overflowed it).
const ASSEMBLER_STACK_BYTES: usize = 64 << 20;

/// [`link`] on a thread of its own with [`ASSEMBLER_STACK_BYTES`] of stack.
fn link_on_big_stack(
    texts: &[String],
    definitions: &[&str],
    image: &mut [u8],
) -> Result<Result<Box<Program<SYMBOL_CAPACITY>>, AsmError>, Failure> {
    let sources: Vec<&str> = texts.iter().map(String::as_str).collect();
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("spusim-assemble".into())
            .stack_size(ASSEMBLER_STACK_BYTES)
            .spawn_scoped(scope, || {
                link::<SYMBOL_CAPACITY>(&sources, definitions, image).map(Box::new)
            })
            .map_err(|error| Failure::Io(format!("cannot start the assembler thread: {error}")))?
            .join()
            .map_err(|_| Failure::Io("the assembler thread panicked".into()))
    })
}
