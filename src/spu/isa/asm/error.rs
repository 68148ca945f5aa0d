//! Assembler errors: where (line, column) and what was expected.

use core::fmt;

use crate::spu::isa::opcodes::OperandKind;

/// A copy of a name from the source (mnemonic, directive, label), truncated to 32 bytes so
/// that errors do not borrow the source text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Name {
    bytes: [u8; Name::CAPACITY],
    len: u8,
}

impl Name {
    /// Maximum stored length in bytes.
    pub const CAPACITY: usize = 32;

    /// Copies `text`, cut at a character boundary if longer than [`Self::CAPACITY`].
    pub fn new(text: &str) -> Name {
        let mut end = text.len().min(Self::CAPACITY);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let mut bytes = [0; Self::CAPACITY];
        let src = text.as_bytes().get(..end).unwrap_or(&[]);
        if let Some(dst) = bytes.get_mut(..src.len()) {
            dst.copy_from_slice(src);
        }
        Name {
            bytes,
            len: src.len() as u8,
        }
    }

    /// The stored text.
    pub fn as_str(&self) -> &str {
        let bytes = self.bytes.get(..usize::from(self.len)).unwrap_or(&[]);
        core::str::from_utf8(bytes).unwrap_or("")
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for Name {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "{=str}", self.as_str())
    }
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AsmErrorKind {
    /// No instruction, variant or alias has this name.
    UnknownMnemonic(Name),
    /// A name with a dot that GNU `as` knows as no directive either.
    UnknownDirective(Name),
    /// `.reloc` with a relocation that ld would resolve into the bytes (an address), which a
    /// linked image cannot leave to a linker; `SPU_NONE` and `SPU_ADD_PIC` are taken.
    UnsupportedRelocation(Name),
    /// `.reloc` with a name that is no relocation of the SPU's table (gas: "unrecognized
    /// reloc type").
    UnknownRelocation(Name),
    /// `.reloc`'s offset outside its section (gas: "reloc not within (fixed part of)
    /// section").
    RelocationOutsideSection,
    /// A directive GNU `as` knows that this assembler does not take.
    UnsupportedDirective {
        /// The directive as written.
        name: Name,
        /// Why it is not supported.
        why: &'static str,
    },
    /// An alignment filled with a 2- or 4-byte pattern (`.balignw`, `.p2alignl`...) whose
    /// padding is not a whole number of patterns (gas refuses it too).
    AlignmentPadding {
        /// Bytes of padding.
        padding: u32,
        /// Bytes of the pattern.
        pattern: u8,
    },
    /// The operand count matches none of the instruction's forms.
    WrongOperandCount {
        /// The mnemonic as written.
        mnemonic: Name,
        /// Operands found.
        found: u8,
        /// Accepted operand lists.
        expected: &'static [&'static [OperandKind]],
    },
    /// A register was expected (`$N`, `N`, `$lr`, `$sp`, ..., or a constant defined before).
    ExpectedRegister,
    /// Register, channel or SPR number above 127.
    RegisterOutOfRange {
        /// The number written.
        value: u32,
    },
    /// A number, label or `.` was expected.
    ExpectedExpression,
    /// Directive operand must be a number known in the first pass (no labels).
    ExpectedConstant,
    /// A number could not be parsed or does not fit in 64 bits.
    InvalidNumber,
    /// Something else than what the syntax allows at this point.
    UnexpectedToken {
        /// What the syntax allows here (e.g. "`,`", "end of statement").
        expected: &'static str,
    },
    /// An immediate does not fit the instruction's field (or a directive argument its range).
    ImmediateOutOfRange {
        /// Which operand (1 = first after the mnemonic or directive).
        operand: u8,
        /// The value written.
        value: i64,
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// The branch/hint target is farther than the offset field reaches.
    UnreachableTarget {
        /// Byte offset from the instruction to the target.
        offset: i64,
        /// Smallest reachable offset.
        min: i64,
        /// Largest reachable offset.
        max: i64,
    },
    /// A label is used but never defined.
    UnknownLabel(Name),
    /// A label is defined twice.
    DuplicateLabel(Name),
    /// More labels than the symbol table capacity.
    TooManySymbols {
        /// The capacity (`SYMS`).
        capacity: usize,
    },
    /// The program does not fit the output image.
    ImageOverflow {
        /// The image size in bytes.
        capacity: usize,
    },
    /// `.align`/`.balign` argument out of range (exponent above 17, or not a power of two).
    InvalidAlignment {
        /// The value written.
        value: i64,
    },
    /// A symbol or section name is longer than the assembler stores.
    NameTooLong {
        /// Longest name in bytes.
        limit: usize,
    },
    /// More sections than the section table holds.
    TooManySections {
        /// The capacity.
        capacity: usize,
    },
    /// A source line (after macro substitution) is longer than the line buffer.
    LineTooLong {
        /// Longest line in bytes.
        limit: usize,
    },
    /// A string (`"..."`) is not closed on its line.
    UnterminatedString,
    /// A `/*` comment is not closed before the end of the source.
    UnterminatedComment,
    /// A symbol defined once (a label, `.equiv`, `.eqv`, `==`) assigned again, or `.equiv`,
    /// `.eqv` or `==` of a symbol already defined.
    AlreadyDefined(Name),
    /// A block directive (`.macro`, `.rept`, `.irp`, `.if`...) has no end before the end of
    /// its source or macro body.
    MissingEnd {
        /// The directive that would have closed it (`.endm`, `.endr`, `.endif`).
        expected: &'static str,
    },
    /// An end or middle directive (`.endif`, `.else`, `.endm`, `.endr`, `.exitm`) with no
    /// block open.
    UnmatchedEnd(Name),
    /// Macro expansions, repeats or conditionals nest deeper than the assembler allows.
    NestingLimit {
        /// What nests (`"macro expansion"`, `"conditional"`).
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// Macros and repeats would produce more statements than one pass allows (a runaway
    /// `.rept` or recursion).
    ExpansionLimit {
        /// Statements allowed per pass.
        limit: u32,
    },
    /// More macro definitions than the macro table holds.
    TooManyMacros {
        /// The capacity.
        capacity: usize,
    },
    /// A macro with this name is already defined.
    DuplicateMacro(Name),
    /// A required (`:req`) macro argument was not given.
    MissingArgument(Name),
    /// `name=value` names no parameter of the macro.
    UnknownParameter(Name),
    /// More arguments than the macro has parameters (and no `:vararg`).
    TooManyArguments(Name),
    /// The arguments of the macro calls and `.irp` values under expansion need more bytes
    /// than the assembler keeps for them ([`ARG_BYTES`](super::macros::ARG_BYTES)).
    ArgumentSpace {
        /// The bytes kept.
        limit: usize,
    },
    /// A positional macro argument after a `name=value` one (gas refuses to mix them so).
    PositionalAfterKeyword,
    /// `.org` to an offset before the current one.
    OrgBackwards {
        /// Offset asked for in the section.
        target: i64,
        /// Current offset.
        current: u32,
    },
    /// A floating-point constant could not be read.
    InvalidFloat,
    /// `.include`/`.incbin` need files: the library reads one source text.
    NeedsFileAccess(Name),
    /// `.error`/`.err`, or `.abort`, in the source.
    UserError(Name),
    /// A numeric local label reference (`1b`/`1f`) with no such label before/after.
    UndefinedLocalLabel {
        /// The label number.
        number: u32,
        /// `true` for a forward reference (`Nf`).
        forward: bool,
    },
    /// Bytes other than zero in a zero-initialised section (`.bss`, `.lcomm`...).
    NonZeroInBss,
    /// A macro call followed by more statements on its line (`m; nop`).
    StatementAfterMacroCall,
    /// An expression nests prefix operators and parentheses deeper than the parser allows
    /// ([`MAX_NESTING`](super::MAX_NESTING)); the column is the operator or `(` one too deep.
    NestingTooDeep {
        /// The limit.
        limit: u32,
    },
    /// An operator applied to an address (a label or `.`) where gas takes only numbers:
    /// an address may only have a number added or subtracted, or an address of its own
    /// section subtracted (`L * 2`, `L1 + L2`, `-L` are errors in gas too).
    InvalidOperands {
        /// The operator as written.
        operator: &'static str,
    },
    /// `.type` with a type GNU `as` does not know (gas: "unrecognized symbol type").
    UnknownSymbolType(Name),
    /// A global symbol two sources define (ld: "multiple definition"); the error is at the
    /// later definition.
    MultipleDefinition {
        /// The symbol.
        name: Name,
        /// The source that defined it first.
        first_file: u16,
    },
    /// More sources, or more link definitions, than the link takes.
    TooManySources {
        /// The limit.
        limit: usize,
    },
    /// A link definition that is not `NAME=EXPRESSION` (ld's `--defsym`).
    BadDefinition,
}

/// An assembler error at a source position (1-based line and byte column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AsmError {
    /// The source it is in: its index among the sources given to
    /// [`link`](super::link) (0 for [`assemble`](super::assemble)); for an error in the
    /// `i`-th link definition, the number of sources plus `i`.
    pub file: u16,
    /// Line number, from 1.
    pub line: u32,
    /// Column (byte offset in the line), from 1.
    pub column: u32,
    /// What went wrong.
    pub kind: AsmErrorKind,
    /// For an error in a macro or repeat body: the line and column of the statement in the
    /// source text that started the outermost expansion (gas's "macro invoked from here").
    pub invoked_at: Option<(u32, u32)>,
}

fn write_kind(f: &mut fmt::Formatter<'_>, kind: OperandKind) -> fmt::Result {
    use OperandKind::*;
    f.write_str(match kind {
        Rt => "$rt",
        Ra => "$ra",
        Rb => "$rb",
        Rc => "$rc",
        Spr => "$spN",
        Channel => "$chN",
        MemS14 => "offset($ra)",
        MemU7 => "imm($ra)",
        S11 | S11I => "branch",
        R18 => "target",
        S18 => "address",
        U14 => "signal",
        S3 | S6 | S7N | S7 | U3 | U5 | U6 | U7 | U7A | U7B | S10B | S10 | S16 | X16 | U18 => "imm",
    })
}

fn write_forms(f: &mut fmt::Formatter<'_>, forms: &[&[OperandKind]]) -> fmt::Result {
    for (i, form) in forms.iter().enumerate() {
        if i > 0 {
            f.write_str(" or ")?;
        }
        if form.is_empty() {
            f.write_str("no operands")?;
            continue;
        }
        f.write_str("`")?;
        for (j, kind) in form.iter().enumerate() {
            if j > 0 {
                f.write_str(",")?;
            }
            write_kind(f, *kind)?;
        }
        f.write_str("`")?;
    }
    Ok(())
}

impl fmt::Display for AsmErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use AsmErrorKind::*;
        match self {
            UnknownMnemonic(name) => write!(f, "unknown instruction `{name}`"),
            UnknownDirective(name) => write!(f, "unknown directive `{name}`"),
            UnsupportedDirective { name, why } => {
                write!(f, "`{name}` is not supported: {why}")
            }
            UnsupportedRelocation(name) => write!(
                f,
                "relocation `{name}` is not supported: ld would write an address into the bytes, and this assembler writes the linked image (only SPU_NONE and SPU_ADD_PIC, which leave them as they are, are)"
            ),
            UnknownRelocation(name) => write!(f, "unrecognized relocation type `{name}`"),
            RelocationOutsideSection => {
                f.write_str("the `.reloc` offset is not within its section")
            }
            AlignmentPadding { padding, pattern } => write!(
                f,
                "alignment padding ({padding} bytes) is not a multiple of the {pattern}-byte fill pattern"
            ),
            WrongOperandCount {
                mnemonic,
                found,
                expected,
            } => {
                write!(f, "`{mnemonic}` takes ")?;
                write_forms(f, expected)?;
                write!(f, ", found {found} operand(s)")
            }
            ExpectedRegister => f.write_str(
                "expected a register: `$0`..`$127`, `$lr`, `$sp`, `$rp`, `$fp`, or `$sym`/`(expr)` with a value defined before this line",
            ),
            RegisterOutOfRange { value } => {
                write!(f, "register number {value} out of range, expected 0..=127")
            }
            ExpectedExpression => f.write_str("expected a number, label or `.`"),
            ExpectedConstant => f.write_str("expected a constant number (labels not allowed here)"),
            InvalidNumber => f.write_str("invalid number"),
            UnexpectedToken { expected } => write!(f, "unexpected text, expected {expected}"),
            ImmediateOutOfRange {
                operand,
                value,
                min,
                max,
            } => {
                write!(
                    f,
                    "operand {operand}: value {value} out of range, expected {min}..={max}"
                )
            }
            UnreachableTarget { offset, min, max } => write!(
                f,
                "target out of reach: offset {offset} bytes, expected {min}..={max}"
            ),
            UnknownLabel(name) => write!(f, "undefined label `{name}`"),
            DuplicateLabel(name) => write!(f, "label `{name}` already defined"),
            TooManySymbols { capacity } => {
                write!(f, "too many labels, the symbol table holds {capacity}")
            }
            ImageOverflow { capacity } => {
                write!(f, "program does not fit the {capacity}-byte image")
            }
            InvalidAlignment { value } => write!(f, "invalid alignment {value}"),
            NameTooLong { limit } => write!(f, "name longer than {limit} bytes"),
            TooManySections { capacity } => {
                write!(f, "too many sections, the section table holds {capacity}")
            }
            LineTooLong { limit } => write!(f, "line longer than {limit} bytes"),
            UnterminatedString => f.write_str("string not closed (missing `\"`)"),
            UnterminatedComment => f.write_str("`/*` comment not closed"),
            AlreadyDefined(name) => write!(f, "symbol `{name}` is already defined"),
            MissingEnd { expected } => write!(f, "block not closed: missing `{expected}`"),
            UnmatchedEnd(name) => write!(f, "`{name}` without a matching block start"),
            NestingLimit { what, limit } => {
                write!(f, "{what} nested deeper than {limit} levels")
            }
            ExpansionLimit { limit } => write!(
                f,
                "macros and repeats expand to more than {limit} statements (runaway recursion?)"
            ),
            TooManyMacros { capacity } => {
                write!(f, "too many macros, the macro table holds {capacity}")
            }
            DuplicateMacro(name) => write!(f, "macro `{name}` already defined"),
            MissingArgument(name) => {
                write!(f, "missing value for required macro parameter `{name}`")
            }
            UnknownParameter(name) => write!(f, "macro has no parameter `{name}`"),
            TooManyArguments(name) => write!(f, "too many arguments for macro `{name}`"),
            ArgumentSpace { limit } => write!(
                f,
                "the macro arguments of the expansions under way need more than {limit} bytes"
            ),
            PositionalAfterKeyword => {
                f.write_str("a positional macro argument after a `name=value` one")
            }
            OrgBackwards { target, current } => write!(
                f,
                "`.org` {target:#x} moves backwards (section is already at {current:#x})"
            ),
            InvalidFloat => f.write_str("invalid floating-point constant"),
            NeedsFileAccess(name) => write!(
                f,
                "`{name}` needs file access: assemble with spusim, or inline the file first"
            ),
            UserError(name) => write!(f, "error directive: {name}"),
            UndefinedLocalLabel { number, forward } => {
                let (suffix, place) = if *forward {
                    ("f", "after")
                } else {
                    ("b", "before")
                };
                write!(
                    f,
                    "local label `{number}{suffix}`: no `{number}:` {place} this point"
                )
            }
            NonZeroInBss => f.write_str("only zeros may go in a zero-initialised section"),
            StatementAfterMacroCall => f.write_str(
                "a macro call must end its line (move the following statements to a new line)",
            ),
            InvalidOperands { operator } => write!(
                f,
                "invalid operands for `{operator}`: an address takes only `+`/`-` of a number, or `-` of an address in its own section"
            ),
            NestingTooDeep { limit } => write!(
                f,
                "expression nested too deeply: more than {limit} prefix operators and parentheses"
            ),
            UnknownSymbolType(name) => write!(
                f,
                "unknown symbol type `{name}` (`@function`, `@object`, `@tls_object`, `@notype`)"
            ),
            MultipleDefinition { name, first_file } => write!(
                f,
                "multiple definition of `{name}` (source {first_file} defines it first)"
            ),
            TooManySources { limit } => write!(f, "more than {limit} sources to link"),
            BadDefinition => f.write_str("expected `NAME=EXPRESSION`"),
        }
    }
}

impl fmt::Display for AsmError {
    /// `line:column: what`, then, in an expansion, ` (in the expansion started at line:column)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.kind)?;
        if let Some((line, column)) = self.invoked_at {
            write!(f, " (in the expansion started at {line}:{column})")?;
        }
        Ok(())
    }
}

impl core::error::Error for AsmError {}
