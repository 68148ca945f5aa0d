//! Macro definitions and their arguments: parameter lists (`a, b=1, c:req, d:vararg`), binding
//! a call's arguments (positional or `name=value`), and substitution of `\name`, `\@` and
//! `\()` in body lines.

use super::error::{AsmErrorKind, Name};
use super::symbols::SymbolName;
use super::text::{LineBuf, MAX_LINE, PResult, Span, err, find_top_level, ident_len};

/// Most macro definitions one source may hold.
pub const MAX_MACROS: usize = 32;
/// Most parameters of one macro (and values of one `.irp`).
pub const MAX_PARAMS: usize = 16;
/// Bytes for the argument values of one macro call or `.irp`.
pub const ARG_BYTES: usize = 256;

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
    pub default: &'src str,
    pub required: bool,
    pub vararg: bool,
}

/// Parameters of `.macro name a, b=1` (commas, or blanks when there are no commas).
pub(super) fn params(text: &str) -> impl Iterator<Item = Param<'_>> {
    values(text).map(|piece| {
        let (head, default) = match piece.find('=') {
            Some(i) => (
                piece.get(..i).unwrap_or(""),
                piece.get(i + 1..).unwrap_or(""),
            ),
            None => (piece, ""),
        };
        let (name, qualifier) = match head.find(':') {
            Some(i) => (head.get(..i).unwrap_or(""), head.get(i + 1..).unwrap_or("")),
            None => (head, ""),
        };
        Param {
            name: name.trim(),
            default: default.trim(),
            required: qualifier.trim().eq_ignore_ascii_case("req"),
            vararg: qualifier.trim().eq_ignore_ascii_case("vararg"),
        }
    })
}

/// The pieces of an argument or value list: split at top-level commas, or at blanks when
/// the list has no comma (GNU `as` accepts both separators).
pub(super) fn values(text: &str) -> impl Iterator<Item = &str> {
    let text = text.trim();
    let commas = find_top_level(text, b',', true) < text.len();
    let mut rest = if text.is_empty() { None } else { Some(text) };
    core::iter::from_fn(move || {
        let t = rest?;
        let end = if commas {
            find_top_level(t, b',', true)
        } else {
            t.find(|c: char| c.is_ascii_whitespace()).unwrap_or(t.len())
        };
        let piece = t.get(..end).unwrap_or("");
        rest = t
            .get(end + 1..)
            .map(str::trim_start)
            .filter(|r| commas || !r.is_empty());
        if end >= t.len() {
            rest = None;
        }
        Some(piece.trim())
    })
}

/// Values bound to a macro's parameters or an `.irp`'s list, stored inline.
#[derive(Clone, Debug, Default)]
pub(super) struct Args {
    text: heapless::String<ARG_BYTES>,
    ranges: heapless::Vec<(u16, u16), MAX_PARAMS>,
}

impl Args {
    pub fn push(&mut self, value: &str, at: usize) -> PResult<()> {
        let start = self.text.len() as u16;
        let full = |_| super::text::Located {
            offset: at,
            kind: AsmErrorKind::LineTooLong { limit: ARG_BYTES },
        };
        self.text.push_str(value).map_err(full)?;
        self.ranges
            .push((start, self.text.len() as u16))
            .map_err(|_| super::text::Located {
                offset: at,
                kind: AsmErrorKind::NestingLimit {
                    what: "macro parameters",
                    limit: MAX_PARAMS,
                },
            })
    }

    pub fn get(&self, index: usize) -> &str {
        self.ranges
            .get(index)
            .and_then(|&(s, e)| self.text.get(usize::from(s)..usize::from(e)))
            .unwrap_or("")
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }
}

/// Binds the arguments of a call of `def` (text after the macro name).
pub(super) fn bind(def: &MacroDef<'_>, call: Span<'_>) -> PResult<Args> {
    let mut given: [Option<&str>; MAX_PARAMS] = [None; MAX_PARAMS];
    let count = params(def.params).count();
    let mut position = 0;
    let text = call.text.trim();
    let mut pieces = values(text).enumerate().peekable();
    while let Some((i, piece)) = pieces.next() {
        let keyword = ident_len(piece);
        let named = piece
            .get(keyword..)
            .is_some_and(|r| r.trim_start().starts_with('='))
            && keyword > 0;
        let (slot, value) = if named {
            let key = piece.get(..keyword).unwrap_or("");
            let Some(slot) = params(def.params).position(|p| p.name == key) else {
                return call.err(AsmErrorKind::UnknownParameter(Name::new(key)));
            };
            let value = piece.get(keyword..).unwrap_or("").trim_start();
            (slot, value.get(1..).unwrap_or("").trim())
        } else {
            let slot = position;
            position += 1;
            (slot, piece)
        };
        if slot >= count {
            return call.err(AsmErrorKind::TooManyArguments(Name::new(def.name.as_str())));
        }
        let is_vararg = params(def.params).nth(slot).is_some_and(|p| p.vararg);
        if is_vararg && !named {
            // The rest of the call, separators included.
            let offset = text.len() - rest_from(text, i).len();
            given[slot] = text.get(offset..);
            break;
        }
        if let Some(entry) = given.get_mut(slot) {
            *entry = Some(value);
        }
        let _ = pieces.peek();
    }
    let mut args = Args::default();
    for (slot, param) in params(def.params).enumerate() {
        let value = match given.get(slot).copied().flatten() {
            Some(v) if !v.is_empty() => v,
            _ if param.required => {
                return call.err(AsmErrorKind::MissingArgument(Name::new(param.name)));
            }
            _ => param.default,
        };
        args.push(value, call.trim().offset)?;
    }
    Ok(args)
}

/// The text of `values(text)` from piece `index` on.
fn rest_from(text: &str, index: usize) -> &str {
    let mut rest = text.trim();
    for _ in 0..index {
        let commas = find_top_level(text, b',', true) < text.len();
        let end = if commas {
            find_top_level(rest, b',', true)
        } else {
            rest.find(|c: char| c.is_ascii_whitespace())
                .unwrap_or(rest.len())
        };
        rest = rest.get(end + 1..).unwrap_or("").trim_start();
    }
    rest
}

/// Replaces `\name` (a parameter), `\@` (the expansion counter) and `\()` (nothing) in
/// `line`; other backslashes stay.
pub(super) fn substitute(
    line: &str,
    lookup: &dyn Fn(&str) -> Option<usize>,
    args: &Args,
    counter: Option<u32>,
    out: &mut LineBuf,
) -> PResult<()> {
    out.clear();
    let bytes = line.as_bytes();
    let mut i = 0;
    let too_long = |at: usize| super::text::Located {
        offset: at,
        kind: AsmErrorKind::LineTooLong { limit: MAX_LINE },
    };
    while i < bytes.len() {
        let c = bytes[i];
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
            let len = ident_len(rest);
            let len = if len == 0 {
                rest.bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .count()
            } else {
                len
            };
            // A parameter name is the longest prefix that names one (`\a.b` is `\a` then `.b`).
            let found = (1..=len).rev().find_map(|l| {
                let candidate = rest.get(..l)?;
                lookup(candidate).map(|slot| (l, slot))
            });
            if let Some((l, slot)) = found {
                out.push_str(args.get(slot)).map_err(|_| too_long(i))?;
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
