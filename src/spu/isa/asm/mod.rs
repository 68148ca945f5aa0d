//! Two-pass, heap-free SPU assembler for the GNU `as` SPU syntax.
//!
//! [`assemble`] reads source text and writes a flat local-store image into a caller-provided
//! byte slice, returning a [`Program`] (image length, entry point, symbol table).
//!
//! # Syntax accepted
//! - One statement per line; `;` separates several statements on a line (GNU
//!   `line_separator_chars`). `#` starts a comment that runs to the end of the line (GNU
//!   `comment_chars`); `//` is *not* a comment.
//! - Labels: `name:` before a statement (several allowed), names made of letters, digits, `_`,
//!   `.` and `$`, not starting with a digit or `$` (so `.L5:` works). Labels may be used before
//!   their definition.
//! - Mnemonics: the 199 base mnemonics, the feature-bit variants (`bid`, `bie`, `bisld`,
//!   `iretd`, `syncc`, `hbrp`, ...) and the synonyms `lr`, `bit`, `bif`, `biht`, `bihf` (+`d`/`e`),
//!   case-insensitive. Operand lists follow binutils, including its optional operands
//!   (`nop [$rt]`, `iret [$ra]`, `stop [signal]`, `heq [$rt,]$ra,$rb`, `fscrwr [$rt,]$ra`).
//! - Registers: `$N` or plain `N` (0..127), `$lr` (0), `$sp` (1), `$rp` (0), `$fp` (127);
//!   channels `$chN`, `N` or a channel name (`SPU_WrOutMbox`, `$SPU_RdInMbox`, ...);
//!   special-purpose registers `$spN` or `N`.
//! - Immediates: expressions (see below) with GNU ranges; out-of-range values are errors.
//!   `lqd $3,16($1)`: the D-form offset is in bytes, a multiple of 16 in -8192..8176.
//! - Branch targets, hint operands and absolute addresses take labels or numbers. **A number
//!   for a pc-relative operand is an absolute address** (GNU `as` would take it as a raw
//!   offset); this makes disassembler listings reassemble. `.` is the current address, so
//!   `br .+8` and `brnz $3,.-4` work as in GNU `as`. Targets must be word aligned and in
//!   reach: -131072..131068 bytes for branches, -1024..1020 for hint branch addresses.
//! - Expressions: numbers (`12`, `-3`, `0x1f`, `0b101`, octal `017`), labels, `.`, `+`, `-`,
//!   `*`, `~`, parentheses, and a final `@h`/`@l` (upper/lower 16 bits); prefix operators and
//!   parentheses nest at most [`MAX_NESTING`] deep.
//!
//! # Directives
//! - `.text`, `.data`: select the section. The image holds `.text` from address 0, then
//!   `.data` at the next 16-byte boundary after the text (or the boundary of the largest
//!   `.align` used in `.data`, like a linker honouring the section alignment).
//! - `.align N` / `.p2align N`: align to 2^N bytes (SPU `as` uses `s_align_ptwo`), N in 0..=17.
//!   `.balign N`: align to N bytes (power of two). In `.text` the padding is code as GNU `as`
//!   emits it (`lnop` to reach a doubleword, then `nop`/`lnop` pairs); in `.data` zeros.
//! - `.word`/`.long`/`.int v[,v...]`: 32-bit big-endian values (labels allowed),
//!   -2^31..2^32-1.
//! - `.space N[,fill]` / `.skip N[,fill]` / `.zero N`: N bytes (N and fill constant).
//! - `.global`/`.globl name[,name...]`: accepted, no effect (everything is visible).
//!
//! The entry point is the `_start` label if defined, else 0.

mod directive;
mod encode;
mod error;
mod expr;
mod symbols;

pub use error::{AsmError, AsmErrorKind, Name};
pub use symbols::{Symbol, SymbolTable};

use encode::operand;
use expr::{Located, PResult, Resolver, Span, err, ident_len, name};
use symbols::Section;

use super::opcodes::{FEATURE_SHIFT, Mnemonic, OPCODES, OperandKind, VARIANTS};

/// Deepest nesting of prefix operators (`-`, `+`, `~`) and parentheses in one expression.
///
/// The expression parser recurses once per level, and the assembler also runs on bare metal,
/// where the stack has no guard page. Measured on the host, a parenthesis level takes about
/// 450 bytes of stack in a release build (900 in a debug build), a prefix operator about 150
/// (330): 32 levels stay under 16 KiB (32 KiB), while real code nests a handful of levels.
/// Deeper input is an [`AsmErrorKind::NestingTooDeep`] error, never a deeper recursion.
pub const MAX_NESTING: u32 = 32;

/// Largest `.align` exponent: 2^17 = half of the 256 KiB local store.
const MAX_ALIGN_EXPONENT: i64 = 17;

/// `lnop` and `nop`, the code padding of GNU `as` for SPU (`spu_handle_align`).
const LNOP: u32 = 0x0020_0000;
const NOP: u32 = 0x4020_0000;

/// The result of [`assemble`].
#[derive(Clone, Debug)]
pub struct Program<'src, const SYMS: usize> {
    /// Bytes of the image used: `image[..len]` is the program.
    pub len: usize,
    /// Size of `.text` (it starts at address 0).
    pub text_len: usize,
    /// Address of `.data`: after the text, aligned to 16 bytes or to its largest `.align`.
    pub data_start: usize,
    /// Size of `.data`.
    pub data_len: usize,
    /// Entry point: the `_start` label, else 0.
    pub entry: u32,
    /// Every label with its address.
    pub symbols: SymbolTable<'src, SYMS>,
}

impl<const SYMS: usize> Program<'_, SYMS> {
    /// Address of the label `name` (e.g. to set a breakpoint).
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.symbols.get(name)
    }
}

/// Assembles `source` into `image` (big-endian words, loadable at local-store address 0).
///
/// Bytes of `image` outside the program are left untouched, except the gap between the end
/// of `.text` and the start of `.data`, which is zeroed.
///
/// ```
/// use pmprobe::spu::isa::asm::assemble;
/// let mut image = [0u8; 64];
/// let program = assemble::<8>("_start: il $3,10\nloop: ai $3,$3,-1\n brnz $3,loop\n stop", &mut image)
///     .unwrap();
/// assert_eq!(program.len, 16);
/// assert_eq!(program.symbol("loop"), Some(4));
/// assert_eq!(&image[12..16], &[0, 0, 0, 0]); // stop
/// ```
pub fn assemble<'src, const SYMS: usize>(
    source: &'src str,
    image: &mut [u8],
) -> Result<Program<'src, SYMS>, AsmError> {
    let mut pass = Pass::<SYMS> {
        final_pass: false,
        section: Section::Text,
        text_offset: 0,
        data_offset: 0,
        data_start: 0,
        data_alignment: 16,
        capacity: image.len(),
        image: None,
        symbols: SymbolTable::new(),
        location: 0,
    };
    pass.run(source)?;
    let text_len = pass.text_offset;
    let data_len = pass.data_offset;
    // `.data` starts on a boundary of its largest `.align`, so pass-1 offsets stay valid.
    let data_start = text_len.next_multiple_of(pass.data_alignment);
    for symbol in pass.symbols.entries.iter_mut() {
        let address = match symbol.section {
            Section::Text => symbol.offset,
            Section::Data => data_start + symbol.offset,
        };
        symbol.address = u32::try_from(address).unwrap_or(u32::MAX);
    }
    let len = if data_len > 0 {
        data_start + data_len
    } else {
        text_len
    };
    // Pass 2 reports an overflow caused by the data start rounding at the statement that
    // first writes past the image.
    if let Some(gap) = image.get_mut(text_len..data_start.min(image.len())) {
        gap.fill(0);
    }
    pass.final_pass = true;
    pass.section = Section::Text;
    pass.text_offset = 0;
    pass.data_offset = 0;
    pass.data_start = data_start;
    pass.image = Some(image);
    pass.run(source)?;
    let symbols = pass.symbols;
    let entry = symbols.get("_start").unwrap_or(0);
    Ok(Program {
        len,
        text_len,
        data_start,
        data_len,
        entry,
        symbols,
    })
}

struct Pass<'src, 'img, const SYMS: usize> {
    final_pass: bool,
    section: Section,
    text_offset: usize,
    data_offset: usize,
    data_start: usize,
    /// Largest alignment requested in `.data` (at least 16).
    data_alignment: usize,
    capacity: usize,
    image: Option<&'img mut [u8]>,
    symbols: SymbolTable<'src, SYMS>,
    /// Address of the statement being assembled (for `.` and pc-relative operands).
    location: i64,
}

impl<const SYMS: usize> Resolver for Pass<'_, '_, SYMS> {
    fn location(&self) -> Option<i64> {
        self.final_pass.then_some(self.location)
    }

    fn label(&self, name: &str) -> Result<Option<i64>, AsmErrorKind> {
        if !self.final_pass {
            return Ok(None);
        }
        match self.symbols.get(name) {
            Some(address) => Ok(Some(i64::from(address))),
            None => Err(AsmErrorKind::UnknownLabel(expr::name(name))),
        }
    }
}

/// Splits a line into statements: cut at `#`, split at `;`.
fn statements(line: &str) -> impl Iterator<Item = Span<'_>> {
    let code = line.split('#').next().unwrap_or("");
    code.split(';').scan(0usize, |start, text| {
        let span = Span {
            text,
            offset: *start,
        };
        *start += text.len() + 1;
        Some(span)
    })
}

/// Splits an operand list at top-level commas.
fn split_operands<'s>(span: Span<'s>, out: &mut heapless::Vec<Span<'s>, 8>) -> PResult<()> {
    let span = span.trim();
    if span.text.is_empty() {
        return Ok(());
    }
    // `isize`: a line cannot hold more than `isize::MAX` parentheses, so this never overflows.
    let mut depth = 0isize;
    let mut start = 0usize;
    for (i, c) in span.text.bytes().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b',' if depth == 0 => {
                push_operand(span, start, i, out)?;
                start = i + 1;
            }
            _ => {}
        }
    }
    push_operand(span, start, span.text.len(), out)
}

fn push_operand<'s>(
    span: Span<'s>,
    start: usize,
    end: usize,
    out: &mut heapless::Vec<Span<'s>, 8>,
) -> PResult<()> {
    let piece = Span {
        text: span.text.get(start..end).unwrap_or(""),
        offset: span.offset + start,
    };
    out.push(piece).map_err(|_| Located {
        offset: piece.offset,
        kind: AsmErrorKind::UnexpectedToken {
            expected: "end of statement (too many operands)",
        },
    })
}

struct Opcode {
    base_word: u32,
    format: super::opcodes::Format,
    forms: &'static [&'static [OperandKind]],
}

fn lookup(mnemonic: &str) -> Option<Opcode> {
    if let Some(row) = OPCODES
        .iter()
        .find(|row| row.name.eq_ignore_ascii_case(mnemonic))
    {
        return Some(Opcode {
            base_word: row.base_word(),
            format: row.format,
            forms: row.forms,
        });
    }
    VARIANTS
        .iter()
        .find(|v| v.name.eq_ignore_ascii_case(mnemonic))
        .map(|v| {
            let row = Mnemonic::info(v.base);
            Opcode {
                base_word: row.base_word() | (u32::from(v.feature) << FEATURE_SHIFT),
                format: row.format,
                forms: v.forms,
            }
        })
}

impl<'src, const SYMS: usize> Pass<'src, '_, SYMS> {
    fn run(&mut self, source: &'src str) -> Result<(), AsmError> {
        for (index, raw_line) in source.split('\n').enumerate() {
            let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
            let line_number = u32::try_from(index + 1).unwrap_or(u32::MAX);
            for stmt in statements(line) {
                self.statement(stmt).map_err(|e| AsmError {
                    line: line_number,
                    column: u32::try_from(e.offset + 1).unwrap_or(u32::MAX),
                    kind: e.kind,
                })?;
            }
        }
        Ok(())
    }

    fn offset(&self) -> usize {
        match self.section {
            Section::Text => self.text_offset,
            Section::Data => self.data_offset,
        }
    }

    fn address(&self) -> usize {
        match self.section {
            Section::Text => self.text_offset,
            Section::Data => self.data_start + self.data_offset,
        }
    }

    /// Appends bytes (pass 2 writes them) to the current section.
    fn emit(&mut self, bytes: &[u8], at: usize) -> PResult<()> {
        let address = self.address();
        let overflow = Located {
            offset: at,
            kind: AsmErrorKind::ImageOverflow {
                capacity: self.capacity,
            },
        };
        let end = address.checked_add(bytes.len()).ok_or(overflow)?;
        if end > self.capacity {
            return Err(overflow);
        }
        if let Some(image) = self.image.as_deref_mut() {
            image
                .get_mut(address..end)
                .ok_or(overflow)?
                .copy_from_slice(bytes);
        }
        match self.section {
            Section::Text => self.text_offset += bytes.len(),
            Section::Data => self.data_offset += bytes.len(),
        }
        Ok(())
    }

    fn statement(&mut self, stmt: Span<'src>) -> PResult<()> {
        let mut rest = stmt.trim();
        // Labels.
        loop {
            let len = ident_len(rest.text);
            if len == 0 || rest.text.as_bytes().get(len) != Some(&b':') {
                break;
            }
            let label = rest.text.get(..len).unwrap_or("");
            self.define_label(label, rest.offset)?;
            rest = Span {
                text: rest.text.get(len + 1..).unwrap_or(""),
                offset: rest.offset + len + 1,
            }
            .trim();
        }
        if rest.text.is_empty() {
            return Ok(());
        }
        self.location = i64::try_from(self.address()).unwrap_or(i64::MAX);
        let word_len = rest
            .text
            .bytes()
            .take_while(|c| !c.is_ascii_whitespace())
            .count();
        let word = rest.text.get(..word_len).unwrap_or("");
        let operands = Span {
            text: rest.text.get(word_len..).unwrap_or(""),
            offset: rest.offset + word_len,
        };
        if word.starts_with('.') {
            self.directive(word, rest.offset, operands)
        } else {
            self.instruction(word, rest.offset, operands)
        }
    }

    fn define_label(&mut self, label: &'src str, at: usize) -> PResult<()> {
        if self.final_pass {
            return Ok(());
        }
        if self.symbols.find(label).is_some() {
            return err(at, AsmErrorKind::DuplicateLabel(name(label)));
        }
        let symbol = Symbol {
            name: label,
            address: 0,
            section: self.section,
            offset: self.offset(),
        };
        self.symbols.entries.push(symbol).map_err(|_| Located {
            offset: at,
            kind: AsmErrorKind::TooManySymbols { capacity: SYMS },
        })
    }

    fn instruction(&mut self, mnemonic: &str, at: usize, operands: Span<'_>) -> PResult<()> {
        let opcode = match lookup(mnemonic) {
            Some(op) => op,
            None => return err(at, AsmErrorKind::UnknownMnemonic(name(mnemonic))),
        };
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
        split_operands(operands, &mut spans)?;
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
        for (kind, span) in form.iter().zip(spans.iter()) {
            word |= operand(*kind, *span, opcode.format, self.location, self)?;
        }
        self.emit(&word.to_be_bytes(), at)
    }
}
