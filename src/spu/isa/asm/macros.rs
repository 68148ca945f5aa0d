//! Macro definitions and their arguments, as gas's `macro.c` reads them: parameter lists
//! (`a, b=1, c:req, d:vararg`, commas or blanks between), a call's arguments (positional,
//! then `name=value`), `.irp`/`.irpc` values, and substitution of `\name`, `\@` and `\()` in
//! body lines.
//!
//! An argument is a string in double quotes, which loses its quotes (`""` inside stands for
//! one `"`), or the text up to a blank or a comma outside parentheses and brackets (quotes
//! inside it are kept). So `m "(\first+1)"` passes `(\first+1)`, and `m 1 + 2` passes three
//! arguments, as gas reads them (`get_any_string`).
//!
//! The values of every expansion under way are kept in one pool (`ArgPool`), stacked as the
//! expansions nest, so a deep recursion costs its arguments' bytes, not a fixed buffer per
//! level.

use super::error::{AsmErrorKind, Name};
use super::symbols::SymbolName;
use super::text::{LineBuf, Located, MAX_LINE, PResult, Span, err, ident_len, is_ident_char};

/// Most macro definitions one source may hold.
pub const MAX_MACROS: usize = 32;
/// Most parameters of one macro.
pub const MAX_PARAMS: usize = 32;
/// Bytes of the argument values of all expansions under way at once (the macro arguments
/// and `.irp` values of every level). newlib's `spu-mcount.S` recurses 74 levels with an
/// argument one parenthesis longer at each level: about 11 KiB.
pub const ARG_BYTES: usize = 12 * 1024;
/// Values (macro arguments, `.irp` values and symbols) of all expansions under way at once.
pub const MAX_ARG_VALUES: usize = 512;

/// A macro: its name, parameter text and body (a byte range of the source).
#[derive(Clone, Copy, Debug)]
pub(super) struct MacroDef<'src> {
    pub name: SymbolName,
    pub params: &'src str,
    pub start: usize,
    pub end: usize,
    pub line: u32,
}

/// One parameter of a macro.
#[derive(Clone, Copy, Debug)]
pub(super) struct Param<'src> {
    pub name: &'src str,
    /// The default as written (a quoted one loses its quotes when it is used).
    pub default: &'src str,
    pub required: bool,
    pub vararg: bool,
}

fn skip_blanks(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|&c| c == b' ' || c == b'\t') {
        i += 1;
    }
    i
}

/// gas's `sb_skip_comma`: blanks, one optional comma, blanks.
fn skip_comma(bytes: &[u8], i: usize) -> usize {
    let i = skip_blanks(bytes, i);
    let i = if bytes.get(i) == Some(&b',') {
        i + 1
    } else {
        i
    };
    skip_blanks(bytes, i)
}

/// Reads the double-quoted strings at `i` as gas's `getstring` does (back to back, `""`
/// inside one standing for `"`, a quote after an odd run of backslashes kept), passing the
/// contents to `out`; returns where they end.
fn quoted(bytes: &[u8], mut i: usize, out: &mut dyn FnMut(&[u8]) -> PResult<()>) -> PResult<usize> {
    while bytes.get(i) == Some(&b'"') {
        i += 1;
        let mut escaped = false;
        while let Some(&c) = bytes.get(i) {
            escaped = i > 0 && bytes.get(i - 1) == Some(&b'\\') && !escaped;
            if escaped && c == b'"' {
                out(b"\"")?;
                i += 1;
                continue;
            }
            if c == b'"' {
                i += 1;
                if bytes.get(i) != Some(&b'"') {
                    break;
                }
            }
            out(bytes.get(i..i + 1).unwrap_or(&[]))?;
            i += 1;
        }
    }
    Ok(i)
}

/// The end of the argument starting at `i` (gas's `get_any_string` extent): quoted strings,
/// or the text up to a blank or comma outside parentheses and brackets.
fn any_string_end(bytes: &[u8], mut i: usize) -> usize {
    if bytes.get(i) == Some(&b'"') {
        return quoted(bytes, i, &mut |_| Ok(())).unwrap_or(bytes.len());
    }
    let mut depth = 0usize;
    while let Some(&c) = bytes.get(i) {
        match c {
            b' ' | b'\t' if depth == 0 => break,
            b',' => break,
            b'"' => {
                i += 1;
                while bytes.get(i).is_some_and(|&d| d != c) {
                    i += 1;
                }
            }
            // A character constant is one token (`','`, `' '`).
            b'\'' => i += super::text::char_constant(bytes, i).map_or(1, |(_, len)| len) - 1,
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    i.min(bytes.len())
}

/// The parameters of `.macro name a, b=1` (gas's `do_formals`).
pub(super) fn params(text: &str) -> impl Iterator<Item = Param<'_>> {
    let bytes = text.as_bytes();
    let mut i = skip_blanks(bytes, 0);
    core::iter::from_fn(move || {
        let name_len = ident_len(text.get(i..)?);
        if name_len == 0 {
            return None;
        }
        let name = text.get(i..i + name_len)?;
        i = skip_blanks(bytes, i + name_len);
        let (mut required, mut vararg) = (false, false);
        if bytes.get(i) == Some(&b':') {
            let start = skip_blanks(bytes, i + 1);
            let len = ident_len(text.get(start..).unwrap_or(""));
            let qualifier = text.get(start..start + len).unwrap_or("");
            required = qualifier == "req";
            vararg = qualifier == "vararg";
            i = skip_blanks(bytes, start + len);
        }
        let mut default = "";
        if bytes.get(i) == Some(&b'=') {
            let start = skip_blanks(bytes, i + 1);
            let end = any_string_end(bytes, start);
            default = text.get(start..end).unwrap_or("");
            i = end;
        }
        i = skip_comma(bytes, i);
        Some(Param {
            name,
            default,
            required,
            vararg,
        })
    })
}

/// The values of every expansion under way: text and ranges, pushed and popped with them.
#[derive(Clone, Debug)]
pub(super) struct ArgPool {
    text: heapless::Vec<u8, ARG_BYTES>,
    ranges: heapless::Vec<(u16, u16), MAX_ARG_VALUES>,
}

/// Where an expansion's values start in the pool, to pop them with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Mark {
    text: u16,
    values: u16,
}

impl ArgPool {
    pub const fn new() -> Self {
        ArgPool {
            text: heapless::Vec::new(),
            ranges: heapless::Vec::new(),
        }
    }

    pub fn mark(&self) -> Mark {
        Mark {
            text: self.text.len() as u16,
            values: self.ranges.len() as u16,
        }
    }

    /// Drops every value pushed since `mark`.
    pub fn release(&mut self, mark: Mark) {
        self.text.truncate(usize::from(mark.text));
        self.ranges.truncate(usize::from(mark.values));
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.ranges.clear();
    }

    /// Appends bytes to the value being built.
    fn append(&mut self, piece: &[u8], at: usize) -> PResult<()> {
        self.text.extend_from_slice(piece).map_err(|_| Located {
            offset: at,
            kind: AsmErrorKind::ArgumentSpace { limit: ARG_BYTES },
        })
    }

    /// Ends a value that started at text offset `start`.
    fn close(&mut self, start: u16, at: usize) -> PResult<()> {
        self.ranges
            .push((start, self.text.len() as u16))
            .map_err(|_| Located {
                offset: at,
                kind: AsmErrorKind::NestingLimit {
                    what: "macro arguments and `.irp` values under expansion",
                    limit: MAX_ARG_VALUES,
                },
            })
    }

    /// Pushes `raw` as one value: a quoted string without its quotes, else as it is.
    pub fn push(&mut self, raw: &str, at: usize) -> PResult<()> {
        let start = self.text.len() as u16;
        let bytes = raw.as_bytes();
        if bytes.first() == Some(&b'"') {
            quoted(bytes, 0, &mut |piece| self.append(piece, at))?;
        } else {
            self.append(bytes, at)?;
        }
        self.close(start, at)
    }

    /// Pushes `text` as one value, as it is.
    pub fn push_plain(&mut self, text: &str, at: usize) -> PResult<()> {
        let start = self.text.len() as u16;
        self.append(text.as_bytes(), at)?;
        self.close(start, at)
    }

    /// Value `index` of the expansion whose values start at `mark`.
    pub fn get(&self, mark: Mark, index: usize) -> &str {
        self.ranges
            .get(usize::from(mark.values) + index)
            .and_then(|&(s, e)| self.text.get(usize::from(s)..usize::from(e)))
            .and_then(|bytes| core::str::from_utf8(bytes).ok())
            .unwrap_or("")
    }

    /// Values pushed since `mark`.
    pub fn count(&self, mark: Mark) -> usize {
        self.ranges.len().saturating_sub(usize::from(mark.values))
    }
}

/// Binds the arguments of a call of `def` (text after the macro name) as gas's
/// `macro_expand` reads them: one value per parameter pushed to `pool`, from `mark` on.
pub(super) fn bind(def: &MacroDef<'_>, call: Span<'_>, pool: &mut ArgPool) -> PResult<()> {
    let text = call.text;
    let bytes = text.as_bytes();
    let count = params(def.params).count();
    if count > MAX_PARAMS {
        return call.err(AsmErrorKind::NestingLimit {
            what: "macro parameters",
            limit: MAX_PARAMS,
        });
    }
    // Each given argument's raw text, by parameter.
    let mut given: [Option<&str>; MAX_PARAMS] = [None; MAX_PARAMS];
    let mut position = 0;
    let mut keyword_seen = false;
    let mut i = skip_blanks(bytes, 0);
    while i < bytes.len() {
        let at = call.offset + i;
        // A keyword argument: a name and `=` before any separator.
        let scan = bytes
            .iter()
            .skip(i)
            .position(|&c| matches!(c, b' ' | b'\t' | b',' | b'"' | b';' | b'(' | b')' | b'='))
            .map_or(bytes.len(), |n| i + n);
        let (slot, start) = if bytes.get(scan) == Some(&b'=') {
            keyword_seen = true;
            let key = text.get(i..scan).unwrap_or("").trim();
            let Some(slot) = params(def.params).position(|p| p.name == key) else {
                return err(at, AsmErrorKind::UnknownParameter(Name::new(key)));
            };
            (slot, skip_blanks(bytes, scan + 1))
        } else {
            if keyword_seen {
                return err(at, AsmErrorKind::PositionalAfterKeyword);
            }
            position += 1;
            (position - 1, i)
        };
        if slot >= count {
            return err(
                at,
                AsmErrorKind::TooManyArguments(Name::new(def.name.as_str())),
            );
        }
        let vararg = params(def.params).nth(slot).is_some_and(|p| p.vararg);
        let end = if vararg && !keyword_seen {
            bytes.len()
        } else {
            any_string_end(bytes, start)
        };
        if let Some(entry) = given.get_mut(slot) {
            *entry = Some(text.get(start..end).unwrap_or(""));
        }
        i = skip_comma(bytes, end);
    }
    for (slot, param) in params(def.params).enumerate() {
        let at = call.trim().offset;
        match given.get(slot).copied().flatten().filter(|v| !v.is_empty()) {
            Some(value) if param.vararg => pool.push_plain(value, at)?,
            Some(value) => pool.push(value, at)?,
            None if param.required => {
                return call.err(AsmErrorKind::MissingArgument(Name::new(param.name)));
            }
            None => pool.push(param.default, at)?,
        }
    }
    Ok(())
}

/// Pushes the values of `.irp sym, values` (gas's `get_any_string` for each) or, for
/// `.irpc`, each character (blanks skipped outside double quotes); at least one, empty.
pub(super) fn irp_values(list: Span<'_>, chars: bool, pool: &mut ArgPool) -> PResult<()> {
    let mark = pool.mark();
    let text = list.text;
    let bytes = text.as_bytes();
    let at = list.offset;
    let mut i = skip_blanks(bytes, 0);
    if chars {
        let mut quoted = false;
        while i < bytes.len() {
            if bytes.get(i) == Some(&b'"') {
                quoted = !quoted;
                i += 1;
                continue;
            }
            let len = text
                .get(i..)
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            pool.push_plain(text.get(i..i + len).unwrap_or(""), at)?;
            i += len;
            if !quoted {
                i = skip_blanks(bytes, i);
            }
        }
    } else {
        while i < bytes.len() {
            let end = any_string_end(bytes, i);
            pool.push(text.get(i..end).unwrap_or(""), at)?;
            i = skip_comma(bytes, end);
        }
    }
    if pool.count(mark) == 0 {
        // GNU `as` assembles the body once with the symbol empty.
        pool.push_plain("", at)?;
    }
    Ok(())
}

/// Replaces `\name` (a parameter: `lookup` gives its value), `\@` (the expansion counter)
/// and `\()` (nothing) in `line`; other backslashes stay.
pub(super) fn substitute<'v>(
    line: &str,
    lookup: &dyn Fn(&str) -> Option<&'v str>,
    counter: Option<u32>,
    out: &mut LineBuf,
) -> PResult<()> {
    out.clear();
    let bytes = line.as_bytes();
    let mut i = 0;
    let too_long = |at: usize| Located {
        offset: at,
        kind: AsmErrorKind::LineTooLong { limit: MAX_LINE },
    };
    while let Some(&c) = bytes.get(i) {
        if c == b'\\' {
            let rest = line.get(i + 1..).unwrap_or("");
            if let Some(n) = counter
                && rest.starts_with('@')
            {
                core::fmt::write(out, format_args!("{n}")).map_err(|_| too_long(i))?;
                i += 2;
                continue;
            }
            if rest.starts_with("()") {
                i += 3;
                continue;
            }
            let len = rest.bytes().take_while(|&b| is_ident_char(b)).count();
            // A parameter name is the longest prefix that names one (`\a.b` is `\a` then `.b`).
            let found = (1..=len).rev().find_map(|l| {
                let candidate = rest.get(..l)?;
                lookup(candidate).map(|value| (l, value))
            });
            if let Some((l, value)) = found {
                out.push_str(value).map_err(|_| too_long(i))?;
                i += 1 + l;
                continue;
            }
        }
        let ch_len = line
            .get(i..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8);
        out.push_str(line.get(i..i + ch_len).unwrap_or(""))
            .map_err(|_| too_long(i))?;
        i += ch_len;
    }
    Ok(())
}

/// An error naming a macro.
pub(super) fn duplicate(name: &str, at: usize) -> PResult<()> {
    err(at, AsmErrorKind::DuplicateMacro(Name::new(name)))
}
