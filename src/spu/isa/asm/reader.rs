//! The line reader's state: the source, then macro bodies and `.rept`/`.irp`/`.irpc` bodies (byte
//! ranges of the source replayed with their arguments substituted), conditionals, and the
//! limits that keep any input bounded (expansion depth, statements per pass).

use super::macros::{Args, MAX_MACROS, MacroDef};
use super::symbols::SymbolName;
use super::text::{Span, ident_len};

/// Deepest nesting of macro calls and repeat blocks (a recursive macro stops here).
pub const MAX_EXPANSION_DEPTH: usize = 16;
/// Deepest nesting of `.if` blocks.
pub const MAX_CONDITIONALS: usize = 32;
/// Most lines one pass reads, expansions included (a runaway `.rept` stops here).
pub const MAX_LINES_PER_PASS: u32 = 1 << 20;
/// Most iterations of one `.rept`.
pub const MAX_REPEAT: i64 = 1 << 16;

#[derive(Clone, Debug)]
pub(super) enum FrameKind {
    Macro {
        args: Args,
        def: u8,
        counter: u32,
    },
    Repeat {
        remaining: u32,
    },
    Irp {
        var: SymbolName,
        values: Args,
        index: usize,
    },
}

/// A body being replayed: a byte range of the source and where reading is in it.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    pub(super) kind: FrameKind,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) start_line: u32,
    pub(super) cursor: usize,
    pub(super) line: u32,
    /// Conditionals open when the body started (they must be closed inside it).
    pub(super) conditionals: usize,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Conditional {
    /// The enclosing block is being assembled.
    pub(super) parent_active: bool,
    /// A branch of this block was taken already.
    pub(super) taken: bool,
    /// The current branch is assembled.
    pub(super) active: bool,
}

/// Reader state of one pass.
pub(super) struct Expander<'src> {
    pub(super) macros: heapless::Vec<MacroDef<'src>, MAX_MACROS>,
    pub(super) frames: heapless::Vec<Frame, MAX_EXPANSION_DEPTH>,
    pub conditionals: heapless::Vec<Conditional, MAX_CONDITIONALS>,
    pub(super) cursor: usize,
    pub(super) line: u32,
    pub(super) in_comment: bool,
    pub(super) counter: u32,
    pub(super) lines: u32,
}

impl Expander<'_> {
    pub const fn new() -> Self {
        Expander {
            macros: heapless::Vec::new(),
            frames: heapless::Vec::new(),
            conditionals: heapless::Vec::new(),
            cursor: 0,
            line: 0,
            in_comment: false,
            counter: 0,
            lines: 0,
        }
    }

    pub fn active(&self) -> bool {
        self.conditionals.last().is_none_or(|c| c.active)
    }
}

/// The line of `source` at `cursor` (without `\r\n`) and where the next one starts.
pub(super) fn line_at(source: &str, cursor: usize, end: usize) -> (&str, usize) {
    let rest = source.get(cursor..end).unwrap_or("");
    let (line, next) = match rest.find('\n') {
        Some(i) => (rest.get(..i).unwrap_or(""), cursor + i + 1),
        None => (rest, end),
    };
    (line.strip_suffix('\r').unwrap_or(line), next)
}

/// The first word of a statement (after any labels) and the text after it.
pub(super) fn first_word(stmt: Span<'_>) -> (&str, Span<'_>) {
    let mut rest = stmt.trim();
    loop {
        let len = match rest.text.as_bytes().first() {
            Some(c) if c.is_ascii_digit() => {
                rest.text.bytes().take_while(u8::is_ascii_digit).count()
            }
            _ => ident_len(rest.text),
        };
        if len > 0 && rest.text.as_bytes().get(len) == Some(&b':') {
            rest = rest.from(len + 1).trim();
        } else {
            break;
        }
    }
    let len = rest
        .text
        .bytes()
        .take_while(|c| !c.is_ascii_whitespace())
        .count();
    (rest.text.get(..len).unwrap_or(""), rest.from(len))
}

pub(super) fn is(word: &str, names: &[&str]) -> bool {
    names.iter().any(|n| word.eq_ignore_ascii_case(n))
}

pub(super) const CONDITIONALS: [&str; 16] = [
    ".if",
    ".ifdef",
    ".ifndef",
    ".ifnotdef",
    ".ifeq",
    ".ifne",
    ".ifgt",
    ".ifge",
    ".iflt",
    ".ifle",
    ".ifc",
    ".ifnc",
    ".ifb",
    ".ifnb",
    ".ifeqs",
    ".ifnes",
];

/// Small string helpers that need no allocation.
pub(super) trait NoAlloc {
    fn to_ascii_lowercase_find(&self, needle: &str) -> Option<usize>;
    fn to_ascii_lowercase_suffix(&self) -> &'static str;
}

impl NoAlloc for str {
    /// Byte index of `needle` (lower case) in `self`, ignoring ASCII case.
    fn to_ascii_lowercase_find(&self, needle: &str) -> Option<usize> {
        (0..=self.len().saturating_sub(needle.len())).find(|&i| {
            self.get(i..i + needle.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(needle))
        })
    }

    /// The comparison of `.ifeq`..`.ifle` (`"eq"`..), or `""` for `.if`/`.ifne`.
    fn to_ascii_lowercase_suffix(&self) -> &'static str {
        ["eq", "gt", "ge", "lt", "le"]
            .into_iter()
            .find(|s| self.len() == 5 && self.get(3..).is_some_and(|t| t.eq_ignore_ascii_case(s)))
            .unwrap_or("")
    }
}
