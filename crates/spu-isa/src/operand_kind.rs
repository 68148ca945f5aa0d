//! Assembly operand kinds: which field of the word an operand fills and the range it takes.

/// One assembly operand: which field it fills and what range it accepts.
///
/// Register kinds name the *semantic* field of [`crate::decode::Instruction`]
/// (for RRR, `Rt` is the destination in bits 4-10). Immediate kinds keep the binutils names;
/// the ranges are the ones the assembler accepts (values outside are errors, never wrapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OperandKind {
    /// Register RT (`$N`).
    Rt,
    /// Register RA.
    Ra,
    /// Register RB.
    Rb,
    /// Register RC (RRR only, bits 25-31).
    Rc,
    /// Special-purpose register number 0..127 in the RA field (`$spN`).
    Spr,
    /// Channel number 0..127 in the RA field (`$chN` or a channel name).
    Channel,
    /// I7, signed -64..63 (rotqmbii; GNU does not check).
    S3,
    /// I7, signed -32..31 (rotqmbyi, rothmi, rotmahi; GNU error range).
    S6,
    /// I7, signed -64..63 (roti, rothi, rotqbyi; GNU does not check).
    S7N,
    /// I7, signed -64..63 (rotmi, rotmai).
    S7,
    /// I7, unsigned 0..127 (rotqbii, shlqbii; GNU does not check).
    U3,
    /// I7, unsigned 0..127 (shlhi, shlqbyi).
    U5,
    /// I7, unsigned 0..127 (shli).
    U6,
    /// I7, unsigned 0..127 (dftsv).
    U7,
    /// cflts/cfltu scale 0..127, encoded as I8 = 173 - scale.
    U7A,
    /// csflt/cuflt scale 0..127, encoded as I8 = 155 - scale.
    U7B,
    /// I10 byte immediate -128..255 (GNU warns outside this range; only 8 bits are used).
    S10B,
    /// I10 signed -512..511.
    S10,
    /// Hint branch address (LBT ROH:ROL), pc-relative, -1024..1020 bytes, word aligned.
    S11,
    /// Hint branch address (LBTI ROH:ROL), pc-relative, -1024..1020 bytes, word aligned.
    S11I,
    /// D-form `offset($ra)` with a byte offset -8192..8176, multiple of 16 (I10 = offset>>4).
    MemS14,
    /// `offset($ra)` with an unsigned I7 0..127 (cbd/chd/cwd/cdd).
    MemU7,
    /// I16 signed -32768..32767 (il).
    S16,
    /// Absolute word-aligned address, -131072..262140 (I16 = address>>2).
    S18,
    /// Branch target address, pc-relative, I16 = (target - pc)>>2.
    R18,
    /// `stop` signal 0..16383 (bits 18-31).
    U14,
    /// I16 as 16 bits, -32768..65535 (ilh, ilhu, iohl, fsmbi).
    X16,
    /// I18 unsigned 0..262143 (ila).
    U18,
}
