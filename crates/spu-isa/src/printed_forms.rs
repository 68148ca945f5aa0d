//! Which operands the disassembler prints for an opcode, and which bits of the word a printed
//! form says: a listing line reassembles to its word only when its text says every set bit.

use super::decode::Instruction;
use super::opcodes::{FEATURE_SHIFT, Format, Mnemonic, OperandKind, VARIANTS};

/// The operands objdump prints: those of the first binutils table entry for the opcode, which
/// is the longest form everywhere but for `stop`, listed without its signal first.
pub(super) fn objdump_operands(mnemonic: Mnemonic) -> &'static [OperandKind] {
    if mnemonic == Mnemonic::Stop {
        return &[];
    }
    mnemonic.info().forms.first().copied().unwrap_or(&[])
}

/// The operands of the listing's line for `inst`: the first of objdump's form and the
/// opcode's other forms whose text says every set bit of the word, in a spelling GNU `as`
/// accepts. `None` when no form does: a set bit in a field the instruction ignores, a
/// combination of feature bits without a GNU name (`bide`, `syncd`, `hbrd`), or a value GNU
/// `as` refuses (an I7 beyond -32..31 for the `S6` kinds, a conversion scale beyond 0..127),
/// or a `nop` with operand bits (gas reads `nop $5` as `.nop` of a symbol).
pub(super) fn listing_operands(inst: &Instruction) -> Option<&'static [OperandKind]> {
    let info = inst.info();
    if inst.mnemonic == Mnemonic::Nop {
        // GNU `as` 2.40 reads `nop` as its generic `.nop` pseudo-op (a count of bytes, one
        // `nop $0` at least), so only the word with no operand bits is spelled `nop`; any
        // other is `.long`.
        return (inst.word & !opcode_mask(info.format) == 0).then_some(&[]);
    }
    let features = inst.feature_bits();
    let mut said = opcode_mask(info.format);
    if info.has_feature_bits {
        // Every feature bit prints as a letter of the mnemonic.
        said |= 0x70 << FEATURE_SHIFT;
    }
    let says_all = |form: &&'static [OperandKind]| {
        let mask = form
            .iter()
            .fold(said, |mask, kind| mask | field_mask(*kind, info.format));
        inst.word & !mask == 0 && form.iter().all(|kind| gnu_as_accepts(*kind, inst))
    };
    if features == 0 {
        return core::iter::once(objdump_operands(inst.mnemonic))
            .chain(info.forms.iter().copied())
            .find(says_all);
    }
    // A feature-bit form is spelled as GNU names it, with that name's operands: `hbrp` takes
    // none, although objdump prints `hbr`'s.
    VARIANTS
        .iter()
        .find(|v| !v.synonym && v.base == inst.mnemonic && v.feature == features)?
        .forms
        .iter()
        .copied()
        .find(says_all)
}

/// Whether GNU `as` takes the value objdump prints for `kind` (binutils `arg_encode` ranges
/// whose violation is an error rather than a warning; the other kinds' printed values are
/// always inside theirs, and the unsigned I7 kinds print unsigned in the listing).
fn gnu_as_accepts(kind: OperandKind, inst: &Instruction) -> bool {
    match kind {
        OperandKind::S6 => (-32..=31).contains(&inst.imm),
        OperandKind::U7A => (0..=127).contains(&(173 - inst.imm)),
        OperandKind::U7B => (0..=127).contains(&(155 - inst.imm)),
        _ => true,
    }
}

/// The bits of a word of `format` that its opcode fixes.
const fn opcode_mask(format: Format) -> u32 {
    !0u32 << (32 - format.opcode_bits())
}

/// The bits an operand of `kind` prints (bit 0 the least significant here).
const fn field_mask(kind: OperandKind, format: Format) -> u32 {
    use OperandKind::*;
    const RT: u32 = 0x7f;
    const RA: u32 = 0x7f << 7;
    const RB: u32 = 0x7f << 14;
    const I16: u32 = 0xffff << 7;
    match kind {
        // RRR's destination is the field at bits 21-27; its fourth register the one at 0-6.
        Rt if matches!(format, Format::Rrr) => 0x7f << 21,
        Rt | Rc => RT,
        Ra | Spr | Channel => RA,
        Rb | S3 | S6 | S7N | S7 | U3 | U5 | U6 | U7 => RB,
        MemU7 => RB | RA,
        U7A | U7B => 0xff << 14,
        S10B | S10 => 0x3ff << 14,
        MemS14 => 0x3ff << 14 | RA,
        S16 | X16 | S18 | R18 => I16,
        U18 => 0x3ffff << 7,
        U14 => 0x3fff,
        S11 => 0b11 << 23 | RT,
        S11I => 0b11 << 14 | RT,
    }
}
