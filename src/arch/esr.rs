//! ESR_ELx (Exception Syndrome Register) decoding: the exception class by its Arm ARM name.
//!
//! ```
//! use pmprobe::arch::esr::{ExceptionClass, Syndrome};
//! let s = Syndrome(0x0200_0000); // EC = 0x00, IL = 1: an undefined instruction
//! assert_eq!(s.class(), ExceptionClass::Unknown);
//! assert_eq!(s.class().name(), "Unknown reason");
//! ```
use core::fmt;

/// A raw ESR_ELx value with accessors for its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Syndrome(pub u64);

impl Syndrome {
    /// The exception class field, EC = ESR\[31:26\].
    pub const fn ec(self) -> u8 {
        ((self.0 >> 26) & 0x3F) as u8
    }
    /// Instruction length bit IL = ESR\[25\]: 1 for a 32-bit instruction.
    pub const fn il(self) -> bool {
        (self.0 >> 25) & 1 == 1
    }
    /// The instruction specific syndrome, ISS = ESR\[24:0\].
    pub const fn iss(self) -> u32 {
        (self.0 & 0x01FF_FFFF) as u32
    }
    /// The decoded exception class.
    pub const fn class(self) -> ExceptionClass {
        ExceptionClass::from_ec(self.ec())
    }
}

/// Exception classes of ESR_ELx.EC (Arm ARM D-profile, "ESR_EL1, Exception Syndrome Register").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[allow(missing_docs)] // each variant's text is in `name()`
pub enum ExceptionClass {
    Unknown,
    WfiWfe,
    Mcr15,
    Mcrr15,
    Mcr14,
    Ldc14,
    SimdFp,
    Vmrs10,
    PointerAuth,
    Ld64b,
    Mrrc14,
    BranchTarget,
    IllegalState,
    Svc32,
    Hvc32,
    Smc32,
    Svc64,
    Hvc64,
    Smc64,
    SysReg64,
    Sve,
    Eret,
    TStart,
    PointerAuthFail,
    Sme,
    InstructionAbortLower,
    InstructionAbortSame,
    PcAlignment,
    DataAbortLower,
    DataAbortSame,
    SpAlignment,
    MemoryOp,
    Fp32,
    Fp64,
    SError,
    BreakpointLower,
    BreakpointSame,
    SoftwareStepLower,
    SoftwareStepSame,
    WatchpointLower,
    WatchpointSame,
    Bkpt32,
    VectorCatch,
    Brk64,
    /// An EC value the Arm ARM does not define (or this decoder does not know).
    Reserved(u8),
}

impl ExceptionClass {
    /// Decodes an EC value (only the low 6 bits are used).
    pub const fn from_ec(ec: u8) -> Self {
        use ExceptionClass::*;
        match ec & 0x3F {
            0x00 => Unknown,
            0x01 => WfiWfe,
            0x03 => Mcr15,
            0x04 => Mcrr15,
            0x05 => Mcr14,
            0x06 => Ldc14,
            0x07 => SimdFp,
            0x08 => Vmrs10,
            0x09 => PointerAuth,
            0x0A => Ld64b,
            0x0C => Mrrc14,
            0x0D => BranchTarget,
            0x0E => IllegalState,
            0x11 => Svc32,
            0x12 => Hvc32,
            0x13 => Smc32,
            0x15 => Svc64,
            0x16 => Hvc64,
            0x17 => Smc64,
            0x18 => SysReg64,
            0x19 => Sve,
            0x1A => Eret,
            0x1B => TStart,
            0x1C => PointerAuthFail,
            0x1D => Sme,
            0x20 => InstructionAbortLower,
            0x21 => InstructionAbortSame,
            0x22 => PcAlignment,
            0x24 => DataAbortLower,
            0x25 => DataAbortSame,
            0x26 => SpAlignment,
            0x27 => MemoryOp,
            0x28 => Fp32,
            0x2C => Fp64,
            0x2F => SError,
            0x30 => BreakpointLower,
            0x31 => BreakpointSame,
            0x32 => SoftwareStepLower,
            0x33 => SoftwareStepSame,
            0x34 => WatchpointLower,
            0x35 => WatchpointSame,
            0x38 => Bkpt32,
            0x3A => VectorCatch,
            0x3C => Brk64,
            other => Reserved(other),
        }
    }

    /// A human-readable name following the Arm ARM's description of the class.
    pub const fn name(self) -> &'static str {
        use ExceptionClass::*;
        match self {
            Unknown => "Unknown reason",
            WfiWfe => "Trapped WFI/WFE",
            Mcr15 => "Trapped MCR/MRC (coproc 0b1111)",
            Mcrr15 => "Trapped MCRR/MRRC (coproc 0b1111)",
            Mcr14 => "Trapped MCR/MRC (coproc 0b1110)",
            Ldc14 => "Trapped LDC/STC",
            SimdFp => "Trapped SIMD/FP access",
            Vmrs10 => "Trapped VMRS",
            PointerAuth => "Trapped pointer authentication instruction",
            Ld64b => "Trapped LD64B/ST64B",
            Mrrc14 => "Trapped MRRC (coproc 0b1110)",
            BranchTarget => "Branch target exception",
            IllegalState => "Illegal execution state",
            Svc32 => "SVC (AArch32)",
            Hvc32 => "HVC (AArch32)",
            Smc32 => "SMC (AArch32)",
            Svc64 => "SVC (AArch64)",
            Hvc64 => "HVC (AArch64)",
            Smc64 => "SMC (AArch64)",
            SysReg64 => "Trapped MSR/MRS/system instruction",
            Sve => "Trapped SVE access",
            Eret => "Trapped ERET",
            TStart => "TSTART exception",
            PointerAuthFail => "Pointer authentication failure",
            Sme => "Trapped SME access",
            InstructionAbortLower => "Instruction abort from a lower EL",
            InstructionAbortSame => "Instruction abort from the same EL",
            PcAlignment => "PC alignment fault",
            DataAbortLower => "Data abort from a lower EL",
            DataAbortSame => "Data abort from the same EL",
            SpAlignment => "SP alignment fault",
            MemoryOp => "Memory operation exception",
            Fp32 => "Trapped floating-point exception (AArch32)",
            Fp64 => "Trapped floating-point exception (AArch64)",
            SError => "SError interrupt",
            BreakpointLower => "Breakpoint from a lower EL",
            BreakpointSame => "Breakpoint from the same EL",
            SoftwareStepLower => "Software step from a lower EL",
            SoftwareStepSame => "Software step from the same EL",
            WatchpointLower => "Watchpoint from a lower EL",
            WatchpointSame => "Watchpoint from the same EL",
            Bkpt32 => "BKPT (AArch32)",
            VectorCatch => "Vector catch (AArch32)",
            Brk64 => "BRK (AArch64)",
            Reserved(_) => "unknown",
        }
    }
}

impl fmt::Display for ExceptionClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExceptionClass::Reserved(ec) => write!(f, "unknown (0x{ec:02x})"),
            other => f.write_str(other.name()),
        }
    }
}

/// Which of the 16 vector table entries was taken (offset / 0x80 from VBAR_ELx).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct VectorKind(pub u8);

/// The four kinds of exception, in vector table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ExceptionKind {
    /// A synchronous exception (a fault, a trap, `svc`/`hvc`/`brk`...).
    Synchronous = 0,
    /// IRQ.
    Irq = 1,
    /// FIQ.
    Fiq = 2,
    /// SError (asynchronous abort).
    SError = 3,
}

impl VectorKind {
    /// The vector entry taken for an exception of `kind`, from the current EL or a lower one,
    /// given the interrupted `SPSR_ELx`: which stack pointer the current EL used (SPSR.M\[0\],
    /// SPSel) or which execution state the lower EL was in (SPSR.M\[4\]). For handlers that
    /// share one entry point between vector entries.
    pub const fn from_spsr(kind: ExceptionKind, from_lower_el: bool, spsr: u64) -> Self {
        let source = match (from_lower_el, spsr & 1 != 0, spsr & (1 << 4) != 0) {
            (false, false, _) => 0,
            (false, true, _) => 1,
            (true, _, false) => 2,
            (true, _, true) => 3,
        };
        Self(source * 4 + kind as u8)
    }
}

impl fmt::Display for VectorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KIND: [&str; 4] = ["Synchronous", "IRQ", "FIQ", "SError"];
        const FROM: [&str; 4] = [
            "current EL with SP_EL0",
            "current EL with SP_ELx",
            "lower EL (AArch64)",
            "lower EL (AArch32)",
        ];
        let i = usize::from(self.0 & 0xF);
        write!(f, "{} from {}", KIND[i % 4], FROM[i / 4])
    }
}
