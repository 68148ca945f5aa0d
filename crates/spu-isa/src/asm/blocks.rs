//! The directives that start bodies: `.macro` (a definition), macro calls, `.rept`, `.irp`,
//! `.irpc` (and gas's names for them, `rep`, `irep`, `irepc`), `.exitm`.
//!
//! A body ends at the matching end directive, found as gas's `buffer_and_nest` finds it: on
//! the first statement of a line, after any `name:` labels, with or without its dot
//! (`NO_PSEUDO_DOT`), the whole word (`.endm`, `endm`; `.endmacro` is no end, as in gas).
//! Nested openers of the same kind count.

use super::error::{AsmErrorKind, Name};
use super::macros::{self, MAX_MACROS, MacroDef};
use super::pass::Pass;
use super::reader::{Frame, FrameKind, MAX_EXPANSION_DEPTH, MAX_REPEAT, first_word, line_at};
use super::symbols::SymbolName;
use super::text::{LineBuf, Located, PResult, Span, err, ident_len, is_ident_char, strip_comments};

/// The openers of a repeat body, nested ones included.
const REPEATS: [&str; 6] = ["rept", "rep", "irp", "irep", "irpc", "irepc"];

/// The directive word of a body line as gas's `buffer_and_nest` reads it: after leading
/// blanks and any `name:` labels, an optional dot, then a whole name.
fn block_word(line: &str) -> &str {
    let mut rest = line.trim_start();
    loop {
        let len = ident_len(rest);
        let after = rest.get(len..).unwrap_or("").trim_start();
        match after.strip_prefix(':') {
            Some(next) if len > 0 => rest = next.trim_start(),
            _ => break,
        }
    }
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    let len = rest.bytes().take_while(|&c| is_ident_char(c)).count();
    rest.get(..len).unwrap_or("")
}

fn named(word: &str, names: &[&str]) -> bool {
    names.iter().any(|n| word.eq_ignore_ascii_case(n))
}

impl<'src, const SYMS: usize> Pass<'src, '_, SYMS> {
    /// Reads raw lines of the current stream up to the matching end directive; returns the
    /// body (start, end, first line).
    fn skip_block(
        &mut self,
        open: &[&str],
        close: &str,
        expected: &'static str,
    ) -> PResult<(usize, usize, u32)> {
        let source = self.source;
        let (mut cursor, end, mut line) = match self.expander.frames.last() {
            Some(f) => (f.cursor as usize, f.end as usize, f.line),
            None => (
                self.expander.cursor,
                source.len(),
                self.expander.source_line + 1,
            ),
        };
        let start = cursor;
        let start_line = line;
        let mut depth = 1usize;
        let mut stripped = LineBuf::new();
        let mut in_comment = false;
        while cursor < end {
            let (text, next) = line_at(source, cursor, end);
            strip_comments(text, &mut in_comment, &mut stripped)?;
            let word = block_word(&stripped);
            if named(word, open) {
                depth += 1;
            } else if word.eq_ignore_ascii_case(close) {
                depth -= 1;
            }
            if depth == 0 {
                match self.expander.frames.last_mut() {
                    Some(f) => {
                        f.cursor = next as u32;
                        f.line = line + 1;
                    }
                    None => {
                        self.expander.cursor = next;
                        self.expander.source_line = line;
                    }
                }
                return Ok((start, cursor, start_line));
            }
            cursor = next;
            line += 1;
        }
        err(0, AsmErrorKind::MissingEnd { expected })
    }

    pub(super) fn define_macro(&mut self, args: Span<'_>) -> PResult<()> {
        let args = args.trim();
        let len = ident_len(args.text);
        if len == 0 {
            return args.err(AsmErrorKind::ExpectedExpression);
        }
        let name_text = args.text.get(..len).unwrap_or("");
        let name = SymbolName::new(name_text).map_err(|kind| Located {
            offset: args.offset,
            kind,
        })?;
        // The parameter text must outlive the line buffer: take it from the source line.
        let params = self.raw_params(name_text);
        let (start, end, line) = self.skip_block(&["macro"], "endm", ".endm")?;
        if self.find_macro(name_text).is_some() {
            return macros::duplicate(name_text, args.offset);
        }
        self.expander
            .macros
            .push(MacroDef {
                name,
                params,
                start,
                end,
                line,
            })
            .map_err(|_| Located {
                offset: args.offset,
                kind: AsmErrorKind::TooManyMacros {
                    capacity: MAX_MACROS,
                },
            })
    }

    /// The parameter list of the `.macro NAME ...` line just read, as a slice of the source:
    /// what follows the name on it, comments left out.
    fn raw_params(&self, name: &str) -> &'src str {
        let source = self.source;
        let cursor = self.current_cursor();
        let line_start = source
            .get(..cursor.saturating_sub(1))
            .and_then(|s| s.rfind('\n'))
            .map_or(0, |i| i + 1);
        let line = source.get(line_start..cursor).unwrap_or("");
        let line = line.split('#').next().unwrap_or("").trim_end();
        let (_, after) = first_word(Span {
            text: line,
            offset: 0,
        });
        let after = after.text.trim_start();
        let params = match after.get(..name.len()) {
            Some(head) if head.eq_ignore_ascii_case(name) => after.get(name.len()..),
            _ => None,
        };
        params.unwrap_or("").trim().trim_start_matches(',')
    }

    pub(super) fn call_macro(&mut self, index: usize, args: Span<'_>, at: usize) -> PResult<()> {
        let Some(def) = self.expander.macros.get(index).copied() else {
            return Ok(());
        };
        let values = self.expander.pool.mark();
        if let Err(e) = macros::bind(&def, args, &mut self.expander.pool) {
            self.expander.pool.release(values);
            return Err(e);
        }
        let counter = self.expander.counter;
        self.expander.counter += 1;
        self.push_frame(
            FrameKind::Macro {
                def: index as u8,
                counter,
            },
            (def.start, def.end, def.line),
            values,
            at,
        )
    }

    fn push_frame(
        &mut self,
        kind: FrameKind,
        (start, end, line): (usize, usize, u32),
        values: super::macros::Mark,
        at: usize,
    ) -> PResult<()> {
        let frame = Frame {
            kind,
            start: start as u32,
            end: end as u32,
            start_line: line,
            cursor: start as u32,
            line,
            conditionals: self.expander.conditionals.len() as u16,
            values,
            called_at: (
                self.expander.line,
                u32::try_from(at + 1).unwrap_or(u32::MAX),
            ),
        };
        self.expander.frames.push(frame).map_err(|_| {
            self.expander.pool.release(values);
            Located {
                offset: at,
                kind: AsmErrorKind::NestingLimit {
                    what: "macro expansion",
                    limit: MAX_EXPANSION_DEPTH,
                },
            }
        })
    }

    pub(super) fn exit_macro(&mut self, at: usize) -> PResult<()> {
        let Some(index) = self.innermost_macro() else {
            return err(at, AsmErrorKind::UnmatchedEnd(Name::new(".exitm")));
        };
        let Some(frame) = self.expander.frames.get(index).copied() else {
            return Ok(());
        };
        self.expander
            .conditionals
            .truncate(usize::from(frame.conditionals));
        self.expander.frames.truncate(index);
        self.expander.pool.release(frame.values);
        Ok(())
    }

    /// `.rept N` (`rep`), `.irp sym, values` (`irep`), `.irpc sym, chars` (`irepc`).
    pub(super) fn repeat(&mut self, word: &str, args: Span<'_>, at: usize) -> PResult<()> {
        let values = self.expander.pool.mark();
        let kind = if word == "rept" || word == "rep" {
            let count = self.constant(args)?;
            // gas repeats a negative count 0 times (with a warning).
            if count > MAX_REPEAT {
                return args.err(AsmErrorKind::ImmediateOutOfRange {
                    operand: 1,
                    value: count,
                    min: 0,
                    max: MAX_REPEAT,
                });
            }
            FrameKind::Repeat {
                remaining: count.max(0) as u32,
            }
        } else {
            let text = args.trim();
            let var_len = ident_len(text.text);
            if var_len == 0 {
                return text.err(AsmErrorKind::ExpectedExpression);
            }
            let var = text.text.get(..var_len).unwrap_or("");
            let pool = &mut self.expander.pool;
            pool.push_plain(var, text.offset)?;
            // gas's `sb_skip_comma` after the symbol.
            let list = text.from(var_len);
            let list = list.trim();
            let list = match list.text.strip_prefix(',') {
                Some(_) => list.from(1).trim(),
                None => list,
            };
            let chars = word == "irpc" || word == "irepc";
            if let Err(e) = macros::irp_values(list, chars, pool) {
                pool.release(values);
                return Err(e);
            }
            FrameKind::Irp { index: 0 }
        };
        let body = match self.skip_block(&REPEATS, "endr", ".endr") {
            Ok(body) => body,
            Err(e) => {
                self.expander.pool.release(values);
                return Err(e);
            }
        };
        if matches!(kind, FrameKind::Repeat { remaining: 0 }) {
            return Ok(());
        }
        self.push_frame(kind, body, values, at)
    }
}
