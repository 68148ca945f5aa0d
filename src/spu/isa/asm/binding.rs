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
use super::symbols::{Definition, Symbol, SymbolName, SymbolValue};
use super::text::{Located, PResult, Span, err, ident_len};

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
            _ if self.final_pass => Err(AsmErrorKind::UnknownLabel(Name::new(&symbol.name))),
            _ => Ok(Value::UNKNOWN),
        }
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
                } else if first_pass {
                    symbol.first = value;
                }
                symbol.defined = true;
                symbol.variable = how == Definition::Set;
                symbol.late = late;
                symbol.value = value;
                symbol.address = address;
                Ok(())
            }
            None => self
                .symbols
                .insert(Symbol {
                    name,
                    address,
                    value,
                    defined: true,
                    variable: how == Definition::Set,
                    late,
                    first: value,
                })
                .map_err(located),
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
        self.define(name, stored, how, !value.early, at)
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
        match self.symbols.find(name) {
            Some(symbol) => self.value_of(symbol),
            None if self.final_pass => Err(AsmErrorKind::UnknownLabel(Name::new(name))),
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
