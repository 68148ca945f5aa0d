//! Conditional assembly: `.if` and its variants, `.elseif`, `.else`, `.endif`. Conditions
//! are evaluated in the first pass already, so both passes take the same branches.

use super::error::{AsmErrorKind, Name};
use super::pass::Pass;
use super::reader::{Conditional, MAX_CONDITIONALS};
use super::text::{Located, PResult, Span, ident_len};

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// Runs conditional directive `word` (a name of the pseudo-op table: `if`, `ifdef`...).
    pub(super) fn conditional(&mut self, word: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let limit = || Located {
            offset: at,
            kind: AsmErrorKind::NestingLimit {
                what: "conditional",
                limit: MAX_CONDITIONALS,
            },
        };
        let unmatched = || Located {
            offset: at,
            kind: AsmErrorKind::UnmatchedEnd(Name::new(word)),
        };
        if word == "endif" || word == "endc" {
            self.expander.conditionals.pop().ok_or_else(unmatched)?;
            return Ok(());
        }
        if word == "else" || word == "elsec" {
            let top = self
                .expander
                .conditionals
                .last_mut()
                .ok_or_else(unmatched)?;
            top.active = top.parent_active && !top.taken;
            top.taken = true;
            return Ok(());
        }
        if word == "elseif" {
            let top = *self.expander.conditionals.last().ok_or_else(unmatched)?;
            let active = if top.parent_active && !top.taken {
                self.condition("if", args)?
            } else {
                false
            };
            if let Some(top) = self.expander.conditionals.last_mut() {
                top.active = active;
                top.taken |= active;
            }
            return Ok(());
        }
        let parent_active = self.expander.active();
        let active = parent_active && self.condition(word, args)?;
        self.expander
            .conditionals
            .push(Conditional {
                parent_active,
                taken: active,
                active,
            })
            .map_err(|_| limit())
    }

    /// The truth of `.ifXX args`.
    fn condition(&mut self, word: &str, args: Span<'_>) -> PResult<bool> {
        let lower = |n: &str| word == n;
        if lower("ifdef") || lower("ifndef") || lower("ifnotdef") {
            let name = args.trim();
            if name.text.is_empty() || ident_len(name.text) != name.text.len() {
                return name.err(AsmErrorKind::ExpectedExpression);
            }
            let defined = self.symbols.find(name.text).is_some_and(|s| s.defined);
            return Ok(defined == lower("ifdef"));
        }
        if lower("ifb") || lower("ifnb") {
            return Ok(args.text.trim().is_empty() == lower("ifb"));
        }
        if lower("ifc") || lower("ifnc") || lower("ifeqs") || lower("ifnes") {
            let text = args.trim().text;
            let comma = super::text::find_top_level(text, b',', false);
            fn unquote(s: &str) -> &str {
                let s = s.trim();
                s.strip_prefix('"')
                    .and_then(|s| s.strip_suffix('"'))
                    .unwrap_or(s)
            }
            let a = unquote(text.get(..comma).unwrap_or(""));
            let b = unquote(text.get(comma + 1..).unwrap_or(""));
            return Ok((a == b) == (lower("ifc") || lower("ifeqs")));
        }
        let value = self.constant(args)?;
        Ok(match word {
            "ifeq" => value == 0,
            "ifgt" => value > 0,
            "ifge" => value >= 0,
            "iflt" => value < 0,
            "ifle" => value <= 0,
            _ => value != 0,
        })
    }
}
