//! The row types of the opcode table: an opcode's layout, class, register dependencies and
//! operand forms, and the feature-bit variants and aliases of a base mnemonic.

use super::format::Format;
use super::iclass::IClass;
use super::mnemonic::Mnemonic;
use super::operand_kind::OperandKind;

/// The binutils DEPENDENCY column translated to semantic fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Dependency {
    /// RT is written.
    pub writes_rt: bool,
    /// RT is read (stores, conditional branches, `iohl`, multiply-accumulate...).
    pub reads_rt: bool,
    /// RA is read.
    pub reads_ra: bool,
    /// RB is read.
    pub reads_rb: bool,
    /// RC is read (RRR only).
    pub reads_rc: bool,
}

impl Dependency {
    /// Translates the 5-digit binutils code `0 RC RB RA RT` (written as a decimal literal,
    /// digits 0 unused, 1 source, 2 target, 3 both). In RRR binutils swaps the RC/RT names:
    /// its "RC" digit is the destination field (our `rt`), its "RT" digit our `rc`.
    pub(super) const fn from_binutils(code: u16, format: Format) -> Dependency {
        let d_rt = code % 10;
        let d_ra = (code / 10) % 10;
        let d_rb = (code / 100) % 10;
        let d_rc = (code / 1000) % 10;
        let (dest, last) = match format {
            Format::Rrr => (d_rc, d_rt),
            _ => (d_rt, d_rc),
        };
        Dependency {
            writes_rt: dest & 2 != 0,
            reads_rt: dest & 1 != 0,
            reads_ra: d_ra & 1 != 0,
            reads_rb: d_rb & 1 != 0,
            reads_rc: last & 1 != 0,
        }
    }
}

/// One row of the opcode table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The mnemonic this row describes.
    pub mnemonic: Mnemonic,
    /// Lower-case assembly name.
    pub name: &'static str,
    /// Field layout.
    pub format: Format,
    /// binutils 11-bit left-aligned opcode (bits below the real op width are zero).
    pub opcode: u16,
    /// Instruction class (and so the pipe).
    pub class: IClass,
    /// Registers read and written.
    pub dependency: Dependency,
    /// Accepted operand lists. The first is the canonical (longest) one; further entries are
    /// shorter forms GNU `as` also accepts (e.g. `nop` without operand, `heq $ra,$rb`).
    pub forms: &'static [&'static [OperandKind]],
    /// Whether bits 11-13 carry feature bits (branch-indirect forms, `sync`, `hbr`).
    pub has_feature_bits: bool,
}

impl OpcodeInfo {
    /// The opcode bits placed in a word (`opcode << 21`).
    pub const fn base_word(&self) -> u32 {
        (self.opcode as u32) << 21
    }
}

/// Feature bit 11 (`0x40` in binutils' 7-bit FB value): `syncc` (C) and `hbrp` (P).
pub const FEATURE_C_P: u8 = 0x40;
/// Feature bit 12: disable interrupts (`bid`, `bisld`, `iretd`, ...).
pub const FEATURE_D: u8 = 0x20;
/// Feature bit 13: enable interrupts (`bie`, `bisle`, `irete`, ...).
pub const FEATURE_E: u8 = 0x10;

/// Shift that places a binutils feature value (`0x40/0x20/0x10`) into bits 11-13 of the word.
pub const FEATURE_SHIFT: u32 = 14;

/// A feature-bit variant or an assembler alias of a base mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Assembly name (`"bid"`, `"lr"`, ...).
    pub name: &'static str,
    /// The base mnemonic it decodes to.
    pub base: Mnemonic,
    /// Feature bits (binutils FB value: `0x40`, `0x20`, `0x10` or 0).
    pub feature: u8,
    /// Accepted operand lists (fields not named are zero).
    pub forms: &'static [&'static [OperandKind]],
    /// `true` for plain synonyms (`lr`, `bit`, ...) that the disassembler never prints;
    /// `false` for feature-bit variants, which it prints by name.
    pub synonym: bool,
}
