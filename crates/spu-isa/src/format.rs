//! Instruction formats: the field layouts of the 32-bit SPU word (bit 0 is the most
//! significant bit, as in the SPU ISA).

/// Instruction format (field layout of the 32-bit word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Format {
    /// 11-bit op, RB 11-17, RA 18-24, RT 25-31.
    Rr,
    /// 4-bit op, RT 4-10 (destination), RB 11-17, RA 18-24, RC 25-31.
    Rrr,
    /// 11-bit op, I7 11-17, RA 18-24, RT 25-31.
    Ri7,
    /// 10-bit op, I8 10-17, RA 18-24, RT 25-31.
    Ri8,
    /// 8-bit op, I10 8-17, RA 18-24, RT 25-31.
    Ri10,
    /// 9-bit op, I16 9-24, RT 25-31.
    Ri16,
    /// 7-bit op, I18 7-24, RT 25-31.
    Ri18,
    /// 7-bit op, ROH 7-8, I16 9-24, ROL 25-31 (`hbra`, `hbrr`).
    Lbt,
    /// 11-bit op, feature bits 11-15, ROH 16-17, RA 18-24, ROL 25-31 (`hbr`).
    Lbti,
}

impl Format {
    /// Number of opcode bits at the top of the word.
    pub const fn opcode_bits(self) -> u32 {
        match self {
            Format::Rrr => 4,
            Format::Ri18 | Format::Lbt => 7,
            Format::Ri10 => 8,
            Format::Ri16 => 9,
            Format::Ri8 => 10,
            Format::Rr | Format::Ri7 | Format::Lbti => 11,
        }
    }

    /// How many consecutive entries of the 2048-entry `word >> 21` table one opcode covers.
    pub const fn table_span(self) -> usize {
        1 << (11 - self.opcode_bits())
    }
}
