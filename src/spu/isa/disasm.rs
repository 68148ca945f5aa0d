//! Disassembler to the standard SPU assembly syntax (the `spu-objdump` spelling).
//!
//! - Registers print as `$N` (`$0` is the link register, `$1` the stack pointer); special
//!   purpose registers as `$spN`, channels as `$chN` (binutils' spelling, which the assembler
//!   accepts back).
//! - Immediates print in decimal; D-form offsets in bytes: `lqd $3,16($1)`.
//! - Branch targets, hint branch addresses and absolute addresses (`br`, `brnz`, `hbrr`, `hbra`,
//!   `lqa`, `lqr`, ...) print as *absolute* addresses computed from the instruction's own
//!   address `pc`: a symbol name when a [`SymbolLookup`] knows that exact address, otherwise
//!   lower-case hex (`0x1a0`). The assembler reads both back (a number given for a pc-relative
//!   operand is an absolute address there too), so the listing reassembles to the same words.
//! - Feature-bit forms print by their binutils name: `bid $0`, `bisle $0,$3`, `syncc`, `hbrp`,
//!   `iretd`. A feature-bit combination binutils does not name (e.g. D and E together, or D on
//!   `sync`) prints the base instruction followed by `# feature bits 0x30`; the line still
//!   assembles, without those bits.
//! - Optional operands are left out when their field is zero: `nop`, `iret`, `stop`,
//!   `heq $3,$4` (but `nop $127`, `stop 8192`).
//! - Synonyms (`lr`, `bit`, ...) are never printed: their base names are (`ori $3,$4,0`).

use core::fmt;

use super::decode::{Instruction, decode};
use super::opcodes::{OperandKind, VARIANTS};

/// Resolves an address to a label for the disassembler.
pub trait SymbolLookup {
    /// The name of the symbol defined exactly at `address`, if any.
    fn symbol_at(&self, address: u32) -> Option<&str>;
}

/// No symbols: every address prints in hex.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSymbols;

impl SymbolLookup for NoSymbols {
    fn symbol_at(&self, _address: u32) -> Option<&str> {
        None
    }
}

/// Writes the assembly text of `inst` located at `pc` (no trailing newline).
///
/// ```
/// use pmprobe::spu::isa::{NoSymbols, decode, disassemble};
/// let mut s = heapless::String::<64>::new();
/// let fma = decode(0xe643_19b4).unwrap();
/// disassemble(&fma, 0, &NoSymbols, &mut s).unwrap();
/// assert_eq!(s.as_str(), "fma $50,$51,$12,$52");
/// ```
pub fn disassemble<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    inst: &Instruction,
    pc: u32,
    symbols: &S,
    out: &mut W,
) -> fmt::Result {
    let info = inst.info();
    let features = inst.feature_bits();
    // Feature bits print as the binutils variant name (`bid`, `syncc`, `hbrp`, ...). A
    // combination binutils has no name for is printed as a trailing comment instead, so the
    // line still assembles (to the instruction without those bits).
    let variant = VARIANTS
        .iter()
        .find(|v| !v.synonym && v.base == inst.mnemonic && v.feature == features);
    let unnamed_features = if variant.is_some() { 0 } else { features };
    out.write_str(variant.map_or(info.name, |v| v.name))?;
    let form = if variant.is_some_and(|v| v.forms.iter().all(|f| f.is_empty())) {
        // hbrp, syncc: no operands.
        &[]
    } else {
        choose_form(inst)
    };
    for (index, kind) in form.iter().enumerate() {
        out.write_str(if index == 0 { " " } else { "," })?;
        write_operand(*kind, inst, pc, symbols, out)?;
    }
    if unnamed_features != 0 {
        write!(out, " # feature bits {unnamed_features:#04x}")?;
    }
    Ok(())
}

/// The shortest accepted form whose omitted operands are all zero; the full form otherwise.
fn choose_form(inst: &Instruction) -> &'static [OperandKind] {
    let forms = inst.info().forms;
    let full: &'static [OperandKind] = forms.first().copied().unwrap_or(&[]);
    let mut best = full;
    for form in forms.iter().skip(1) {
        let omitted_are_zero = full
            .iter()
            .filter(|kind| !form.contains(kind))
            .all(|kind| operand_is_zero(*kind, inst));
        if omitted_are_zero && form.len() < best.len() {
            best = form;
        }
    }
    best
}

fn operand_is_zero(kind: OperandKind, inst: &Instruction) -> bool {
    match kind {
        OperandKind::Rt => inst.rt == 0,
        OperandKind::Ra => inst.ra == 0,
        OperandKind::Rb => inst.rb == 0,
        OperandKind::Rc => inst.rc == 0,
        OperandKind::U14 => inst.stop_signal() == 0,
        _ => false,
    }
}

fn write_address<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    address: i64,
    symbols: &S,
    out: &mut W,
) -> fmt::Result {
    if let Ok(a) = u32::try_from(address)
        && let Some(name) = symbols.symbol_at(a)
    {
        return out.write_str(name);
    }
    if address < 0 {
        write!(out, "-{:#x}", address.unsigned_abs())
    } else {
        write!(out, "{address:#x}")
    }
}

fn write_operand<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    kind: OperandKind,
    inst: &Instruction,
    pc: u32,
    symbols: &S,
    out: &mut W,
) -> fmt::Result {
    use OperandKind::*;
    let field7 = inst.imm & 0x7f;
    match kind {
        Rt => write!(out, "${}", inst.rt),
        Ra => write!(out, "${}", inst.ra),
        Rb => write!(out, "${}", inst.rb),
        Rc => write!(out, "${}", inst.rc),
        Spr => write!(out, "$sp{}", inst.ra),
        Channel => write!(out, "$ch{}", inst.ra),
        S3 | S6 | S7N | S7 | S10B | S10 | S16 | U18 => write!(out, "{}", inst.imm),
        U3 | U5 | U6 | U7 => write!(out, "{field7}"),
        U7A => write!(out, "{}", 173 - inst.imm),
        U7B => write!(out, "{}", 155 - inst.imm),
        X16 => write!(out, "{}", inst.imm & 0xffff),
        U14 => write!(out, "{}", inst.stop_signal()),
        MemS14 => write!(out, "{}(${})", inst.imm * 16, inst.ra),
        MemU7 => write!(out, "{field7}(${})", inst.ra),
        S11 | S11I => write_address(
            i64::from(pc) + i64::from(inst.hint_offset) * 4,
            symbols,
            out,
        ),
        S18 => write_address(i64::from(inst.imm & 0xffff) * 4, symbols, out),
        R18 => write_address(i64::from(pc) + i64::from(inst.imm) * 4, symbols, out),
    }
}

/// [`fmt::Display`] adapter returned by [`Instruction::display_at`] and
/// [`Instruction::display_with`].
pub struct DisplayAt<'a, S: SymbolLookup + ?Sized> {
    inst: &'a Instruction,
    pc: u32,
    symbols: &'a S,
}

impl<S: SymbolLookup + ?Sized> fmt::Display for DisplayAt<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        disassemble(self.inst, self.pc, self.symbols, f)
    }
}

impl Instruction {
    /// Displays the instruction as if located at `pc`, addresses in hex.
    pub fn display_at(&self, pc: u32) -> DisplayAt<'_, NoSymbols> {
        DisplayAt {
            inst: self,
            pc,
            symbols: &NoSymbols,
        }
    }

    /// Displays the instruction as if located at `pc`, addresses resolved through `symbols`.
    pub fn display_with<'a, S: SymbolLookup + ?Sized>(
        &'a self,
        pc: u32,
        symbols: &'a S,
    ) -> DisplayAt<'a, S> {
        DisplayAt {
            inst: self,
            pc,
            symbols,
        }
    }
}

/// Writes a listing of `image[start..end]` (one instruction per line, big-endian words):
/// a `name:` line for each address a symbol names, then
/// `  0x0004: 1cffc183  ai $3,$3,-1`. Words that decode to nothing print as
/// `.long 0x........` (binutils' spelling, which the assembler accepts).
/// A trailing partial word (fewer than 4 bytes) is ignored.
///
/// ```
/// use pmprobe::spu::isa::{asm::assemble, write_listing};
/// let mut image = [0u8; 16];
/// let program = assemble::<4>("loop: brnz $3,loop\n.word 0x00800000", &mut image).unwrap();
/// let mut text = heapless::String::<256>::new();
/// write_listing(&image, 0, program.len, &program.symbols, &mut text).unwrap();
/// assert_eq!(
///     text.as_str(),
///     "loop:\n  0x0000: 21000003  brnz $3,loop\n  0x0004: 00800000  .long 0x00800000\n"
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
            Ok(inst) => disassemble(&inst, pc, symbols, out)?,
            Err(_) => write!(out, ".long {word:#010x}")?,
        }
        out.write_char('\n')?;
    }
    Ok(())
}
