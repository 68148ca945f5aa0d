//! Lexical layer: spans of a line, names, comments (`#`, `/* ... */`), statements (`;`) and
//! operand lists (`,` outside parentheses, strings and character constants).

use super::error::AsmErrorKind;

/// Longest line, after comment removal and macro substitution, the assembler reads.
pub const MAX_LINE: usize = 1024;

/// A line buffer (comments blanked, macro arguments substituted).
pub(super) type LineBuf = heapless::String<MAX_LINE>;

/// An error at a byte offset of the current line.
#[derive(Clone, Copy, Debug)]
pub(super) struct Located {
    pub offset: usize,
    pub kind: AsmErrorKind,
}

pub(super) type PResult<T> = Result<T, Located>;

pub(super) fn err<T>(offset: usize, kind: AsmErrorKind) -> PResult<T> {
    Err(Located { offset, kind })
}

/// A piece of a line with the byte offset where it starts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span<'s> {
    pub text: &'s str,
    pub offset: usize,
}

impl<'s> Span<'s> {
    /// Removes leading and trailing whitespace, keeping the offset right.
    pub fn trim(self) -> Span<'s> {
        let start = self.text.len() - self.text.trim_start().len();
        Span {
            text: self.text.trim(),
            offset: self.offset + start,
        }
    }

    /// The part from byte `at` on.
    pub fn from(self, at: usize) -> Span<'s> {
        Span {
            text: self.text.get(at..).unwrap_or(""),
            offset: self.offset + at,
        }
    }

    /// The first `len` bytes.
    pub fn take(self, len: usize) -> Span<'s> {
        Span {
            text: self.text.get(..len).unwrap_or(self.text),
            offset: self.offset,
        }
    }

    /// An error at the start of this span.
    pub fn err<T>(self, kind: AsmErrorKind) -> PResult<T> {
        err(self.trim().offset, kind)
    }
}

/// A name starts with a letter, `_`, `.` or `$` (gas's `LEX_DOLLAR` default: `$foo` is a
/// symbol, and `$3` one too where no register is expected).
pub(super) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$'
}

pub(super) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$'
}

/// Length of the name at the start of `text` (0 if none).
pub(super) fn ident_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(&c) if is_ident_start(c) => bytes.iter().take_while(|&&c| is_ident_char(c)).count(),
        _ => 0,
    }
}

/// gas's escapes in a character constant (`app.c` `process_escape`): `\b` `\f` `\n` `\r`
/// `\t`, and any other character stands for itself (`\'`, `\"`, `\\`, and `\0` is `0`).
fn escape(byte: u8) -> u8 {
    match byte {
        b'b' => 8,
        b'f' => 12,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        other => other,
    }
}

/// The character constant starting at `bytes[start]` (a `'`), as gas's input scrubber reads
/// one before anything else sees the line (`app.c`): the next byte, or `\` and an escape,
/// then a closing `'` if there is one (`'A'` and `'A` are both 65; `';'`, `'#'` and `','` are
/// characters, not a separator or a comment). Its value and its length in bytes; `None` at
/// the end of the line.
pub(super) fn char_constant(bytes: &[u8], start: usize) -> Option<(u8, usize)> {
    let mut next = start + 1;
    let first = *bytes.get(next)?;
    let value = if first == b'\\' {
        next += 1;
        escape(*bytes.get(next)?)
    } else {
        first
    };
    next += 1;
    if bytes.get(next) == Some(&b'\'') {
        next += 1;
    }
    Some((value, next - start))
}

/// True when `line` may hold a comment (`#` or `/*`, possibly inside a string: the check is
/// conservative, a false positive only costs a copy).
pub(super) fn has_comment_marker(line: &str) -> bool {
    let bytes = line.as_bytes();
    bytes.contains(&b'#') || bytes.windows(2).any(|w| w == b"/*")
}

/// Copies `line` into `out` with comments replaced by spaces, so columns stay those of the
/// source. `in_block` carries an open `/*` from one line to the next.
pub(super) fn strip_comments(line: &str, in_block: &mut bool, out: &mut LineBuf) -> PResult<()> {
    out.clear();
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut quoted = false;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        let mut width = 1;
        let keep = if *in_block {
            if c == b'*' && next == Some(b'/') {
                *in_block = false;
                width = 2;
            }
            false
        } else if quoted {
            if c == b'\\' && next.is_some() {
                width = 2;
            } else if c == b'"' {
                quoted = false;
            }
            true
        } else {
            match c {
                b'"' => {
                    quoted = true;
                    true
                }
                // A character constant: its character is taken as it is, even `#`.
                b'\'' => {
                    width = char_constant(bytes, i).map_or(1, |(_, len)| len);
                    true
                }
                b'#' => break,
                b'/' if next == Some(b'*') => {
                    *in_block = true;
                    width = 2;
                    false
                }
                _ => true,
            }
        };
        let piece = line.get(i..i + width).unwrap_or(" ");
        let pushed = if keep {
            out.push_str(piece).map_err(|_| ())
        } else {
            (0..piece.len()).try_for_each(|_| out.push(' ').map_err(|_| ()))
        };
        if pushed.is_err() {
            return err(i, AsmErrorKind::LineTooLong { limit: MAX_LINE });
        }
        i += width;
    }
    Ok(())
}

/// Byte index of the first `stop` outside strings and character constants (and, with
/// `depth_aware`, outside parentheses), or the length of `text`.
pub(super) fn find_top_level(text: &str, stop: u8, depth_aware: bool) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut depth = 0i64;
    let mut quoted = false;
    while i < bytes.len() {
        let c = bytes[i];
        if quoted {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                quoted = false;
            }
        } else if c == b'"' {
            quoted = true;
        } else if c == b'\'' {
            i += char_constant(bytes, i).map_or(1, |(_, len)| len) - 1;
        } else if depth_aware && c == b'(' {
            depth += 1;
        } else if depth_aware && c == b')' {
            depth -= 1;
        } else if c == stop && depth <= 0 {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

/// The statements of a line, split at `;` (GNU `line_separator_chars`).
pub(super) fn statements(line: &str) -> impl Iterator<Item = Span<'_>> {
    let mut rest = Some(Span {
        text: line,
        offset: 0,
    });
    core::iter::from_fn(move || {
        let span = rest?;
        let end = find_top_level(span.text, b';', false);
        if end < span.text.len() {
            rest = Some(span.from(end + 1));
        } else {
            rest = None;
        }
        Some(span.take(end))
    })
}

/// The operands of a statement, split at top-level commas; nothing for an empty list.
pub(super) fn operands(span: Span<'_>) -> impl Iterator<Item = Span<'_>> {
    let span = span.trim();
    let mut rest = if span.text.is_empty() {
        None
    } else {
        Some(span)
    };
    core::iter::from_fn(move || {
        let span = rest?;
        let end = find_top_level(span.text, b',', true);
        if end < span.text.len() {
            rest = Some(span.from(end + 1));
        } else {
            rest = None;
        }
        Some(span.take(end))
    })
}
