//! Instruction classes (the simulator's iclass) and the pipe each one issues to.

/// Instruction class: the simulator's iclass, which also fixes the pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum IClass {
    /// Simple fixed point (even pipe).
    Fx2,
    /// Shuffle / quadword rotate (odd pipe).
    Shuf,
    /// Word rotate and shift (even pipe).
    Fx3,
    /// Load/store and branch hints (odd pipe).
    Ls,
    /// Branch, stop, sync, `orx` (odd pipe).
    Br,
    /// Channel and special-purpose register access (odd pipe).
    Spr,
    /// Odd-pipe no-op.
    Lnop,
    /// Even-pipe no-op.
    Nop,
    /// Byte operations (even pipe).
    Fxb,
    /// Single-precision floating point (even pipe).
    Fp6,
    /// Integer multiply and conversions in the FP unit (even pipe).
    Fp7,
    /// Double-precision floating point (even pipe).
    Fpd,
}

impl IClass {
    /// All classes in the simulator's report order.
    pub const ALL: [IClass; 12] = [
        IClass::Fx2,
        IClass::Shuf,
        IClass::Fx3,
        IClass::Ls,
        IClass::Br,
        IClass::Spr,
        IClass::Lnop,
        IClass::Nop,
        IClass::Fxb,
        IClass::Fp6,
        IClass::Fp7,
        IClass::Fpd,
    ];

    /// The simulator/binutils name (`"FX2"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            IClass::Fx2 => "FX2",
            IClass::Shuf => "SHUF",
            IClass::Fx3 => "FX3",
            IClass::Ls => "LS",
            IClass::Br => "BR",
            IClass::Spr => "SPR",
            IClass::Lnop => "LNOP",
            IClass::Nop => "NOP",
            IClass::Fxb => "FXB",
            IClass::Fp6 => "FP6",
            IClass::Fp7 => "FP7",
            IClass::Fpd => "FPD",
        }
    }

    /// Pipe: 0 = even, 1 = odd.
    pub fn pipe(self) -> u8 {
        match self {
            IClass::Fx2
            | IClass::Fx3
            | IClass::Fxb
            | IClass::Fp6
            | IClass::Fp7
            | IClass::Fpd
            | IClass::Nop => 0,
            IClass::Shuf | IClass::Ls | IClass::Br | IClass::Spr | IClass::Lnop => 1,
        }
    }
}

impl core::fmt::Display for IClass {
    /// The simulator name (`FX2`, ...).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
