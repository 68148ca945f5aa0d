//! Two-pass, heap-free SPU assembler for the GNU `as` SPU syntax, with the link of several
//! sources.
//!
//! [`assemble`] reads source text and writes a flat local-store image into a caller-provided
//! byte slice, returning a [`Program`] (image length, entry point, sections, symbol table);
//! [`link`] does so for several sources, as `spu-ld` links their objects (`link`).
//! The aim is GNU `as` 2.40 compatibility (binutils `gas/config/tc-spu.c` plus generic gas):
//! a source GNU `as` accepts assembles to the bytes spu-ld's default link of its object puts
//! in local store, and anything else is an [`AsmError`] with a line, a column and what is
//! wrong. No statement is skipped silently. `docs/spu-assembler.md` lists every construct
//! with an example, and the deliberate differences.
//!
//! # Structure
//! - `text`: comments (`#` to the end of the line, `/* ... */` across lines), statements
//!   (`;`), operand lists;
//! - `value`, `expr`: values (numbers and addresses in sections) and expressions with gas's
//!   precedence; `register`: registers and channels as gas's `get_reg` reads them;
//! - `reader`, `expand`, `blocks`: the line reader, macro and repeat bodies, conditionals
//!   (`cond`), with fixed limits; `macros`: parameters, arguments and `\name`/`\@`
//!   substitution; `pseudo_op`: which words gas reads as directives;
//! - `pass`: statements and byte output; `binding`: symbols and their (re)definitions;
//!   `encode`/`instruction`: operand encoding;
//! - `directive`, `data`, `space`, `align`, `commons`: directives; `section`: sections and
//!   their attributes; `layout`: where spu-ld puts them; `symbols`: the symbol table;
//!   `symbol_attributes`: binding, type, size, visibility;
//! - `link`: several sources into one program; `linker_symbols`: the symbols ld's script
//!   and `--defsym` define.
//!
//! `.include` and `.incbin` need files: the library reads one text and reports them as
//! [`AsmErrorKind::NeedsFileAccess`] where it reaches them; `tools/spusim` inlines included
//! files and `.incbin` bytes (and runs `.S` files through the C preprocessor) before calling
//! [`assemble`], leaving a directive whose file it cannot read for this error to report only
//! if assembly reaches it (not inside a false `.if`).
//!
//! # Memory
//! Everything is fixed-capacity: `SYMS` symbols, [`MAX_SECTIONS`] sections,
//! [`macros::MAX_MACROS`] macros, [`MAX_EXPANSION_DEPTH`] nested expansions sharing
//! [`macros::ARG_BYTES`] of arguments, lines of [`MAX_LINE`] bytes, [`MAX_LINES_PER_PASS`]
//! lines read per pass. Exceeding one is a typed error naming the limit.

mod align;
mod binding;
mod blocks;
mod commons;
mod cond;
mod data;
mod directive;
mod encode;
mod error;
mod expand;
mod expr;
mod instruction;
mod layout;
mod link;
mod linker_symbols;
pub mod macros;
mod pass;
mod program;
mod pseudo_op;
mod reader;
mod register;
mod reloc;
mod section;
mod space;
mod symbol_attributes;
mod symbol_directives;
mod symbols;
mod text;
mod value;

pub use commons::MAX_LINK_COMMONS;
pub(crate) use commons::ld_hash_bucket;
pub use error::{AsmError, AsmErrorKind, Name};
pub use expr::MAX_NESTING;
pub use layout::OutputSection;
pub use link::{MAX_SOURCES, link};
pub use linker_symbols::{LinkerDefinition, LinkerSymbol, MAX_DEFINITIONS, MAX_LINKER_SYMBOLS};
pub use pass::MAX_LOCAL_NUMBERS;
pub use pass::MAX_PIC_PATCHES;
pub use program::{MAX_OUTPUT_SECTIONS, MAX_PROGRAM_SECTIONS, Program};
pub use reader::{MAX_CONDITIONALS, MAX_EXPANSION_DEPTH, MAX_LINES_PER_PASS, MAX_REPEAT};
pub use section::{MAX_SECTIONS, SectionInfo, SectionKind};
pub use symbols::MAX_COMMONS;
pub use symbols::{
    Binding, FILE_SYMBOL_MARK, MAX_NAME, Symbol, SymbolAttributes, SymbolName, SymbolTable,
    SymbolType, SymbolValue, Visibility,
};
pub use text::MAX_LINE;

/// Assembles `source` into `image` (big-endian words, loadable at local-store address 0), as
/// `spu-as` and `spu-ld`'s default link of its object do: [`link`] of one source.
///
/// Bytes of `image` outside the program are left untouched, except the gaps between
/// sections, which are zeroed. `image.len()` is also the local-store size the program and
/// its zero-initialised sections must fit.
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
pub fn assemble<const SYMS: usize>(
    source: &str,
    image: &mut [u8],
) -> Result<Program<SYMS>, AsmError> {
    link(&[source], &[], image)
}
