//! The listing: one line per word of an image, in the disassembler's [`Syntax::Listing`], which
//! the assembler reads back to the same words.

use core::fmt;

use super::decode::decode;
use super::disasm::{SymbolLookup, Syntax, write_instruction};

/// Writes a listing of `image[start..end]` (one instruction per line, big-endian words):
/// a `name:` line for each address a symbol names, then
/// `  0x0004: 1cffc183  ai\t$3,$3,-1` (address, word, [`Syntax::Listing`] text). Words that
/// decode to nothing print as objdump prints them, `.long 0x800000`. A trailing partial word
/// (fewer than 4 bytes) is ignored. Without the address and word columns, the lines assemble to the same
/// words.
///
/// ```
/// use pmprobe::spu::isa::{asm::assemble, write_listing};
/// let mut image = [0u8; 16];
/// let program = assemble::<4>("loop: brnz $3,loop\n.word 0x00800000", &mut image).unwrap();
/// let mut text = heapless::String::<256>::new();
/// write_listing(&image, 0, program.len, &program.symbols, &mut text).unwrap();
/// assert_eq!(
///     text.as_str(),
///     "loop:\n  0x0000: 21000003  brnz\t$3,loop\n  0x0004: 00800000  .long 0x800000\n"
/// );
/// ```
pub fn write_listing<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    image: &[u8],
    start: usize,
    end: usize,
    symbols: &S,
    out: &mut W,
) -> fmt::Result {
    let bytes = image.get(start..end.min(image.len())).unwrap_or(&[]);
    for (index, chunk) in bytes.chunks_exact(4).enumerate() {
        let address = start + index * 4;
        let pc = u32::try_from(address).unwrap_or(u32::MAX);
        let Ok(word_bytes) = <[u8; 4]>::try_from(chunk) else {
            continue;
        };
        let word = u32::from_be_bytes(word_bytes);
        if let Some(name) = symbols.symbol_at(pc) {
            writeln!(out, "{name}:")?;
        }
        write!(out, "  {pc:#06x}: {word:08x}  ")?;
        match decode(word) {
            Ok(inst) => write_instruction(&inst, pc, symbols, Syntax::Listing, out)?,
            // objdump's text, which GNU `as` reads back too.
            Err(_) => write!(out, ".long {word:#x}")?,
        }
        out.write_char('\n')?;
    }
    Ok(())
}
