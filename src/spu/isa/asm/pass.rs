//! One pass over the source: the assembler state, symbol resolution, statements (labels,
//! assignments, instructions) and byte output into the current section.

use super::error::{AsmError, AsmErrorKind, Name};
use super::expr::Value;
use super::linker_symbols::LinkerSymbols;
use super::pseudo_op::{Word, classify};
use super::reader::Expander;
use super::section::{MAX_SECTIONS, SectionKind, Sections};
use super::symbols::{Common, Definition, MAX_COMMONS, SymbolTable};
use super::text::{Located, PResult, Span, err, ident_len, operands};
use super::{encode, instruction};

/// Most numeric local label numbers (`0:`..`N:`) one source may use.
pub const MAX_LOCAL_NUMBERS: usize = 32;

/// Most `SPU_ADD_PIC` rewrites one source may need (see `reloc`).
pub const MAX_PIC_PATCHES: usize = 32;

/// Deepest `.pushsection` nesting.
pub(super) const MAX_SECTION_STACK: usize = 8;

pub(super) struct Pass<'src, 'img, const SYMS: usize> {
    pub final_pass: bool,
    pub source: &'src str,
    /// The source's index among the link's sources.
    pub file: u16,
    pub image: Option<&'img mut [u8]>,
    pub capacity: usize,
    /// Every source's symbols; this source's are those in the table's view.
    pub symbols: &'img mut SymbolTable<SYMS>,
    /// What the link defines besides the sources (`--defsym`, the linker script's `_end`...),
    /// once the sections are placed (the second pass).
    pub linker: Option<&'img LinkerSymbols>,
    pub sections: Sections,
    /// Offset reached in each section in this pass.
    pub offsets: [u32; MAX_SECTIONS],
    pub current: u8,
    pub previous: u8,
    pub section_stack: heapless::Vec<(u8, u8), MAX_SECTION_STACK>,
    /// Address of the statement being assembled (for `.` and pc-relative operands).
    pub location: i64,
    /// Definitions seen so far in this pass, per local label number.
    pub locals: heapless::Vec<(u32, u32), MAX_LOCAL_NUMBERS>,
    /// The line reader, kept by the caller: it is the largest part of the state, and a
    /// field built in place would be a second copy on the stack while `Pass` is built.
    pub expander: &'img mut Expander<'src>,
    /// `.end` was read: the rest of the source is not assembled.
    pub ended: bool,
    /// The `.lcomm`, `.bss` and `.comm` symbols of the first pass, placed after it.
    pub commons: heapless::Vec<Common, MAX_COMMONS>,
    /// The next record of `commons` the second pass reaches.
    pub next_common: usize,
    /// Instructions the link rewrites for `.reloc SPU_ADD_PIC` (see `reloc`), by address.
    pub pic_patches: heapless::Vec<u32, MAX_PIC_PATCHES>,
}

/// `name` as an error payload.
pub(super) fn name(text: &str) -> Name {
    Name::new(text)
}

impl<'src, 'img, const SYMS: usize> Pass<'src, 'img, SYMS> {
    /// A pass over `source` into an image of `capacity` bytes, before the first pass.
    // Not inlined, so the temporaries its fields are built in are not a second copy in the
    // caller's frame for the whole assembly.
    #[inline(never)]
    pub fn new(
        (source, file): (&'src str, u16),
        capacity: usize,
        expander: &'img mut Expander<'src>,
        symbols: &'img mut SymbolTable<SYMS>,
    ) -> Self {
        Pass {
            final_pass: false,
            source,
            file,
            image: None,
            capacity,
            symbols,
            linker: None,
            sections: Sections::new(),
            offsets: [0; MAX_SECTIONS],
            current: 0,
            previous: 0,
            section_stack: heapless::Vec::new(),
            location: 0,
            locals: heapless::Vec::new(),
            expander,
            ended: false,
            commons: heapless::Vec::new(),
            next_common: 0,
            pic_patches: heapless::Vec::new(),
        }
    }

    /// The state at the start of a pass (the symbols keep their values, not being defined).
    pub fn reset(&mut self) {
        self.offsets = [0; MAX_SECTIONS];
        self.current = 0;
        self.previous = 0;
        self.section_stack.clear();
        self.locals.clear();
        self.ended = false;
        self.next_common = 0;
        self.pic_patches.clear();
        for symbol in self.symbols.view_mut() {
            symbol.defined = false;
        }
    }

    /// The end of a pass: every section's size rounded to its alignment, as gas does.
    pub fn finish(&mut self) -> Result<(), AsmError> {
        self.round_sections().map_err(|e| AsmError {
            file: self.file,
            line: self.expander.line.max(1),
            column: 1,
            kind: e.kind,
            invoked_at: None,
        })
    }

    pub fn kind(&self) -> SectionKind {
        self.sections
            .get(self.current)
            .map_or(SectionKind::Code, |s| s.kind)
    }

    pub fn offset(&self) -> u32 {
        self.offsets
            .get(usize::from(self.current))
            .copied()
            .unwrap_or(0)
    }

    /// The address of the next byte: known in the second pass only (sections are placed
    /// after the first).
    pub fn address(&self) -> u64 {
        let base = if self.final_pass {
            self.sections.get(self.current).map_or(0, |s| s.address)
        } else {
            0
        };
        u64::from(base) + u64::from(self.offset())
    }

    /// Appends bytes (the second pass writes them) to the current section. A section that
    /// is not loaded keeps no bytes and has no place to overflow.
    pub fn emit(&mut self, bytes: &[u8], at: usize) -> PResult<()> {
        let kind = self.kind();
        if kind == SectionKind::Bss && bytes.iter().any(|&b| b != 0) {
            return err(at, AsmErrorKind::NonZeroInBss);
        }
        let address = self.address();
        let overflow = Located {
            offset: at,
            kind: AsmErrorKind::ImageOverflow {
                capacity: self.capacity,
            },
        };
        let end = address + bytes.len() as u64;
        if kind != SectionKind::NotLoaded && end > self.capacity as u64 {
            return Err(overflow);
        }
        if matches!(kind, SectionKind::Code | SectionKind::Data)
            && let Some(image) = self.image.as_deref_mut()
        {
            image
                .get_mut(address as usize..end as usize)
                .ok_or(overflow)?
                .copy_from_slice(bytes);
        }
        let offset = self.offset().saturating_add(bytes.len() as u32);
        if let Some(slot) = self.offsets.get_mut(usize::from(self.current)) {
            *slot = offset;
        }
        if let Some(section) = self.sections.get_mut(self.current) {
            section.size = section.size.max(offset);
        }
        Ok(())
    }

    /// Appends `count` copies of `byte`.
    pub fn fill(&mut self, count: u64, byte: u8, at: usize) -> PResult<()> {
        let limit = match self.kind() {
            SectionKind::NotLoaded => u64::from(u32::MAX),
            _ => self.capacity as u64,
        };
        if self.address() + count > limit {
            return err(
                at,
                AsmErrorKind::ImageOverflow {
                    capacity: self.capacity,
                },
            );
        }
        let chunk = [byte; 64];
        let mut left = count as usize;
        while left > 0 {
            let n = left.min(chunk.len());
            self.emit(chunk.get(..n).unwrap_or(&[]), at)?;
            left -= n;
        }
        Ok(())
    }

    /// A statement that is not a block directive (those are taken by the expander first).
    pub fn statement(&mut self, stmt: Span<'_>) -> PResult<()> {
        let mut rest = stmt.trim();
        loop {
            let len = label_len(rest.text);
            if len == 0 {
                break;
            }
            let label = rest.text.get(..len).unwrap_or("");
            self.define_label(label, rest.offset)?;
            rest = rest.from(len + 1).trim();
        }
        if rest.text.is_empty() {
            return Ok(());
        }
        self.location = self.address() as i64;
        // `sym = expr`
        let len = ident_len(rest.text);
        let after = rest.from(len).trim();
        if len > 0 && after.text.starts_with('=') {
            let target = rest.text.get(..len).unwrap_or("");
            // `sym == expr` defines once, as `.eqv` does (gas `equals (sym, -1)`).
            return if after.text.starts_with("==") {
                self.assign(target, rest.offset, after.from(2), Definition::Equiv)
            } else {
                self.assign(target, rest.offset, after.from(1), Definition::Set)
            };
        }
        let word_len = rest
            .text
            .bytes()
            .take_while(|c| !c.is_ascii_whitespace())
            .count();
        let word = rest.text.get(..word_len).unwrap_or("");
        let args = rest.from(word_len);
        match classify(word) {
            Word::Pseudo(d) => self.directive(d, word, rest.offset, args),
            Word::UnknownPseudo(_) => err(rest.offset, AsmErrorKind::UnknownDirective(name(word))),
            Word::Other => self.instruction(word, rest.offset, args),
        }
    }

    /// Moves the location counter of the current section forward to `target`: a number
    /// (an offset in the section, as gas's `.org` takes it) or an address in the section.
    pub fn org(&mut self, target: Value, span: Span<'_>, fill: Option<u8>) -> PResult<()> {
        let offset = match target.section {
            None if target.resolved => target.value,
            Some(section) if section == self.current && (target.resolved || target.early) => {
                let base = if self.final_pass {
                    self.sections.get(section).map_or(0, |s| s.address)
                } else {
                    0
                };
                target.value - i64::from(base)
            }
            _ => return span.err(AsmErrorKind::ExpectedConstant),
        };
        let current = self.offset();
        if offset < i64::from(current) {
            return span.err(AsmErrorKind::OrgBackwards {
                target: offset,
                current,
            });
        }
        self.fill(
            (offset - i64::from(current)) as u64,
            fill.unwrap_or(0),
            span.trim().offset,
        )
    }

    fn instruction(&mut self, mnemonic: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let Some(opcode) = instruction::lookup(mnemonic) else {
            return err(at, AsmErrorKind::UnknownMnemonic(name(mnemonic)));
        };
        if self.kind() == SectionKind::Bss {
            return err(at, AsmErrorKind::NonZeroInBss);
        }
        // GNU `as` places an instruction wherever the section is, aligned or not.
        let mut spans = heapless::Vec::<Span<'_>, 8>::new();
        for span in operands(args) {
            spans.push(span).map_err(|_| Located {
                offset: span.offset,
                kind: AsmErrorKind::UnexpectedToken {
                    expected: "end of statement (too many operands)",
                },
            })?;
        }
        let Some(form) = opcode.forms.iter().find(|f| f.len() == spans.len()) else {
            return err(
                at,
                AsmErrorKind::WrongOperandCount {
                    mnemonic: name(mnemonic),
                    found: u8::try_from(spans.len()).unwrap_or(u8::MAX),
                    expected: opcode.forms,
                },
            );
        };
        let mut word = opcode.base_word;
        for (index, (kind, span)) in form.iter().zip(spans.iter()).enumerate() {
            let place = encode::Place {
                pc: self.location,
                section: self.current,
            };
            word |= encode::operand(*kind, *span, opcode.format, place, self, index as u8 + 1)?;
        }
        self.emit(&word.to_be_bytes(), at)
    }
}

/// Length of a `label` before its `:` (0 if the text does not start with a label).
fn label_len(text: &str) -> usize {
    let len = match text.as_bytes().first() {
        Some(c) if c.is_ascii_digit() => text.bytes().take_while(u8::is_ascii_digit).count(),
        _ => ident_len(text),
    };
    if len > 0 && text.as_bytes().get(len) == Some(&b':') {
        len
    } else {
        0
    }
}
