//! The line reader: the source, then macro bodies and `.rept`/`.irp`/`.irpc` bodies (byte
//! ranges of the source replayed with their arguments substituted), with the limits that
//! keep any input bounded (expansion depth, lines per pass). Its state is in `reader`.

use super::error::{AsmError, AsmErrorKind, Name};
use super::macros::{self, Args, MAX_MACROS, MacroDef};
use super::pass::Pass;
use super::reader::{
    CONDITIONALS, Frame, FrameKind, MAX_EXPANSION_DEPTH, MAX_LINES_PER_PASS, MAX_REPEAT, NoAlloc,
    first_word, is, line_at,
};
use super::symbols::SymbolName;
use super::text::{
    LineBuf, Located, PResult, Span, err, has_comment_marker, ident_len, statements, strip_comments,
};

impl<'src, const SYMS: usize> Pass<'src, '_, SYMS> {
    /// Reads the whole source once.
    pub fn run(&mut self) -> Result<(), AsmError> {
        self.expander.macros.clear();
        self.expander.frames.clear();
        self.expander.conditionals.clear();
        self.expander.cursor = 0;
        self.expander.line = 0;
        self.expander.in_comment = false;
        self.expander.counter = 0;
        self.expander.lines = 0;
        let mut stripped = LineBuf::new();
        let mut substituted = LineBuf::new();
        loop {
            let at_line = |pass: &Self, e: Located, len: usize| AsmError {
                line: pass.expander.line.max(1),
                column: u32::try_from(e.offset.min(len) + 1).unwrap_or(u32::MAX),
                kind: e.kind,
            };
            let raw = match self.next_line() {
                Ok(Some(raw)) => raw,
                Ok(None) => break,
                Err(e) => return Err(at_line(self, e, 0)),
            };
            // A line without comments is read in place, so its length is bounded only by the
            // source (GNU as has no line limit); only lines that must be rewritten are copied.
            let uncommented = !self.expander.in_comment && !has_comment_marker(raw);
            let text: &str = if uncommented && !self.substitutes() {
                raw
            } else {
                let mut in_comment = self.expander.in_comment;
                strip_comments(raw, &mut in_comment, &mut stripped)
                    .map_err(|e| at_line(self, e, raw.len()))?;
                self.expander.in_comment = in_comment;
                if self.substitutes() {
                    self.substitute(&stripped, &mut substituted)
                        .map_err(|e| at_line(self, e, raw.len()))?;
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
                    .map_err(|e| at_line(self, e, raw.len()))?;
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
                        return Err(at_line(self, e, raw.len()));
                    }
                    break;
                }
            }
        }
        let end = |kind| AsmError {
            line: self.expander.line.max(1),
            column: 1,
            kind,
        };
        if self.expander.in_comment {
            return Err(end(AsmErrorKind::UnterminatedComment));
        }
        if !self.expander.conditionals.is_empty() {
            return Err(end(AsmErrorKind::MissingEnd { expected: ".endif" }));
        }
        Ok(())
    }

    fn current_cursor(&self) -> usize {
        self.expander
            .frames
            .last()
            .map_or(self.expander.cursor, |f| f.cursor)
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
                e.line += 1;
                return Ok(Some(line));
            };
            if frame.cursor < frame.end {
                let (line, next) = line_at(source, frame.cursor, frame.end);
                frame.cursor = next;
                e.line = frame.line;
                frame.line += 1;
                return Ok(Some(line));
            }
            let again = match &mut frame.kind {
                FrameKind::Repeat { remaining } if *remaining > 1 => {
                    *remaining -= 1;
                    true
                }
                FrameKind::Irp { values, index, .. } if *index + 1 < values.len() => {
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
            if e.conditionals.len() != frame.conditionals {
                return err(0, AsmErrorKind::MissingEnd { expected: ".endif" });
            }
            e.frames.pop();
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
    fn innermost_macro(&self) -> Option<usize> {
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
        for frame in self.expander.frames.iter().skip(first) {
            match &frame.kind {
                FrameKind::Macro { args, def, counter } => {
                    let params = self
                        .expander
                        .macros
                        .get(usize::from(*def))
                        .map_or("", |d| d.params);
                    let lookup = |name: &str| macros::params(params).position(|p| p.name == name);
                    macros::substitute(&current, &lookup, args, Some(*counter), out)?;
                }
                FrameKind::Irp { var, values, index } => {
                    let mut single = Args::default();
                    single.push(values.get(*index), 0)?;
                    let lookup = |name: &str| (var.as_str() == name).then_some(0);
                    macros::substitute(&current, &lookup, &single, None, out)?;
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
        let (word, args) = first_word(stmt);
        let at = args.offset.saturating_sub(word.len());
        if is(word, &CONDITIONALS) || is(word, &[".else", ".elseif", ".endif"]) {
            return self.conditional(word, at, args);
        }
        if !self.expander.active() {
            return Ok(());
        }
        if is(word, &[".macro"]) {
            return self.define_macro(args);
        }
        if is(word, &[".rept", ".irp", ".irpc"]) {
            return self.repeat(word, args);
        }
        if is(word, &[".endm", ".endmacro", ".endr"]) {
            return err(at, AsmErrorKind::UnmatchedEnd(Name::new(word)));
        }
        if is(word, &[".exitm"]) {
            return self.exit_macro(at);
        }
        if is(word, &[".purgem"]) {
            let name = args.trim();
            let Some(i) = self.find_macro(name.text) else {
                return name.err(AsmErrorKind::UnknownMnemonic(Name::new(name.text)));
            };
            self.expander.macros.remove(i);
            return Ok(());
        }
        if let Some(def) = self.find_macro(word) {
            // Labels before the call belong to the caller.
            let head = stmt.take(at.saturating_sub(stmt.offset));
            self.statement(head)?;
            return self.call_macro(def, args);
        }
        self.statement(stmt)
    }

    fn find_macro(&self, name: &str) -> Option<usize> {
        self.expander
            .macros
            .iter()
            .position(|m| m.name.as_str().eq_ignore_ascii_case(name))
    }

    /// Reads raw lines of the current stream up to the matching end directive; returns the
    /// body (start, end, first line).
    fn skip_block(
        &mut self,
        open: &[&str],
        close: &[&str],
        expected: &'static str,
    ) -> PResult<(usize, usize, u32)> {
        let source = self.source;
        let (mut cursor, end, mut line) = match self.expander.frames.last() {
            Some(f) => (f.cursor, f.end, f.line),
            None => (self.expander.cursor, source.len(), self.expander.line + 1),
        };
        let start = cursor;
        let start_line = line;
        let mut depth = 1usize;
        let mut stripped = LineBuf::new();
        let mut in_comment = false;
        while cursor < end {
            let (text, next) = line_at(source, cursor, end);
            strip_comments(text, &mut in_comment, &mut stripped)?;
            for stmt in statements(&stripped) {
                let (word, _) = first_word(stmt);
                if is(word, open) {
                    depth += 1;
                } else if is(word, close) {
                    depth -= 1;
                }
            }
            if depth == 0 {
                match self.expander.frames.last_mut() {
                    Some(f) => {
                        f.cursor = next;
                        f.line = line + 1;
                    }
                    None => {
                        self.expander.cursor = next;
                        self.expander.line = line;
                    }
                }
                return Ok((start, cursor, start_line));
            }
            cursor = next;
            line += 1;
        }
        err(0, AsmErrorKind::MissingEnd { expected })
    }

    fn define_macro(&mut self, args: Span<'_>) -> PResult<()> {
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
        let (start, end, line) = self.skip_block(&[".macro"], &[".endm", ".endmacro"], ".endm")?;
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

    /// The parameter list of the `.macro NAME ...` line just read, as a slice of the source.
    fn raw_params(&self, name: &str) -> &'src str {
        let source = self.source;
        let cursor = self.current_cursor();
        let line_start = source
            .get(..cursor.saturating_sub(1))
            .and_then(|s| s.rfind('\n'))
            .map_or(0, |i| i + 1);
        let line = source.get(line_start..cursor).unwrap_or("");
        let line = line.split('#').next().unwrap_or("");
        let after = line
            .to_ascii_lowercase_find(".macro")
            .and_then(|i| line.get(i + 6..))
            .unwrap_or("");
        let after = after.trim_start();
        after
            .get(name.len()..)
            .unwrap_or("")
            .trim()
            .trim_start_matches(',')
    }

    fn call_macro(&mut self, index: usize, args: Span<'_>) -> PResult<()> {
        let Some(def) = self.expander.macros.get(index).copied() else {
            return Ok(());
        };
        let bound = macros::bind(&def, args)?;
        let counter = self.expander.counter;
        self.expander.counter += 1;
        self.push_frame(
            FrameKind::Macro {
                args: bound,
                def: index as u8,
                counter,
            },
            (def.start, def.end, def.line),
            args.offset,
        )
    }

    fn push_frame(
        &mut self,
        kind: FrameKind,
        (start, end, line): (usize, usize, u32),
        at: usize,
    ) -> PResult<()> {
        let frame = Frame {
            kind,
            start,
            end,
            start_line: line,
            cursor: start,
            line,
            conditionals: self.expander.conditionals.len(),
        };
        self.expander.frames.push(frame).map_err(|_| Located {
            offset: at,
            kind: AsmErrorKind::NestingLimit {
                what: "macro expansion",
                limit: MAX_EXPANSION_DEPTH,
            },
        })
    }

    fn exit_macro(&mut self, at: usize) -> PResult<()> {
        let Some(index) = self.innermost_macro() else {
            return err(at, AsmErrorKind::UnmatchedEnd(Name::new(".exitm")));
        };
        let conditionals = self
            .expander
            .frames
            .get(index)
            .map_or(0, |f| f.conditionals);
        self.expander.conditionals.truncate(conditionals);
        self.expander.frames.truncate(index);
        Ok(())
    }

    fn repeat(&mut self, word: &str, args: Span<'_>) -> PResult<()> {
        let kind = if is(word, &[".rept"]) {
            let count = self.constant(args)?;
            if !(0..=MAX_REPEAT).contains(&count) {
                return args.err(AsmErrorKind::ImmediateOutOfRange {
                    operand: 1,
                    value: count,
                    min: 0,
                    max: MAX_REPEAT,
                });
            }
            FrameKind::Repeat {
                remaining: count as u32,
            }
        } else {
            let text = args.trim();
            let comma = text.text.find(',').unwrap_or(text.text.len());
            let var_text = text.text.get(..comma).unwrap_or("").trim();
            let var = SymbolName::new(var_text).map_err(|kind| Located {
                offset: text.offset,
                kind,
            })?;
            if var_text.is_empty() || ident_len(var_text) != var_text.len() {
                return text.err(AsmErrorKind::ExpectedExpression);
            }
            let list = text.text.get(comma + 1..).unwrap_or("").trim();
            let mut values = Args::default();
            if is(word, &[".irpc"]) {
                for (i, c) in list.char_indices() {
                    values.push(list.get(i..i + c.len_utf8()).unwrap_or(""), text.offset)?;
                }
            } else {
                for value in macros::values(list) {
                    values.push(value, text.offset)?;
                }
            }
            if values.len() == 0 {
                // GNU `as` assembles the body once with the symbol empty.
                values.push("", text.offset)?;
            }
            FrameKind::Irp {
                var,
                values,
                index: 0,
            }
        };
        let body = self.skip_block(&[".rept", ".irp", ".irpc"], &[".endr"], ".endr")?;
        if matches!(kind, FrameKind::Repeat { remaining: 0 }) {
            return Ok(());
        }
        self.push_frame(kind, body, args.offset)
    }
}
