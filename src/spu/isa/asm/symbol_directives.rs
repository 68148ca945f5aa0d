//! The directives that say what a symbol is besides its value: its binding (`.global`,
//! `.globl`, `.xdef`, `.weak`, `.local`), its visibility (`.hidden`, `.protected`,
//! `.internal`), its ELF type (`.type`) and size (`.size`), and the source file's name
//! (`.file`), recorded in the symbol's [`SymbolAttributes`](super::SymbolAttributes).
//!
//! gas's rules: `.weak` wins over `.global` and `.local` whatever their order; a name declared
//! before (or without) its definition is created by the declaration; `.size` must come to a
//! number once everything is placed.

use super::error::AsmErrorKind;
use super::expr::expression;
use super::pass::{Pass, name};
use super::symbol_attributes::{Binding, FILE_SYMBOL_MARK, SymbolType, Visibility};
use super::symbols::{Symbol, SymbolName};
use super::text::{Located, PResult, Span, ident_len, operands};

/// The ELF type `.type`'s argument names (`obj_elf_type`), after an optional `@`, `%`, `#`
/// or quote; `None` for a name gas does not know.
fn symbol_type(text: &str) -> Option<SymbolType> {
    let text = text.trim();
    let text = text
        .strip_prefix(['@', '%', '#', '"'])
        .unwrap_or(text)
        .trim_end_matches('"');
    Some(match text {
        "function" | "2" | "STT_FUNC" | "gnu_indirect_function" | "10" | "STT_GNU_IFUNC" => {
            SymbolType::Function
        }
        "object" | "1" | "STT_OBJECT" | "common" | "5" | "STT_COMMON" | "gnu_unique_object" => {
            SymbolType::Object
        }
        "tls_object" | "6" | "STT_TLS" => SymbolType::Tls,
        "notype" | "0" | "STT_NOTYPE" => SymbolType::NoType,
        _ => return None,
    })
}

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// The symbol `text` names in this source, created (declared, not defined) if new.
    pub(super) fn declare(&mut self, text: &str, at: usize) -> PResult<&mut Symbol> {
        let located = |kind| Located { offset: at, kind };
        let index = match self.symbols.position(text) {
            Some(index) => {
                if self.final_pass {
                    self.symbols.touch(index);
                }
                index
            }
            None => {
                let symbol = SymbolName::new(text).map_err(located)?;
                self.symbols
                    .insert(Symbol::declared(symbol, self.file))
                    .map_err(located)?
            }
        };
        self.symbols
            .entries
            .get_mut(index)
            .ok_or(located(AsmErrorKind::TooManySymbols { capacity: SYMS }))
    }

    /// `.global`, `.weak`, `.type` and the like (`d` without its dot), and `.extern`, which
    /// gas ignores (every name a source does not define is external to it).
    pub(super) fn symbol_attribute(&mut self, d: &str, args: Span<'_>) -> PResult<()> {
        match d {
            "file" => return self.file_directive(args),
            "type" => return self.type_directive(args),
            "size" => return self.size_directive(args),
            "extern" | "xref" => return check_names(args).map(|_| ()),
            _ => {}
        }
        for span in check_names(args)? {
            let span = span.trim();
            let symbol = self.declare(span.text, span.offset)?;
            let attributes = &mut symbol.attributes;
            match d {
                "weak" => attributes.binding = Binding::Weak,
                "local" if attributes.binding != Binding::Weak => {
                    attributes.binding = Binding::Local;
                }
                "global" | "globl" | "xdef" if attributes.binding != Binding::Weak => {
                    attributes.binding = Binding::Global;
                }
                "hidden" => attributes.visibility = Visibility::Hidden,
                "protected" => attributes.visibility = Visibility::Protected,
                "internal" => attributes.visibility = Visibility::Internal,
                _ => {}
            }
        }
        Ok(())
    }

    /// `.file "name"`: GNU `as` makes an `STT_FILE` symbol of the name (the first one goes
    /// before every other symbol of the object). `.file N "name"` is DWARF's line table,
    /// which makes no symbol; it and a name that does not fit are only checked.
    fn file_directive(&mut self, args: Span<'_>) -> PResult<()> {
        let args = args.trim();
        let Some(quoted) = args.text.strip_prefix('"') else {
            return Ok(());
        };
        let Some(end) = quoted.find('"') else {
            return args.err(AsmErrorKind::UnterminatedString);
        };
        let mut text = heapless::String::<{ super::symbols::MAX_NAME }>::new();
        let fits = text.push(FILE_SYMBOL_MARK).is_ok()
            && quoted
                .get(..end)
                .is_some_and(|name| text.push_str(name).is_ok());
        if !fits {
            return Ok(());
        }
        let name = SymbolName::new(&text).map_err(|kind| Located {
            offset: args.offset,
            kind,
        })?;
        let value = super::symbols::SymbolValue::Absolute(0);
        self.define(
            name,
            value,
            super::symbols::Definition::Set,
            false,
            args.offset,
        )?;
        self.declare(&text, args.offset)?.attributes.kind = SymbolType::File;
        Ok(())
    }

    /// `.type name, @function`.
    fn type_directive(&mut self, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let symbol = symbol_name(list.next(), args)?;
        let Some(kind_span) = list.next().map(Span::trim) else {
            return args.err(AsmErrorKind::UnexpectedToken {
                expected: "`,` and a symbol type such as `@function`",
            });
        };
        let Some(kind) = symbol_type(kind_span.text) else {
            return kind_span.err(AsmErrorKind::UnknownSymbolType(name(kind_span.text)));
        };
        self.declare(symbol.text, symbol.offset)?.attributes.kind = kind;
        Ok(())
    }

    /// `.size name, expression`: a number once everything is placed (the second pass).
    fn size_directive(&mut self, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let symbol = symbol_name(list.next(), args)?;
        let Some(size_span) = list.next() else {
            return args.err(AsmErrorKind::UnexpectedToken {
                expected: "`,` and a size",
            });
        };
        let size = expression(size_span, self)?;
        if !self.final_pass {
            self.declare(symbol.text, symbol.offset)?;
            return Ok(());
        }
        if size.section.is_some() || !size.resolved {
            return size_span.err(AsmErrorKind::ExpectedConstant);
        }
        self.declare(symbol.text, symbol.offset)?.attributes.size = size.value as u32;
        Ok(())
    }
}

/// The first argument as a symbol name.
fn symbol_name<'a>(first: Option<Span<'a>>, args: Span<'a>) -> PResult<Span<'a>> {
    let span = first.unwrap_or(args).trim();
    if span.text.is_empty() || ident_len(span.text) != span.text.len() {
        return span.err(AsmErrorKind::ExpectedExpression);
    }
    Ok(span)
}

/// The names of a `.global`-like list, each checked to be a name.
fn check_names(args: Span<'_>) -> PResult<impl Iterator<Item = Span<'_>>> {
    for span in operands(args) {
        symbol_name(Some(span), args)?;
    }
    Ok(operands(args))
}
