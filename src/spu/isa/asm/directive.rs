//! Directives other than the block ones (macros, repeats, conditionals: see `expand`), by the
//! name [`pseudo_op`](super::pseudo_op) gives them (lower case, without the dot): sections,
//! symbols, assignments, messages, the ones read and checked with no effect on the image
//! (`.type`, `.size`, `.file`...), and the ones gas knows that this assembler refuses, each
//! with the reason.

use super::error::AsmErrorKind;
use super::expr::expression;
use super::pass::{MAX_SECTION_STACK, Pass, name};
use super::section::Attributes;
use super::symbols::Definition;
use super::text::{Located, PResult, Span, err, operands};

/// Directives read and checked that leave no bytes in a local-store image: symbol binding
/// and visibility, ELF symbol types and sizes (recorded for the ELF file, see
/// `symbol_attributes`), listing control, debug line info, and the ones gas ignores
/// (`.extern`: every undefined symbol is external to gas).
const NO_BYTES: [&str; 34] = [
    "global",
    "globl",
    "xdef",
    "local",
    "weak",
    "hidden",
    "protected",
    "internal",
    "extern",
    "xref",
    "type",
    "size",
    "ident",
    "file",
    "loc",
    "loc_mark_labels",
    "line",
    "linefile",
    "nolist",
    "list",
    "title",
    "ttl",
    "sbttl",
    "eject",
    "page",
    "nopage",
    "psize",
    "plen",
    "llen",
    "lflags",
    "spc",
    "format",
    "noformat",
    "this_gcc_requires_the_gnu_assembler",
];

/// Why a directive gas knows is refused here (`None` for the ones this assembler takes).
fn unsupported(d: &str) -> Option<&'static str> {
    Some(match d {
        "rva" | "dc.x" | "dcb.x" => "GNU as 2.40 has no such value for SPU either",
        "nops" => "GNU as 2.40 does not implement it for SPU either",
        _ if d.starts_with("cfi_") => "GNU as 2.40 has no CFI for SPU either",
        "altmacro" => "the alternate macro syntax is not implemented",
        "mri" => "MRI compatibility mode is not implemented",
        "struct" | "offset" => "the absolute section is not implemented",
        "subsection" => "subsections other than 0 are not implemented",
        "common" | "common.s" | "xcom" | "tls_common" => {
            "this variant of `.comm` is not implemented; use `.comm`"
        }
        "stabs" | "stabn" | "stabd" | "xstabs" | "func" | "endfunc" | "debug" => {
            "stabs debug information is not implemented"
        }
        "symver" | "weakref" | "lsym" | "vtable_inherit" | "vtable_entry" | "attach_to_group"
        | "gnu_attribute" | "linkonce" => {
            "it concerns the object file's symbols or sections, which a linked image does not keep"
        }
        _ => return None,
    })
}

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// The value of an argument that gas must know where it reads it (a number, or symbols
    /// defined before with numbers).
    pub fn constant(&self, span: Span<'_>) -> PResult<i64> {
        let value = expression(span, self)?;
        if !value.is_constant() {
            return span.err(AsmErrorKind::ExpectedConstant);
        }
        Ok(value.value)
    }

    /// Runs directive `d` (a name of [`PSEUDO_OPS`](super::pseudo_op::PSEUDO_OPS), written
    /// `word`).
    pub fn directive(
        &mut self,
        d: &'static str,
        word: &str,
        at: usize,
        args: Span<'_>,
    ) -> PResult<()> {
        if let Some(result) = self.data_directive(d, at, args) {
            return result;
        }
        if let Some(result) = self.space_directive(d, at, args) {
            return result;
        }
        if let Some(result) = self.align_directive(d, at, args) {
            return result;
        }
        match d {
            "text" | "data" => {
                self.switch(if d == "text" { ".text" } else { ".data" }, at)?;
                self.expect_subsection(args)
            }
            "bss" | "lcomm" => self.local_common(d, at, args),
            "comm" => self.common(at, args),
            "section" | "section.s" | "sect" | "sect.s" | "pushsection" => {
                self.section(d, at, args)
            }
            "previous" => {
                expect_none(args)?;
                core::mem::swap(&mut self.previous, &mut self.current);
                Ok(())
            }
            "popsection" => {
                expect_none(args)?;
                let Some((current, previous)) = self.section_stack.pop() else {
                    return err(at, AsmErrorKind::UnmatchedEnd(name(word)));
                };
                self.current = current;
                self.previous = previous;
                Ok(())
            }
            "set" | "equ" | "equiv" | "eqv" | "def" => {
                let text = args.trim();
                let comma = super::text::find_top_level(text.text, b',', true);
                if comma >= text.text.len() {
                    return err(
                        text.offset + text.text.len(),
                        AsmErrorKind::UnexpectedToken {
                            expected: "`,` and a value",
                        },
                    );
                }
                let target = text.text.get(..comma).unwrap_or("").trim();
                let how = if d == "equiv" || d == "eqv" {
                    Definition::Equiv
                } else {
                    Definition::Set
                };
                self.assign(target, text.offset, text.from(comma + 1), how)
            }
            "brinfo" => self.brinfo(args),
            "reloc" => self.reloc(args),
            "include" | "incbin" => err(at, AsmErrorKind::NeedsFileAccess(name(word))),
            "error" | "err" | "abort" => {
                let text = args.trim().text;
                let text = text.trim_matches('"');
                err(
                    at,
                    AsmErrorKind::UserError(name(if text.is_empty() { word } else { text })),
                )
            }
            // `.fail N`: an error below 500, a warning from 500 on.
            "fail" => {
                if self.constant(args)? < 500 {
                    return err(at, AsmErrorKind::UserError(name(word)));
                }
                Ok(())
            }
            "end" => {
                self.ended = true;
                Ok(())
            }
            // Messages GNU `as` prints, and a syntax switch back to the default one.
            "warning" | "print" | "version" | "noaltmacro" => Ok(()),
            "global" | "globl" | "xdef" | "local" | "weak" | "hidden" | "protected"
            | "internal" | "extern" | "xref" | "type" | "size" | "file" => {
                self.symbol_attribute(d, args)
            }
            _ if NO_BYTES.contains(&d) => Ok(()),
            _ => Err(Located {
                offset: at,
                kind: match unsupported(d) {
                    Some(why) => AsmErrorKind::UnsupportedDirective {
                        name: name(word),
                        why,
                    },
                    None => AsmErrorKind::UnknownDirective(name(word)),
                },
            }),
        }
    }

    /// Makes `section` (opened with its name's attributes) the current one.
    pub(super) fn switch(&mut self, section: &str, at: usize) -> PResult<()> {
        self.switch_to(section, None, None, at)
    }

    fn switch_to(
        &mut self,
        section: &str,
        given: Option<Attributes>,
        nobits: Option<bool>,
        at: usize,
    ) -> PResult<()> {
        let index = self
            .sections
            .open(section, given, nobits)
            .map_err(|kind| Located { offset: at, kind })?;
        if index != self.current {
            self.previous = self.current;
            self.current = index;
        }
        Ok(())
    }

    /// `.section name[, "flags"[, @type]]` and `.pushsection` (same arguments).
    fn section(&mut self, d: &str, at: usize, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(name_span) = list.next().map(Span::trim) else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let section = name_span.text.trim_matches('"');
        if section.is_empty() {
            return name_span.err(AsmErrorKind::ExpectedExpression);
        }
        let flags = list.next().map(|s| s.trim().text);
        let given = flags
            .filter(|f| f.starts_with('"'))
            .map(|f| Attributes::from_flags(f.trim_matches('"')));
        let type_word = list.next().map(|s| s.trim().text).unwrap_or("");
        let nobits = match type_word.get(1..) {
            Some("nobits") => Some(true),
            Some(t) if !t.is_empty() => Some(false),
            _ => None,
        };
        if d == "pushsection" {
            self.section_stack
                .push((self.current, self.previous))
                .map_err(|_| Located {
                    offset: at,
                    kind: AsmErrorKind::NestingLimit {
                        what: "`.pushsection`",
                        limit: MAX_SECTION_STACK,
                    },
                })?;
        }
        self.switch_to(section, given, nobits, name_span.offset)
    }

    /// `.brinfo priority[, lrlive]`: checked like GNU `as` (priority 0..=0x1fff, lrlive
    /// 0..=7). gas puts its bits in the next branch's offset field only when a relocation
    /// fills that field, which then overwrites them, so it changes no byte of a linked image.
    fn brinfo(&mut self, args: Span<'_>) -> PResult<()> {
        let mut list = operands(args);
        let Some(priority) = list.next() else {
            return args.err(AsmErrorKind::ExpectedExpression);
        };
        let p = self.constant(priority)?;
        if !(0..=0x1fff).contains(&p) {
            return priority.err(AsmErrorKind::ImmediateOutOfRange {
                operand: 1,
                value: p,
                min: 0,
                max: 0x1fff,
            });
        }
        if let Some(lrlive) = list.next() {
            let l = self.constant(lrlive)?;
            if !(0..=7).contains(&l) {
                return lrlive.err(AsmErrorKind::ImmediateOutOfRange {
                    operand: 2,
                    value: l,
                    min: 0,
                    max: 7,
                });
            }
        }
        Ok(())
    }
}

pub(super) fn expect_none(args: Span<'_>) -> PResult<()> {
    let args = args.trim();
    if args.text.is_empty() {
        Ok(())
    } else {
        args.err(AsmErrorKind::UnexpectedToken {
            expected: "end of statement",
        })
    }
}

/// `.text`/`.data` take an optional subsection number, a constant; only 0 is supported.
impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    fn expect_subsection(&self, args: Span<'_>) -> PResult<()> {
        let args = args.trim();
        if args.text.is_empty() || self.constant(args)? == 0 {
            return Ok(());
        }
        args.err(AsmErrorKind::UnsupportedDirective {
            name: name("subsection"),
            why: "subsections other than 0 are not implemented",
        })
    }
}
