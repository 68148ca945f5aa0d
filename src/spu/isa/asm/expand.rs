//! The line reader: the source, then macro bodies and `.rept`/`.irp`/`.irpc` bodies (byte
//! ranges of the source replayed with their arguments substituted), with the limits that
//! keep any input bounded (expansion depth, lines per pass), and conditionals. Its state is
//! in `reader`; the block directives that start bodies are in `blocks`.
//!
//! A line read from a body reports the body's line; an error there also names where the
//! outermost expansion was started in the source text, as gas's "macro invoked from here"
//! does.

use super::error::{AsmError, AsmErrorKind, Name};
use super::macros;
use super::pass::Pass;
use super::pseudo_op::{Word, classify};
use super::reader::{FrameKind, MAX_LINES_PER_PASS, first_word, is_conditional, line_at};
use super::text::{
    LineBuf, Located, PResult, Span, err, has_comment_marker, ident_len, statements, strip_comments,
};

impl<'src, const SYMS: usize> Pass<'src, '_, SYMS> {
    /// An error at byte `e.offset` of the current line (of `len` bytes).
    fn at_line(&self, e: Located, len: usize) -> AsmError {
        AsmError {
            file: self.file,
            line: self.expander.line.max(1),
            column: u32::try_from(e.offset.min(len) + 1).unwrap_or(u32::MAX),
            kind: e.kind,
            invoked_at: self.expander.called_from(),
        }
    }

    /// Reads the whole source once.
    pub fn run(&mut self) -> Result<(), AsmError> {
        self.expander.macros.clear();
        self.expander.frames.clear();
        self.expander.pool.clear();
        self.expander.conditionals.clear();
        self.expander.cursor = 0;
        self.expander.source_line = 0;
        self.expander.line = 0;
        self.expander.in_comment = false;
        self.expander.counter = 0;
        self.expander.lines = 0;
        let mut stripped = LineBuf::new();
        let mut substituted = LineBuf::new();
        loop {
            let raw = match self.next_line() {
                Ok(Some(raw)) => raw,
                Ok(None) => break,
                Err(e) => return Err(self.at_line(e, 0)),
            };
            // A line without comments is read in place, so its length is bounded only by the
            // source (GNU as has no line limit); only lines that must be rewritten are copied.
            let uncommented = !self.expander.in_comment && !has_comment_marker(raw);
            let text: &str = if uncommented && !self.substitutes() {
                raw
            } else {
                let mut in_comment = self.expander.in_comment;
                strip_comments(raw, &mut in_comment, &mut stripped)
                    .map_err(|e| self.at_line(e, raw.len()))?;
                self.expander.in_comment = in_comment;
                if self.substitutes() {
                    self.substitute(&stripped, &mut substituted)
                        .map_err(|e| self.at_line(e, raw.len()))?;
                    &substituted
                } else {
                    &stripped
                }
            };
            let depth = self.expander.frames.len();
            let cursor = self.current_cursor();
            let mut pieces = statements(text);
            while let Some(stmt) = pieces.next() {
                self.block_or_statement(stmt)
                    .map_err(|e| self.at_line(e, text.len()))?;
                if self.ended {
                    return Ok(());
                }
                if self.expander.frames.len() != depth || self.current_cursor() != cursor {
                    // A macro call or block took over the reader: the line must end here.
                    if let Some(extra) = pieces.find(|s| !s.text.trim().is_empty()) {
                        let e = Located {
                            offset: extra.trim().offset,
                            kind: AsmErrorKind::StatementAfterMacroCall,
                        };
                        return Err(self.at_line(e, text.len()));
                    }
                    break;
                }
            }
        }
        let end = |kind| AsmError {
            file: self.file,
            line: self.expander.line.max(1),
            column: 1,
            kind,
            invoked_at: None,
        };
        if self.expander.in_comment {
            return Err(end(AsmErrorKind::UnterminatedComment));
        }
        if !self.expander.conditionals.is_empty() {
            return Err(end(AsmErrorKind::MissingEnd { expected: ".endif" }));
        }
        Ok(())
    }

    pub(super) fn current_cursor(&self) -> usize {
        self.expander
            .frames
            .last()
            .map_or(self.expander.cursor, |f| f.cursor as usize)
    }

    /// The next raw line: from the innermost body being replayed, else from the source.
    fn next_line(&mut self) -> PResult<Option<&'src str>> {
        let source = self.source;
        let e = &mut self.expander;
        loop {
            e.lines += 1;
            if e.lines > MAX_LINES_PER_PASS {
                return err(
                    0,
                    AsmErrorKind::ExpansionLimit {
                        limit: MAX_LINES_PER_PASS,
                    },
                );
            }
            let Some(frame) = e.frames.last_mut() else {
                if e.cursor >= source.len() {
                    return Ok(None);
                }
                let (line, next) = line_at(source, e.cursor, source.len());
                e.cursor = next;
                e.source_line += 1;
                e.line = e.source_line;
                return Ok(Some(line));
            };
            if frame.cursor < frame.end {
                let (line, next) = line_at(source, frame.cursor as usize, frame.end as usize);
                frame.cursor = next as u32;
                e.line = frame.line;
                frame.line += 1;
                return Ok(Some(line));
            }
            let again = match &mut frame.kind {
                FrameKind::Repeat { remaining } if *remaining > 1 => {
                    *remaining -= 1;
                    true
                }
                FrameKind::Irp { index }
                    if usize::from(*index) + 2 < e.pool.count(frame.values) =>
                {
                    *index += 1;
                    true
                }
                _ => false,
            };
            if again {
                frame.cursor = frame.start;
                frame.line = frame.start_line;
                continue;
            }
            if e.conditionals.len() != usize::from(frame.conditionals) {
                return err(0, AsmErrorKind::MissingEnd { expected: ".endif" });
            }
            let values = frame.values;
            e.frames.pop();
            e.pool.release(values);
        }
    }

    /// Whether lines read now get arguments substituted.
    fn substitutes(&self) -> bool {
        self.expander
            .frames
            .iter()
            .rev()
            .take_while(|f| !matches!(f.kind, FrameKind::Macro { .. }))
            .any(|f| matches!(f.kind, FrameKind::Irp { .. }))
            || self.innermost_macro().is_some()
    }

    /// Index of the innermost macro frame whose body is the one being read.
    pub(super) fn innermost_macro(&self) -> Option<usize> {
        self.expander
            .frames
            .iter()
            .rposition(|f| matches!(f.kind, FrameKind::Macro { .. }))
    }

    /// Substitutes the arguments of the macro whose body is read, then those of the
    /// repeats opened inside it, outermost first (as GNU `as` expands them).
    fn substitute(&self, line: &str, out: &mut LineBuf) -> PResult<()> {
        let first = self.innermost_macro().unwrap_or(0);
        let mut current = LineBuf::new();
        current.push_str(line).map_err(|_| Located {
            offset: 0,
            kind: AsmErrorKind::LineTooLong {
                limit: super::text::MAX_LINE,
            },
        })?;
        let pool = &self.expander.pool;
        for frame in self.expander.frames.iter().skip(first) {
            match frame.kind {
                FrameKind::Macro { def, counter } => {
                    let params = self
                        .expander
                        .macros
                        .get(usize::from(def))
                        .map_or("", |d| d.params);
                    let lookup = |name: &str| {
                        macros::params(params)
                            .position(|p| p.name == name)
                            .map(|slot| pool.get(frame.values, slot))
                    };
                    macros::substitute(&current, &lookup, Some(counter), out)?;
                }
                FrameKind::Irp { index } => {
                    let var = pool.get(frame.values, 0);
                    let value = pool.get(frame.values, usize::from(index) + 1);
                    let lookup = |name: &str| (var == name).then_some(value);
                    macros::substitute(&current, &lookup, None, out)?;
                }
                FrameKind::Repeat { .. } => continue,
            }
            current.clear();
            let _ = current.push_str(out);
        }
        out.clear();
        let _ = out.push_str(&current);
        Ok(())
    }

    /// Conditionals and block directives first; then, when assembling, statements.
    fn block_or_statement(&mut self, stmt: Span<'_>) -> PResult<()> {
        if !self.expander.active() {
            return self.ignored(stmt);
        }
        let (word, args) = first_word(stmt);
        let at = args.offset.saturating_sub(word.len());
        // `sym = expr` is an assignment whatever `sym` is called (gas checks it first).
        if args.text.trim_start().starts_with('=') {
            return self.statement(stmt);
        }
        let class = classify(word);
        if let Word::Pseudo(d) = class {
            if is_conditional(d) {
                self.labels_before(stmt, at)?;
                return self.conditional(d, at, args);
            }
            let block = match d {
                "macro" | "rept" | "rep" | "irp" | "irep" | "irpc" | "irepc" | "endm" | "endr"
                | "exitm" | "mexit" | "purgem" => d,
                _ => return self.statement(stmt),
            };
            self.labels_before(stmt, at)?;
            return match block {
                "macro" => self.define_macro(args),
                "endm" | "endr" => err(at, AsmErrorKind::UnmatchedEnd(Name::new(word))),
                "exitm" | "mexit" => self.exit_macro(at),
                "purgem" => {
                    let name = args.trim();
                    let Some(i) = self.find_macro(name.text) else {
                        return name.err(AsmErrorKind::UnknownMnemonic(Name::new(name.text)));
                    };
                    self.expander.macros.remove(i);
                    Ok(())
                }
                _ => self.repeat(block, args, at),
            };
        }
        if let Some(def) = self.find_macro(word) {
            // Labels before the call belong to the caller.
            self.labels_before(stmt, at)?;
            return self.call_macro(def, args, at);
        }
        self.statement(stmt)
    }

    /// Defines the labels of `stmt` before its word at `at`.
    fn labels_before(&mut self, stmt: Span<'_>, at: usize) -> PResult<()> {
        let head = stmt.take(at.saturating_sub(stmt.offset));
        self.statement(head)
    }

    /// A statement inside a conditional that is not assembled. gas still reads a statement
    /// whose first name (a label's included, after an optional dot) starts with `if`,
    /// `else`, `endif` or `endc` (`cond.c` `ignore_input`): so `.endif` after a label is
    /// skipped, and a label `else:` is defined.
    fn ignored(&mut self, stmt: Span<'_>) -> PResult<()> {
        let text = stmt.trim();
        let name_len = ident_len(text.text);
        let name = text.text.get(..name_len).unwrap_or("");
        let bare = name.strip_prefix('.').unwrap_or(name);
        let lower = |prefix: &str| {
            bare.get(..prefix.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
        };
        if !(lower("if") || lower("else") || lower("endif") || lower("endc")) {
            return Ok(());
        }
        if text.text.as_bytes().get(name_len) == Some(&b':') {
            self.define_label(name, text.offset)?;
            return self.ignored(text.from(name_len + 1));
        }
        let (word, args) = first_word(text);
        let at = args.offset.saturating_sub(word.len());
        match classify(word) {
            Word::Pseudo(d) if is_conditional(d) => self.conditional(d, at, args),
            _ => self.statement(text),
        }
    }

    pub(super) fn find_macro(&self, name: &str) -> Option<usize> {
        self.expander
            .macros
            .iter()
            .position(|m| m.name.as_str().eq_ignore_ascii_case(name))
    }
}
