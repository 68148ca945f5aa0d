//! The line reader's state: the source, then macro bodies and `.rept`/`.irp`/`.irpc` bodies (byte
//! ranges of the source replayed with their arguments substituted), conditionals, and the
//! limits that keep any input bounded (expansion depth, statements per pass).

use super::macros::{ArgPool, MAX_MACROS, MacroDef, Mark};
use super::text::{Span, ident_len};

/// Deepest nesting of macro calls and repeat blocks: gas's, whose default `max_macro_nest`
/// of 100 it checks before counting a level, so 101 levels assemble (a recursive macro stops
/// here). One level costs a frame record (44 bytes) besides its arguments, which share one pool
/// of [`ARG_BYTES`](super::macros::ARG_BYTES).
pub const MAX_EXPANSION_DEPTH: usize = 101;
/// Deepest nesting of `.if` blocks (gas has no limit). A recursive macro opens one or two
/// per level, so this allows [`MAX_EXPANSION_DEPTH`] levels of those; each costs 3 bytes.
pub const MAX_CONDITIONALS: usize = 256;
/// Most lines one pass reads, expansions included (a runaway `.rept` stops here).
pub const MAX_LINES_PER_PASS: u32 = 1 << 20;
/// Most iterations of one `.rept`.
pub const MAX_REPEAT: i64 = 1 << 16;

#[derive(Clone, Copy, Debug)]
pub(super) enum FrameKind {
    /// A macro's body, with one value per parameter.
    Macro {
        def: u8,
        counter: u32,
    },
    Repeat {
        remaining: u32,
    },
    /// `.irp`/`.irpc`: value 0 is the symbol, then one per iteration.
    Irp {
        index: u16,
    },
}

/// A body being replayed: a byte range of the source and where reading is in it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    pub(super) kind: FrameKind,
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) start_line: u32,
    pub(super) cursor: u32,
    pub(super) line: u32,
    /// Conditionals open when the body started (they must be closed inside it).
    pub(super) conditionals: u16,
    /// Where its values start in the argument pool.
    pub(super) values: Mark,
    /// The line and column of the statement that started it (a macro call, `.rept`).
    pub(super) called_at: (u32, u32),
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
    pub(super) pool: ArgPool,
    pub conditionals: heapless::Vec<Conditional, MAX_CONDITIONALS>,
    /// Where the next line of the source text starts.
    pub(super) cursor: usize,
    /// The source line last read from the source text (not from a body).
    pub(super) source_line: u32,
    /// The line of the statement being assembled: in the source, or in a body.
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
            pool: ArgPool::new(),
            conditionals: heapless::Vec::new(),
            cursor: 0,
            source_line: 0,
            line: 0,
            in_comment: false,
            counter: 0,
            lines: 0,
        }
    }

    pub fn active(&self) -> bool {
        self.conditionals.last().is_none_or(|c| c.active)
    }

    /// The source position of the outermost expansion under way (the statement in the
    /// source text that started it), if any.
    pub fn called_from(&self) -> Option<(u32, u32)> {
        self.frames.first().map(|f| f.called_at)
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

/// Whether directive `d` (a [`PSEUDO_OPS`](super::pseudo_op::PSEUDO_OPS) name) opens,
/// continues or closes a conditional.
pub(super) fn is_conditional(d: &str) -> bool {
    matches!(
        d,
        "if" | "ifdef"
            | "ifndef"
            | "ifnotdef"
            | "ifeq"
            | "ifne"
            | "ifgt"
            | "ifge"
            | "iflt"
            | "ifle"
            | "ifc"
            | "ifnc"
            | "ifb"
            | "ifnb"
            | "ifeqs"
            | "ifnes"
            | "else"
            | "elsec"
            | "elseif"
            | "endif"
            | "endc"
    )
}
