//! Two-pass, heap-free SPU assembler for the GNU `as` SPU syntax.
//!
//! [`assemble`] reads source text and writes a flat local-store image into a caller-provided
//! byte slice, returning a [`Program`] (image length, entry point, sections, symbol table).
//! The aim is GNU `as` compatibility (binutils `gas/config/tc-spu.c` plus generic gas): a
//! source GNU `as` accepts assembles to the bytes a simple SPU link of its object would
//! hold, and anything else is an [`AsmError`] with a line, a column and what is wrong. No
//! statement is skipped silently. `docs/spu-assembler.md` lists every construct with an
//! example, and the deliberate differences.
//!
//! # Structure
//! - `text`: comments (`#` to the end of the line, `/* ... */` across lines), statements
//!   (`;`), operand lists;
//! - `expr`: expressions with GNU precedence; `register`: `$N`, `$lr`, channel names;
//! - `expand`: the line reader, macro and repeat bodies, conditionals, with fixed limits;
//!   `macros`: parameters, arguments and `\name`/`\@` substitution;
//! - `pass`: labels, assignments, instructions; `encode`/`instruction`: operand encoding;
//! - `directive` and `data`: directives; `section`: sections and their layout in local
//!   store; `symbols`: the symbol table.
//!
//! `.include` and `.incbin` need files: the library reads one text and reports them as
//! [`AsmErrorKind::NeedsFileAccess`] where it reaches them; `tools/spusim` inlines included
//! files and `.incbin` bytes (and runs `.S` files through the C preprocessor) before calling
//! [`assemble`], leaving a directive whose file it cannot read for this error to report only
//! if assembly reaches it (not inside a false `.if`).
//!
//! # Memory
//! Everything is fixed-capacity: `SYMS` symbols, [`MAX_SECTIONS`] sections,
//! [`macros::MAX_MACROS`] macros, [`MAX_EXPANSION_DEPTH`] nested expansions, lines of
//! [`MAX_LINE`] bytes, [`MAX_LINES_PER_PASS`] lines read per pass. Exceeding one is a typed
//! error naming the limit.

mod cond;
mod data;
mod directive;
mod encode;
mod error;
mod expand;
mod expr;
mod instruction;
pub mod macros;
mod pass;
mod reader;
mod register;
mod section;
mod symbols;
mod text;

pub use error::{AsmError, AsmErrorKind, Name};
pub use pass::MAX_LOCAL_NUMBERS;
pub use reader::{MAX_CONDITIONALS, MAX_EXPANSION_DEPTH, MAX_LINES_PER_PASS, MAX_REPEAT};
pub use section::{MAX_SECTIONS, SectionInfo, SectionKind};
pub use symbols::{MAX_NAME, Symbol, SymbolName, SymbolTable, SymbolValue};
pub use text::MAX_LINE;

use pass::Pass;
use section::Sections;

/// Deepest nesting of prefix operators (`-`, `+`, `~`, `!`) and parentheses in one
/// expression.
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
pub struct Program<const SYMS: usize> {
    /// Bytes of the image used: `image[..len]` is the program (zero-initialised sections
    /// come after it and have no bytes in the image).
    pub len: usize,
    /// Size of the code sections (they start at address 0).
    pub text_len: usize,
    /// Address of the first data section (after the code, aligned to 16 bytes or to its
    /// largest `.align`); `text_len` rounded up when there is none.
    pub data_start: usize,
    /// Bytes from `data_start` to the end of the image.
    pub data_len: usize,
    /// Entry point: the `_start` label, else 0.
    pub entry: u32,
    /// Every section with its place in local store, in the order they first appear.
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
    let mut pass = Pass::<SYMS> {
        final_pass: false,
        source,
        image: None,
        capacity: image.len(),
        symbols: SymbolTable::new(),
        sections: Sections::new(),
        offsets: [0; MAX_SECTIONS],
        current: 0,
        previous: 0,
        section_stack: heapless::Vec::new(),
        location: 0,
        locals: heapless::Vec::new(),
        expander: reader::Expander::new(),
        ended: false,
    };
    let start = |pass: &mut Pass<'_, '_, SYMS>| {
        pass.offsets = [0; MAX_SECTIONS];
        pass.current = 0;
        pass.previous = 0;
        pass.section_stack.clear();
        pass.locals.clear();
        pass.ended = false;
        for symbol in pass.symbols.entries.iter_mut() {
            symbol.defined = false;
        }
    };
    // `.text` is always section 0, at address 0.
    let _ = pass.sections.open(".text", Some(SectionKind::Code));
    start(&mut pass);
    pass.run()?;
    let layout = pass.sections.layout();
    for symbol in pass.symbols.entries.iter_mut() {
        if let SymbolValue::Label { section, offset } = symbol.value {
            let base = pass.sections.get(section).map_or(0, |s| s.address);
            symbol.address = base.saturating_add(offset);
        }
    }
    let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    let len = to_usize(layout.data_end.max(layout.text_end));
    let data_start = layout
        .data_start
        .map_or(to_usize(layout.text_end.next_multiple_of(16)), to_usize);
    // Zero the gaps between sections (the second pass writes everything else).
    let mut previous_end = 0u64;
    let mut placed: heapless::Vec<(u64, u64), MAX_SECTIONS> = pass
        .sections
        .list
        .iter()
        .filter(|s| s.kind != SectionKind::Bss)
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
    pass.run()?;
    if layout.end > pass.capacity as u64 {
        return Err(AsmError {
            line: 1,
            column: 1,
            kind: AsmErrorKind::ImageOverflow {
                capacity: pass.capacity,
            },
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
