//! One pass over the source: the assembler state, symbol resolution, statements (labels,
//! assignments, instructions) and byte output into the current section.

use super::error::{AsmErrorKind, Name};
use super::expr::{Resolver, Value, expression};
use super::reader::Expander;
use super::section::{MAX_SECTIONS, SectionKind, Sections};
use super::symbols::{Symbol, SymbolName, SymbolTable, SymbolValue};
use super::text::{Located, PResult, Span, err, ident_len, operands};
use super::{encode, instruction};

/// Most numeric local label numbers (`0:`..`N:`) one source may use.
pub const MAX_LOCAL_NUMBERS: usize = 32;

/// Deepest `.pushsection` nesting.
pub(super) const MAX_SECTION_STACK: usize = 8;

pub(super) struct Pass<'src, 'img, const SYMS: usize> {
    pub final_pass: bool,
    pub source: &'src str,
    pub image: Option<&'img mut [u8]>,
    pub capacity: usize,
    pub symbols: SymbolTable<SYMS>,
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
    pub expander: Expander<'src>,
    /// `.end` was read: the rest of the source is not assembled.
    pub ended: bool,
}

/// `name` as an error payload.
pub(super) fn name(text: &str) -> Name {
    Name::new(text)
}

fn local_name(number: u32, instance: u32) -> Result<SymbolName, AsmErrorKind> {
    let mut text = heapless::String::<32>::new();
    // 32 bytes hold two u32 numbers and the separator.
    let _ = core::fmt::write(&mut text, format_args!("{number}\u{2}{instance}"));
    SymbolName::new(&text)
}

impl<const SYMS: usize> Resolver for Pass<'_, '_, SYMS> {
    fn location(&self) -> Option<i64> {
        self.final_pass.then_some(self.location)
    }

    fn symbol(&self, name: &str) -> Result<Option<i64>, AsmErrorKind> {
        match self.symbols.find(name) {
            Some(symbol) => match symbol.value {
                SymbolValue::Absolute(v) if symbol.defined || self.final_pass => Ok(Some(v)),
                SymbolValue::Label { .. } if self.final_pass => Ok(Some(i64::from(symbol.address))),
                SymbolValue::Unresolved if self.final_pass => {
                    Err(AsmErrorKind::UnknownLabel(Name::new(name)))
                }
                _ => Ok(None),
            },
            None if self.final_pass => Err(AsmErrorKind::UnknownLabel(Name::new(name))),
            None => Ok(None),
        }
    }

    fn local_label(&self, number: u32, forward: bool) -> Result<Option<i64>, AsmErrorKind> {
        let seen = self
            .locals
            .iter()
            .find(|(n, _)| *n == number)
            .map_or(0, |&(_, count)| count);
        let undefined = AsmErrorKind::UndefinedLocalLabel { number, forward };
        let instance = if forward {
            seen
        } else {
            seen.checked_sub(1).ok_or(undefined)?
        };
        if !self.final_pass {
            return Ok(None);
        }
        let name = local_name(number, instance)?;
        self.symbols
            .find(name.as_str())
            .map(|s| Some(i64::from(s.address)))
            .ok_or(undefined)
    }
}

impl<'src, const SYMS: usize> Pass<'src, '_, SYMS> {
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

    /// Appends bytes (the second pass writes them) to the current section.
    pub fn emit(&mut self, bytes: &[u8], at: usize) -> PResult<()> {
        let bss = self.kind() == SectionKind::Bss;
        if bss && bytes.iter().any(|&b| b != 0) {
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
        if end > self.capacity as u64 {
            return Err(overflow);
        }
        if !bss && let Some(image) = self.image.as_deref_mut() {
            image
                .get_mut(address as usize..end as usize)
                .ok_or(overflow)?
                .copy_from_slice(bytes);
        }
        let offset = self.offset() + bytes.len() as u32;
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
        if self.address() + count > self.capacity as u64 {
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
        if len > 0 && after.text.starts_with('=') && !after.text.starts_with("==") {
            let target = rest.text.get(..len).unwrap_or("");
            return self.assign(target, rest.offset, after.from(1), Assign::Set);
        }
        let word_len = rest
            .text
            .bytes()
            .take_while(|c| !c.is_ascii_whitespace())
            .count();
        let word = rest.text.get(..word_len).unwrap_or("");
        let args = rest.from(word_len);
        if word.starts_with('.') {
            self.directive(word, rest.offset, args)
        } else {
            self.instruction(word, rest.offset, args)
        }
    }

    pub fn define_label(&mut self, label: &str, at: usize) -> PResult<()> {
        let located = |kind| Located { offset: at, kind };
        let value = SymbolValue::Label {
            section: self.current,
            offset: self.offset(),
        };
        if label.bytes().all(|c| c.is_ascii_digit()) {
            let number: u32 = label
                .parse()
                .map_err(|_| located(AsmErrorKind::InvalidNumber))?;
            let instance = match self.locals.iter_mut().find(|(n, _)| *n == number) {
                Some((_, count)) => {
                    *count += 1;
                    *count - 1
                }
                None => {
                    self.locals.push((number, 1)).map_err(|_| {
                        located(AsmErrorKind::TooManySymbols {
                            capacity: MAX_LOCAL_NUMBERS,
                        })
                    })?;
                    0
                }
            };
            let name = local_name(number, instance).map_err(located)?;
            return self.define(name, value, false, at);
        }
        let name = SymbolName::new(label).map_err(located)?;
        self.define(name, value, false, at)
    }

    /// Defines (or, for variables, redefines) a symbol in this pass.
    pub fn define(
        &mut self,
        name: SymbolName,
        value: SymbolValue,
        variable: bool,
        at: usize,
    ) -> PResult<()> {
        let located = |kind| Located { offset: at, kind };
        match self.symbols.find_mut(name.as_str()) {
            Some(symbol) => {
                let redefinable = symbol.variable && variable;
                if symbol.defined && !redefinable {
                    return err(at, AsmErrorKind::DuplicateLabel(Name::new(name.as_str())));
                }
                symbol.defined = true;
                symbol.variable = variable;
                // Labels keep the pass-1 layout; assignments take their new value.
                if variable || !self.final_pass {
                    symbol.value = value;
                    if let SymbolValue::Absolute(v) = value {
                        symbol.address = v as u32;
                    }
                }
                Ok(())
            }
            None => self
                .symbols
                .insert(Symbol {
                    name,
                    address: match value {
                        SymbolValue::Absolute(v) => v as u32,
                        _ => 0,
                    },
                    value,
                    defined: true,
                    variable,
                })
                .map_err(located),
        }
    }

    /// `sym = expr`, `.set`, `.equ`, `.equiv`, `.eqv`.
    pub fn assign(&mut self, target: &str, at: usize, expr: Span<'_>, how: Assign) -> PResult<()> {
        if target == "." {
            let value = expression(expr, self)?;
            return self.org(value, expr, None);
        }
        if target.is_empty() || ident_len(target) != target.len() {
            return err(at, AsmErrorKind::ExpectedExpression);
        }
        let name = SymbolName::new(target).map_err(|kind| Located { offset: at, kind })?;
        if how == Assign::Equiv && self.symbols.find(target).is_some_and(|s| s.defined) {
            return err(at, AsmErrorKind::AlreadyDefined(Name::new(target)));
        }
        let value = expression(expr, self)?;
        let value = if value.resolved {
            SymbolValue::Absolute(value.value)
        } else {
            SymbolValue::Unresolved
        };
        self.define(name, value, how != Assign::Equiv, at)
    }

    /// Moves the location counter of the current section forward to `target` (an offset in
    /// the section, or an address in it).
    pub fn org(&mut self, target: Value, span: Span<'_>, fill: Option<u8>) -> PResult<()> {
        if !target.resolved {
            return span.err(AsmErrorKind::ExpectedConstant);
        }
        let base = if self.final_pass {
            self.sections.get(self.current).map_or(0, |s| s.address)
        } else {
            0
        };
        // In the second pass `.` and labels are addresses: take them back to offsets.
        let relative = if self.final_pass && target.value >= i64::from(base) && base > 0 {
            target.value - i64::from(base)
        } else {
            target.value
        };
        let current = self.offset();
        if relative < i64::from(current) {
            return span.err(AsmErrorKind::OrgBackwards {
                target: relative,
                current,
            });
        }
        self.fill(
            (relative - i64::from(current)) as u64,
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
        let address = self.address();
        if !address.is_multiple_of(4) {
            return err(
                at,
                AsmErrorKind::MisalignedInstruction {
                    address: u32::try_from(address).unwrap_or(u32::MAX),
                },
            );
        }
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
            word |= encode::operand(
                *kind,
                *span,
                opcode.format,
                self.location,
                self,
                index as u8 + 1,
            )?;
        }
        self.emit(&word.to_be_bytes(), at)
    }
}

/// How a symbol is assigned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Assign {
    /// `=`, `.set`, `.equ`, `.eqv`: may be assigned again.
    Set,
    /// `.equiv`: an error if the symbol is already defined.
    Equiv,
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
