//! Two-pass, heap-free SPU assembler for the GNU `as` SPU syntax.
//!
//! [`assemble`] reads source text and writes a flat local-store image into a caller-provided
//! byte slice, returning a [`Program`] (image length, entry point, sections, symbol table).
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
//!   their attributes; `layout`: where spu-ld puts them; `symbols`: the symbol table.
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
pub mod macros;
mod pass;
mod pseudo_op;
mod reader;
mod register;
mod reloc;
mod section;
mod space;
mod symbols;
mod text;
mod value;

pub use error::{AsmError, AsmErrorKind, Name};
pub use expr::MAX_NESTING;
pub use pass::MAX_LOCAL_NUMBERS;
pub use reader::{MAX_CONDITIONALS, MAX_EXPANSION_DEPTH, MAX_LINES_PER_PASS, MAX_REPEAT};
pub use section::{MAX_SECTIONS, SectionInfo, SectionKind};
pub use symbols::MAX_COMMONS;
pub use symbols::{MAX_NAME, Symbol, SymbolName, SymbolTable, SymbolValue};
pub use text::MAX_LINE;

use pass::Pass;

/// The result of [`assemble`].
#[derive(Clone, Debug)]
pub struct Program<const SYMS: usize> {
    /// Bytes of the image used: `image[..len]` is the program, up to the end of the last
    /// section with bytes (zero-initialised sections have none).
    pub len: usize,
    /// End of the text segment, from address 0: the code sections and the read-only data
    /// ld puts with them (`.rodata`).
    pub text_len: usize,
    /// Start of the data segment: where ld puts the first data section, at or after
    /// `ALIGN(0x80)` past the text; that address when there is none.
    pub data_start: usize,
    /// Bytes from `data_start` to the end of the image (0 without data).
    pub data_len: usize,
    /// Entry point: the `_start` label, else 0.
    pub entry: u32,
    /// Every section with its place in local store (see `layout` for where ld puts each), in
    /// the order they first appear.
    pub sections: heapless::Vec<SectionInfo, MAX_SECTIONS>,
    /// Every symbol with its address or value.
    pub symbols: SymbolTable<SYMS>,
}

impl<const SYMS: usize> Program<SYMS> {
    /// Address of the symbol `name` (e.g. to set a breakpoint).
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.symbols.get(name)
    }

    /// The section called `name`.
    pub fn section(&self, name: &str) -> Option<&SectionInfo> {
        self.sections.iter().find(|s| s.name == name)
    }
}

/// Assembles `source` into `image` (big-endian words, loadable at local-store address 0).
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
    let mut expander = reader::Expander::new();
    let mut pass = Pass::<SYMS>::new(source, image.len(), &mut expander);
    let start = |pass: &mut Pass<'_, '_, SYMS>| {
        pass.offsets = [0; MAX_SECTIONS];
        pass.current = 0;
        pass.previous = 0;
        pass.section_stack.clear();
        pass.locals.clear();
        pass.ended = false;
        pass.next_common = 0;
        for symbol in pass.symbols.entries.iter_mut() {
            symbol.defined = false;
        }
    };
    // `.text` is always section 0 (gas creates it first).
    let _ = pass.sections.open(".text", None, None);
    start(&mut pass);
    pass.run()?;
    pass.place_commons();
    pass.finish()?;
    let layout = layout::place(&mut pass.sections.list);
    for symbol in pass.symbols.entries.iter_mut() {
        // A use before any definition takes the first one, as gas's fixup does.
        if symbol.first != SymbolValue::Unresolved {
            symbol.value = symbol.first;
        }
        symbol.address = match symbol.value {
            SymbolValue::Label { section, offset } => pass
                .sections
                .get(section)
                .map_or(0, |s| s.address)
                .saturating_add(offset),
            SymbolValue::Absolute(v) => v as u32,
            SymbolValue::Unresolved => symbol.address,
        };
    }
    let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    let len = to_usize(layout.image_end);
    let data_start = to_usize(layout.data_start);
    // Zero the gaps between sections (the second pass writes everything else).
    let mut previous_end = 0u64;
    let mut placed: heapless::Vec<(u64, u64), MAX_SECTIONS> = pass
        .sections
        .list
        .iter()
        .filter(|s| matches!(s.kind, SectionKind::Code | SectionKind::Data))
        .map(|s| {
            (
                u64::from(s.address),
                u64::from(s.address) + u64::from(s.size),
            )
        })
        .collect();
    placed.sort_unstable();
    for (begin, end) in placed {
        if let Some(gap) = image.get_mut(to_usize(previous_end)..to_usize(begin).min(image.len())) {
            gap.fill(0);
        }
        previous_end = previous_end.max(end);
    }
    pass.final_pass = true;
    pass.image = Some(image);
    start(&mut pass);
    // The second pass reports bytes past the image at their statement; zero-initialised
    // sections past it have no statement to blame.
    pass.run()?;
    pass.finish()?;
    if layout.end > pass.capacity as u64 {
        return Err(AsmError {
            line: 1,
            column: 1,
            kind: AsmErrorKind::ImageOverflow {
                capacity: pass.capacity,
            },
            invoked_at: None,
        });
    }
    let entry = pass.symbols.get("_start").unwrap_or(0);
    Ok(Program {
        len,
        text_len: to_usize(layout.text_end),
        data_start,
        data_len: len.saturating_sub(data_start),
        entry,
        sections: pass.sections.list.clone(),
        symbols: pass.symbols,
    })
}

impl<const SYMS: usize> Pass<'_, '_, SYMS> {
    /// The end of a pass: every section's size rounded to its alignment, as gas does.
    fn finish(&mut self) -> Result<(), AsmError> {
        self.round_sections().map_err(|e| AsmError {
            line: self.expander.line.max(1),
            column: 1,
            kind: e.kind,
            invoked_at: None,
        })
    }
}
