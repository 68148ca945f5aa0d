//! Disassembler: GNU `objdump -d`'s SPU text, and two renderings derived from it.
//!
//! [`Syntax::Objdump`] is binutils' `print_insn_spu` (`opcodes/spu-dis.c`) to the character,
//! checked word by word against objdump 2.40 (`tests/data/spu_objdump_sweep.txt`):
//!
//! - One opcode prints as the first binutils table entry for it, with all of that entry's
//!   operands, zero or not: `nop\t$0`, `iret\t$0`, `hgt\t$0,$4,$5`; `stop` without its
//!   signal (binutils lists the operand-less `stop` first); `ori`, never its synonym `lr`.
//! - The branch-indirect forms, `sync` and `hbr` append a letter per feature bit set in bits
//!   11-13: `p` (`c` for `sync`), then `d`, then `e`: `bid`, `bide`, `syncc`, `hbrp`
//!   (`hbrp` keeps `hbr`'s operands).
//! - A tab separates the mnemonic from the operands; immediates print in decimal, sign-extended
//!   where the field is signed (every I7 form, `cbd -1($1)`, I10, I16), unsigned for I8 scales
//!   (`173 - I8` for `cflts`/`cfltu`, `155 - I8` for `csflt`/`cuflt`), X16, I18 and `stop`.
//! - Addresses (branch and hint targets, `lqa`, `lqr`, ...) print absolute, `0x` and lower-case
//!   hex when no symbol covers them: pc-relative ones masked to the 256 KiB local store, hint
//!   branch addresses to 32 bits. A zero I16 of a relative or absolute address prints `0`.
//! - When the last immediate printed is above 16 (a relative target counts, as the target),
//!   `\t# ` and its hex value follow: `ai\t$3,$3,100\t# 64`.
//! - A word no opcode matches is `.long 0x` and its hex value, without leading zeros.
//!
//! [`Syntax::Compact`] is the same text on one space-separated line: the tab becomes a space
//! and the `# hex` comment is left out (the pipeline traces and the Kanata log use it, whose
//! columns and tab-separated fields a tab would break).
//!
//! [`Syntax::Listing`] is what [`write_listing`](super::write_listing) prints, assembler input
//! that reassembles to the same word, with GNU `as` 2.40 as with this assembler. It is
//! objdump's text except where that would not read back:
//!
//! - a pc-relative operand (`br`, `brsl`, `brz`..., `lqr`, `stqr`, hint addresses) is the label
//!   of a symbol at the target, else the distance from the instruction: `.`, `.+0x40`,
//!   `.-0x4`. gas reads a number there as the byte offset itself and an address as the
//!   target, so objdump's `br\t0x60` would mean another word;
//! - an absolute address (`bra`, `lqa`, ...) is a label or the number;
//! - `nop` is written without its `$0`: gas reads `nop` as its `.nop` pseudo-op, whose operand
//!   is a byte count, so `nop $5` or `nop 5` has no spelling and such a word is `.long`;
//! - the unsigned I7 operands (shift counts, `dftsv`'s mask, `cbd`'s offset) print their seven
//!   bits unsigned: `shli\t$1,$2,127` where objdump prints `-1` (gas refuses a negative
//!   `shli`);
//! - where objdump's text leaves bits of the word unsaid, a longer form of the same opcode says
//!   them (`stop\t8192`); `hbrp` is written without operands, as GNU `as` spells it;
//! - a word no form says (a bit set in an ignored field, a feature combination GNU `as` has no
//!   name for such as `bide`, a value it refuses such as `rothmi` by 42) is written
//!   `.long 0x0000000a\t# ` followed by its compact text.

use core::fmt;

use super::decode::{Instruction, decode};
use super::opcodes::{FEATURE_C_P, FEATURE_D, FEATURE_E, Mnemonic, OperandKind};
use super::printed_forms::{listing_operands, objdump_operands};

/// Resolves an address to a label for the disassembler.
pub trait SymbolLookup {
    /// The name of the symbol defined exactly at `address`, if any.
    fn symbol_at(&self, address: u32) -> Option<&str>;

    /// The symbol objdump names `address` after (`1a4 <loop+0x4>`): the nearest one at or below
    /// it, with its address. By default only a symbol exactly at `address`.
    fn symbol_before(&self, address: u32) -> Option<(&str, u32)> {
        self.symbol_at(address).map(|name| (name, address))
    }
}

/// No symbols: every address prints in hex.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSymbols;

impl SymbolLookup for NoSymbols {
    fn symbol_at(&self, _address: u32) -> Option<&str> {
        None
    }
}

/// Which text the disassembler writes (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// GNU `objdump -d` exactly.
    Objdump,
    /// objdump's text on one line: a space for the tab, no `# hex` comment.
    Compact,
    /// Assembler input that reassembles to the same word.
    Listing,
}

/// Writes objdump's text for `inst` located at `pc` (no trailing newline).
///
/// ```
/// use pmprobe::spu::isa::{NoSymbols, decode, disassemble};
/// let mut s = heapless::String::<64>::new();
/// disassemble(&decode(0x1c19_0183).unwrap(), 0, &NoSymbols, &mut s).unwrap();
/// assert_eq!(s.as_str(), "ai\t$3,$3,100\t# 64");
/// ```
pub fn disassemble<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    inst: &Instruction,
    pc: u32,
    symbols: &S,
    out: &mut W,
) -> fmt::Result {
    write_instruction(inst, pc, symbols, Syntax::Objdump, out)
}

/// Writes objdump's text for any word at `pc`: its instruction, or `.long 0x…` when it does
/// not decode.
///
/// ```
/// use pmprobe::spu::isa::{NoSymbols, disassemble_word};
/// let mut s = heapless::String::<64>::new();
/// disassemble_word(0x0080_0000, 0, &NoSymbols, &mut s).unwrap();
/// assert_eq!(s.as_str(), ".long 0x800000");
/// ```
pub fn disassemble_word<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    word: u32,
    pc: u32,
    symbols: &S,
    out: &mut W,
) -> fmt::Result {
    match decode(word) {
        Ok(inst) => disassemble(&inst, pc, symbols, out),
        Err(_) => write!(out, ".long {word:#x}"),
    }
}

/// Writes `inst` located at `pc` in `syntax` (no trailing newline).
pub fn write_instruction<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    inst: &Instruction,
    pc: u32,
    symbols: &S,
    syntax: Syntax,
    out: &mut W,
) -> fmt::Result {
    let info = inst.info();
    let mut operands = objdump_operands(inst.mnemonic);
    if syntax == Syntax::Listing && inst.mnemonic == Mnemonic::Mtspr && inst.word & 0x7f << 14 != 0
    {
        // mtspr ignores its RB field; GNU `as` sets it only as `syscall`'s immediate.
        let i7 = ((inst.word >> 14) & 0x7f) as i32;
        let i7 = if i7 & 0x40 != 0 { i7 - 0x80 } else { i7 };
        return write!(out, "syscall\t${},${},{i7}", inst.rt, inst.ra);
    }
    if syntax == Syntax::Listing {
        match listing_operands(inst) {
            Some(form) => operands = form,
            None => {
                write!(out, ".long {:#010x}\t# ", inst.word)?;
                return write_instruction(inst, pc, symbols, Syntax::Compact, out);
            }
        }
    }
    out.write_str(info.name)?;
    if info.has_feature_bits {
        let features = inst.feature_bits();
        if features & FEATURE_C_P != 0 {
            out.write_char(if inst.mnemonic == Mnemonic::Sync {
                'c'
            } else {
                'p'
            })?;
        }
        if features & FEATURE_D != 0 {
            out.write_char('d')?;
        }
        if features & FEATURE_E != 0 {
            out.write_char('e')?;
        }
    }
    // objdump's `hex_value`: the last immediate printed, echoed in hex when above 16.
    let mut hex_value = 0i32;
    for (index, kind) in operands.iter().enumerate() {
        out.write_str(match (index, syntax) {
            (0, Syntax::Compact) => " ",
            (0, _) => "\t",
            _ => ",",
        })?;
        if let Some(value) = write_operand(*kind, inst, pc, symbols, syntax, out)? {
            hex_value = value;
        }
    }
    if syntax != Syntax::Compact && hex_value > 16 {
        write!(out, "\t# {hex_value:x}")?;
    }
    Ok(())
}

/// Writes one operand; returns the value objdump's `hex_value` takes from it, if it sets one.
fn write_operand<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    kind: OperandKind,
    inst: &Instruction,
    pc: u32,
    symbols: &S,
    syntax: Syntax,
    out: &mut W,
) -> Result<Option<i32>, fmt::Error> {
    use OperandKind::*;
    let number = |out: &mut W, value: i32| write!(out, "{value}").map(|()| Some(value));
    match kind {
        Rt => write!(out, "${}", inst.rt).map(|()| None),
        Ra => write!(out, "${}", inst.ra).map(|()| None),
        Rb => write!(out, "${}", inst.rb).map(|()| None),
        Rc => write!(out, "${}", inst.rc).map(|()| None),
        Spr => write!(out, "$sp{}", inst.ra).map(|()| None),
        Channel => write!(out, "$ch{}", inst.ra).map(|()| None),
        // Decode sign-extends I7, I10 and I16 and zero-extends I8 and I18, as binutils does.
        // GNU `as` refuses a negative value for U5 and U6, this assembler for all four; both
        // take the same seven bits unsigned.
        U3 | U5 | U6 | U7 if syntax == Syntax::Listing => number(out, inst.imm & 0x7f),
        S3 | S6 | S7N | S7 | U3 | U5 | U6 | U7 | S10B | S10 | S16 => number(out, inst.imm),
        U7A => write!(out, "{}", 173 - inst.imm).map(|()| None),
        U7B => write!(out, "{}", 155 - inst.imm).map(|()| None),
        X16 => number(out, inst.imm & 0xffff),
        U14 => number(out, i32::from(inst.stop_signal())),
        MemS14 => {
            let offset = inst.imm * 16;
            write!(out, "{offset}(${})", inst.ra).map(|()| Some(offset))
        }
        MemU7 => {
            let offset = if syntax == Syntax::Listing {
                inst.imm & 0x7f
            } else {
                inst.imm
            };
            write!(out, "{offset}(${})", inst.ra).map(|()| Some(offset))
        }
        U18 => {
            // binutils asks whether a symbol is at address 0 (not at the value) before it
            // prints an `ila` value as an address; the listing keeps the number.
            if syntax != Syntax::Listing && inst.imm != 0 && symbols.symbol_at(0).is_some() {
                write_address(inst.imm as u32, symbols, syntax, out).map(|()| None)
            } else {
                number(out, inst.imm)
            }
        }
        S11 | S11I => {
            let offset = i64::from(inst.hint_offset) * 4;
            let target = i64::from(pc) + offset;
            if syntax == Syntax::Listing {
                return write_relative(offset, target, symbols, out).map(|()| None);
            }
            write_address(target as u32, symbols, syntax, out).map(|()| None)
        }
        S18 => {
            let address = (inst.imm & 0xffff) * 4;
            if address == 0 {
                out.write_str("0").map(|()| None)
            } else {
                write_address(address as u32, symbols, syntax, out).map(|()| None)
            }
        }
        R18 => {
            let offset = inst.imm * 4;
            let target = i64::from(pc) + i64::from(offset);
            // binutils' `hex_value` is a C int: the target before the local-store mask.
            let echo = (offset != 0).then_some(target as i32);
            if syntax == Syntax::Listing {
                write_relative(i64::from(offset), target, symbols, out)?;
                Ok(echo)
            } else if offset == 0 {
                out.write_str("0").map(|()| None)
            } else {
                write_address((target as u32) & 0x3ffff, symbols, syntax, out)?;
                Ok(echo)
            }
        }
    }
}

/// A pc-relative operand in the listing: the label of a symbol at the target, else the
/// distance from the instruction, `.`, `.+0x40` or `.-0x4`. GNU `as` reads a number there as
/// the byte offset itself and an address as the target, so both spellings mean the same
/// word to it and to this assembler; a plain number would not be the target.
fn write_relative<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    offset: i64,
    target: i64,
    symbols: &S,
    out: &mut W,
) -> fmt::Result {
    if let Some(name) = u32::try_from(target)
        .ok()
        .and_then(|address| symbols.symbol_at(address))
    {
        return out.write_str(name);
    }
    match offset {
        0 => out.write_str("."),
        o if o > 0 => write!(out, ".+{o:#x}"),
        o => write!(out, ".-{:#x}", o.unsigned_abs()),
    }
}

/// objdump's `print_address_func`: `1a4 <loop+0x4>` with a symbol, `0x1a4` without; the
/// listing's label or `0x1a4`.
fn write_address<W: fmt::Write + ?Sized, S: SymbolLookup + ?Sized>(
    address: u32,
    symbols: &S,
    syntax: Syntax,
    out: &mut W,
) -> fmt::Result {
    if syntax == Syntax::Listing {
        return match symbols.symbol_at(address) {
            Some(name) => out.write_str(name),
            None => write!(out, "{address:#x}"),
        };
    }
    match symbols.symbol_before(address) {
        Some((name, at)) if at == address => write!(out, "{address:x} <{name}>"),
        // objdump names an address below every symbol after the first one.
        Some((name, at)) if at > address => write!(out, "{address:x} <{name}-{:#x}>", at - address),
        Some((name, at)) => write!(out, "{address:x} <{name}+{:#x}>", address.wrapping_sub(at)),
        None => write!(out, "{address:#x}"),
    }
}

/// [`fmt::Display`] adapter returned by [`Instruction::display_at`],
/// [`Instruction::display_with`] and [`Instruction::display_as`].
pub struct DisplayAt<'a, S: SymbolLookup + ?Sized> {
    inst: &'a Instruction,
    pc: u32,
    symbols: &'a S,
    syntax: Syntax,
}

impl<S: SymbolLookup + ?Sized> fmt::Display for DisplayAt<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_instruction(self.inst, self.pc, self.symbols, self.syntax, f)
    }
}

impl Instruction {
    /// Displays the instruction as if located at `pc` in [`Syntax::Compact`], without symbols.
    pub fn display_at(&self, pc: u32) -> DisplayAt<'_, NoSymbols> {
        self.display_as(pc, &NoSymbols, Syntax::Compact)
    }

    /// Displays the instruction as if located at `pc` in [`Syntax::Compact`], addresses named
    /// through `symbols`.
    pub fn display_with<'a, S: SymbolLookup + ?Sized>(
        &'a self,
        pc: u32,
        symbols: &'a S,
    ) -> DisplayAt<'a, S> {
        self.display_as(pc, symbols, Syntax::Compact)
    }

    /// Displays the instruction as if located at `pc` in `syntax`.
    pub fn display_as<'a, S: SymbolLookup + ?Sized>(
        &'a self,
        pc: u32,
        symbols: &'a S,
        syntax: Syntax,
    ) -> DisplayAt<'a, S> {
        DisplayAt {
            inst: self,
            pc,
            symbols,
            syntax,
        }
    }
}
