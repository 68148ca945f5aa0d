//! A memory access, the argument of memory-access probe points, and its kind. A leaf: the
//! stack distance and the memory trace listen to it, and the producers (the SPU model, the
//! debug monitor) make it.
#![forbid(unsafe_code)]

/// The kind of a memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AccessKind {
    /// A data read (Dinero label 0).
    Read,
    /// A data write (Dinero label 1).
    Write,
    /// An instruction fetch (Dinero label 2).
    InstructionFetch,
}

impl AccessKind {
    /// The Dinero IV "din" label: 0 read, 1 write, 2 instruction fetch.
    pub const fn dinero_label(self) -> u8 {
        match self {
            Self::Read => 0,
            Self::Write => 1,
            Self::InstructionFetch => 2,
        }
    }

    /// The kind for a Dinero label.
    pub const fn from_dinero_label(label: u8) -> Option<Self> {
        match label {
            0 => Some(Self::Read),
            1 => Some(Self::Write),
            2 => Some(Self::InstructionFetch),
            _ => None,
        }
    }
}

/// One memory access, the argument of memory-access probe points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MemAccess {
    /// When it happened (the producer's clock).
    pub tick: u64,
    /// Address of the instruction that made the access.
    pub pc: u64,
    /// First byte accessed.
    pub address: u64,
    /// Bytes accessed.
    pub size: u32,
    /// Read, write or instruction fetch.
    pub kind: AccessKind,
}
