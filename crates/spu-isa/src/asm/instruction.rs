//! Mnemonic lookup: the base mnemonics of the opcode table, then the feature-bit variants and
//! synonyms, case-insensitive as GNU `as` reads them.

use crate::opcodes::{FEATURE_SHIFT, Format, Mnemonic, OPCODES, OperandKind, VARIANTS};

/// What the assembler needs of one mnemonic.
pub(super) struct Opcode {
    pub base_word: u32,
    pub format: Format,
    pub forms: &'static [&'static [OperandKind]],
}

/// The opcode for `mnemonic`, if it names an instruction, variant or synonym.
pub(super) fn lookup(mnemonic: &str) -> Option<Opcode> {
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
