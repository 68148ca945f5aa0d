//! Symbols in a pass: what a name is worth where it is read (the [`Resolver`] of the
//! expressions), and its definitions, with gas's rules for redefinition:
//!
//! - `.set`, `.equ` and `=` make a volatile symbol: a later assignment or a label may
//!   redefine it; uses before a redefinition keep the value they saw (gas clones the symbol),
//!   and a use before any definition takes the first one;
//! - a label, `.equiv`, `.eqv` and `==` define a symbol once: defining it again is an error.

use super::error::{AsmErrorKind, Name};
use super::expr::{Resolver, Value, expression};
use super::pass::{MAX_LOCAL_NUMBERS, Pass};
use super::symbols::{Binding, Definition, Symbol, SymbolName, SymbolType, SymbolValue};
use super::text::{Located, PResult, Span, err, ident_len};
use super::value::EXTERNAL_SECTION;

fn local_name(number: u32, instance: u32) -> Result<SymbolName, AsmErrorKind> {
    let mut text = heapless::String::<32>::new();
    // 32 bytes hold two u32 numbers and the separator.
    let _ = core::fmt::write(&mut text, format_args!("{number}\u{2}{instance}"));
    SymbolName::new(&text)
}

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// The value of `symbol` where it is read.
    fn value_of(&self, symbol: &Symbol) -> Result<Value, AsmErrorKind> {
        let early = symbol.defined && !symbol.late;
        match symbol.value {
            SymbolValue::Absolute(value) if symbol.defined || self.final_pass => Ok(Value {
                value,
                resolved: true,
                section: None,
                early,
            }),
            SymbolValue::Label { section, .. } if self.final_pass => Ok(Value {
                value: i64::from(symbol.address),
                resolved: true,
                section: Some(section),
                early,
            }),
            // First pass: the offset in its section, exact for differences in the section.
            SymbolValue::Label { section, offset } if symbol.defined => Ok(Value {
                value: i64::from(offset),
                resolved: false,
                section: Some(section),
                early,
            }),
            // Only declared or used here (`.global printf`): the link resolves it.
            _ if self.final_pass && !symbol.defined_here => {
                self.external(&symbol.name, symbol.attributes.binding == Binding::Weak)
            }
            _ if self.final_pass => Err(AsmErrorKind::UnknownLabel(Name::new(&symbol.name))),
            _ => Ok(Value::UNKNOWN),
        }
    }

    /// The value of `name`, which this source does not define, as ld resolves it: what the
    /// link itself assigns (`--defsym`, the script's `_end`), else another source's global
    /// definition, else what the script provides for a name no source defines (`__stack`);
    /// 0 for a weak name nobody defines. It is an address in no section of this source, as
    /// gas leaves an undefined symbol to a relocation: never a constant where it is read.
    fn external(&self, name: &str, weak: bool) -> Result<Value, AsmErrorKind> {
        let found = |value: i64| Value {
            value,
            resolved: true,
            section: Some(EXTERNAL_SECTION),
            early: false,
        };
        let linker = self.linker;
        if let Some(value) = linker.and_then(|l| l.assigned(name)) {
            return Ok(found(i64::from(value)));
        }
        if let Some(symbol) = self.symbols.global(name) {
            return Ok(found(match symbol.value {
                SymbolValue::Absolute(value) => value,
                _ => i64::from(symbol.address),
            }));
        }
        if let Some(value) = linker.and_then(|l| l.provided(name)) {
            return Ok(found(i64::from(value)));
        }
        if weak {
            return Ok(found(0));
        }
        Err(AsmErrorKind::UnknownLabel(Name::new(name)))
    }

    /// The address of the next statement in its section, as a label there would have.
    fn here(&self) -> SymbolValue {
        SymbolValue::Label {
            section: self.current,
            offset: self.offset(),
        }
    }

    pub fn define_label(&mut self, label: &str, at: usize) -> PResult<()> {
        let located = |kind| Located { offset: at, kind };
        let value = self.here();
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
            return self.define(name, value, Definition::Label, false, at);
        }
        let name = SymbolName::new(label).map_err(located)?;
        self.define(name, value, Definition::Label, false, at)
    }

    /// Defines `name` as `value` in this pass; `late` says the value was not known where
    /// it was read.
    pub fn define(
        &mut self,
        name: SymbolName,
        value: SymbolValue,
        how: Definition,
        late: bool,
        at: usize,
    ) -> PResult<()> {
        let located = |kind| Located { offset: at, kind };
        let address = match value {
            SymbolValue::Absolute(v) => v as u32,
            SymbolValue::Label { section, offset } if self.final_pass => self
                .sections
                .get(section)
                .map_or(0, |s| s.address)
                .wrapping_add(offset),
            _ => 0,
        };
        let first_pass = !self.final_pass;
        let line = self.expander.line;
        if !first_pass && let Some(index) = self.symbols.position(name.as_str()) {
            self.symbols.touch(index);
        }
        match self.symbols.find_mut(name.as_str()) {
            Some(symbol) => {
                if symbol.defined {
                    match how {
                        Definition::Label if !symbol.variable => {
                            return err(at, AsmErrorKind::DuplicateLabel(Name::new(&name)));
                        }
                        Definition::Set if symbol.variable => {}
                        Definition::Label => {}
                        _ => return err(at, AsmErrorKind::AlreadyDefined(Name::new(&name))),
                    }
                } else if first_pass && !symbol.defined_here {
                    symbol.first = value;
                    symbol.defined_here = true;
                    symbol.line = line;
                }
                symbol.defined = true;
                symbol.variable = how == Definition::Set;
                symbol.late = late;
                symbol.value = value;
                symbol.address = address;
                Ok(())
            }
            None => {
                let symbol = Symbol {
                    address,
                    value,
                    defined: true,
                    variable: how == Definition::Set,
                    late,
                    first: value,
                    defined_here: true,
                    line,
                    ..Symbol::declared(name, self.file)
                };
                self.symbols.insert(symbol).map(|_| ()).map_err(located)
            }
        }
    }

    /// `sym = expr`, `sym == expr`, `.set`, `.equ`, `.equiv`, `.eqv`.
    pub fn assign(
        &mut self,
        target: &str,
        at: usize,
        expr: Span<'_>,
        how: Definition,
    ) -> PResult<()> {
        if target == "." {
            let value = expression(expr, self)?;
            return self.org(value, expr, None);
        }
        if target.is_empty() || ident_len(target) != target.len() {
            return err(at, AsmErrorKind::ExpectedExpression);
        }
        let name = SymbolName::new(target).map_err(|kind| Located { offset: at, kind })?;
        let value = expression(expr, self)?;
        let stored = match value.section {
            Some(section) if value.resolved || value.early => {
                // An address: kept as a place in its section, as gas equates it to the label.
                let base = if self.final_pass {
                    self.sections.get(section).map_or(0, |s| s.address)
                } else {
                    0
                };
                SymbolValue::Label {
                    section,
                    offset: value.value.wrapping_sub(i64::from(base)) as u32,
                }
            }
            None if value.resolved => SymbolValue::Absolute(value.value),
            _ => SymbolValue::Unresolved,
        };
        self.define(name, stored, how, !value.early, at)?;
        self.copy_attributes(target, expr);
        Ok(())
    }

    /// `x = y` or `x = y + 4` with `y` a symbol: gas copies `y`'s function or object type,
    /// and its size when `x` has none (`copy_symbol_attributes`).
    fn copy_attributes(&mut self, target: &str, expr: Span<'_>) {
        let text = expr.text.trim();
        let len = ident_len(text);
        let rest = text.get(len..).unwrap_or("").trim_start();
        let offset_only = rest.is_empty()
            || (rest.starts_with(['+', '-'])
                && rest.get(1..).is_some_and(|n| {
                    !n.trim().is_empty() && n.trim().bytes().all(|c| c.is_ascii_alphanumeric())
                }));
        let Some(source) = text.get(..len).filter(|_| len > 0 && offset_only) else {
            return;
        };
        let Some(from) = self.symbols.find(source).map(|s| s.attributes) else {
            return;
        };
        if let Some(symbol) = self.symbols.find_mut(target) {
            let to = &mut symbol.attributes;
            if matches!(from.kind, SymbolType::Function | SymbolType::Object) {
                to.kind = from.kind;
            }
            if to.size == 0 {
                to.size = from.size;
            }
        }
    }
}

impl<const SYMS: usize> Resolver for Pass<'_, '_, SYMS> {
    fn location(&self) -> Value {
        Value {
            value: self.location,
            resolved: self.final_pass,
            section: Some(self.current),
            early: true,
        }
    }

    fn symbol(&self, name: &str) -> Result<Value, AsmErrorKind> {
        let index = self.symbols.position(name);
        match index.and_then(|i| self.symbols.entries.get(i)) {
            Some(symbol) => {
                if self.final_pass {
                    self.symbols.touch(index.unwrap_or(usize::MAX));
                }
                self.value_of(symbol)
            }
            None if self.final_pass => self.external(name, false),
            None => Ok(Value::UNKNOWN),
        }
    }

    fn local_label(&self, number: u32, forward: bool) -> Result<Value, AsmErrorKind> {
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
        let name = local_name(number, instance)?;
        match self.symbols.find(name.as_str()) {
            Some(symbol) => self.value_of(symbol),
            None if self.final_pass => Err(undefined),
            None => Ok(Value::UNKNOWN),
        }
    }
}

/// A resolver that takes a symbol never defined for one not defined yet: gas's `.nop` reads
/// any expression as its operand and uses it only when it is a constant.
pub(super) struct Lenient<'p, R: Resolver>(pub &'p R);

impl<R: Resolver> Resolver for Lenient<'_, R> {
    fn location(&self) -> Value {
        self.0.location()
    }

    fn symbol(&self, name: &str) -> Result<Value, AsmErrorKind> {
        Ok(self.0.symbol(name).unwrap_or(Value::UNKNOWN))
    }

    fn local_label(&self, number: u32, forward: bool) -> Result<Value, AsmErrorKind> {
        Ok(self
            .0
            .local_label(number, forward)
            .unwrap_or(Value::UNKNOWN))
    }
}
