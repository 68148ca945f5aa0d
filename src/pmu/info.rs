//! Decoding of the identification registers: MIDR_EL1 (who made the core, which part) and
//! ID_AA64DFR0_EL1.PMUVer (which PMU architecture version).
#![forbid(unsafe_code)]

use core::fmt;

use tock_registers::LocalRegisterCopy;

use super::regs::{ID_AA64DFR0_EL1, MIDR_EL1};

/// The PMU architecture version, from ID_AA64DFR0_EL1.PMUVer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PmuVersion {
    /// 0b0000: no PMU.
    None,
    /// 0b0001: PMUv3 (Armv8.0).
    V3,
    /// 0b0100: PMUv3p1 (Armv8.1): 16-bit evtCount, upper PMCEID halves.
    V3p1,
    /// 0b0101: PMUv3p4.
    V3p4,
    /// 0b0110: PMUv3p5: 64-bit event counters (PMCR.LP).
    V3p5,
    /// 0b0111: PMUv3p7: freeze on overflow (PMCR.FZO).
    V3p7,
    /// 0b1000: PMUv3p8.
    V3p8,
    /// 0b1001: PMUv3p9.
    V3p9,
    /// 0b1111: IMPLEMENTATION DEFINED, not PMUv3.
    ImpDef,
    /// A value the Arm ARM does not assign (yet).
    Unknown(u8),
}

impl PmuVersion {
    /// From the PMUVer field value (bits above the 4-bit field are ignored).
    pub const fn from_pmuver(pmuver: u8) -> Self {
        match pmuver & 0xF {
            0 => Self::None,
            1 => Self::V3,
            4 => Self::V3p1,
            5 => Self::V3p4,
            6 => Self::V3p5,
            7 => Self::V3p7,
            8 => Self::V3p8,
            9 => Self::V3p9,
            0xF => Self::ImpDef,
            other => Self::Unknown(other),
        }
    }

    /// From an ID_AA64DFR0_EL1 value.
    pub fn from_id_aa64dfr0(dfr0: u64) -> Self {
        let reg: LocalRegisterCopy<u64, ID_AA64DFR0_EL1::Register> = LocalRegisterCopy::new(dfr0);
        Self::from_pmuver((reg.read(ID_AA64DFR0_EL1::PMUVer) & 0xF) as u8)
    }

    /// The PMUVer field value.
    pub const fn pmuver(self) -> u8 {
        match self {
            Self::None => 0,
            Self::V3 => 1,
            Self::V3p1 => 4,
            Self::V3p4 => 5,
            Self::V3p5 => 6,
            Self::V3p7 => 7,
            Self::V3p8 => 8,
            Self::V3p9 => 9,
            Self::ImpDef => 0xF,
            Self::Unknown(v) => v,
        }
    }

    /// Whether this is an Arm PMUv3 the driver can use (not none, not IMPLEMENTATION DEFINED).
    pub const fn is_pmuv3(self) -> bool {
        !matches!(self, Self::None | Self::ImpDef)
    }

    /// At least `other` (both PMUv3 versions; the PMUVer encoding is ordered).
    pub const fn at_least(self, other: PmuVersion) -> bool {
        self.is_pmuv3() && self.pmuver() >= other.pmuver()
    }

    /// Bits of PMEVTYPER.evtCount this version implements: 10 for PMUv3 (Armv8.0), 16 from
    /// PMUv3p1 on. A wider event number would be cut to its low bits by the hardware and
    /// count a different event.
    pub const fn event_bits(self) -> u8 {
        if self.at_least(Self::V3p1) { 16 } else { 10 }
    }
}

impl fmt::Display for PmuVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("none"),
            Self::V3 => f.write_str("PMUv3"),
            Self::V3p1 => f.write_str("PMUv3p1"),
            Self::V3p4 => f.write_str("PMUv3p4"),
            Self::V3p5 => f.write_str("PMUv3p5"),
            Self::V3p7 => f.write_str("PMUv3p7"),
            Self::V3p8 => f.write_str("PMUv3p8"),
            Self::V3p9 => f.write_str("PMUv3p9"),
            Self::ImpDef => f.write_str("IMPLEMENTATION DEFINED"),
            Self::Unknown(v) => write!(f, "unknown (0x{v:x})"),
        }
    }
}

/// A decoded MIDR_EL1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CpuId {
    /// MIDR_EL1.Implementer.
    pub implementer: u8,
    /// MIDR_EL1.Variant (the `r` of `rNpM`).
    pub variant: u8,
    /// MIDR_EL1.Architecture.
    pub architecture: u8,
    /// MIDR_EL1.PartNum.
    pub part: u16,
    /// MIDR_EL1.Revision (the `p` of `rNpM`).
    pub revision: u8,
}

/// Decodes MIDR_EL1.
pub fn decode_midr(midr: u64) -> CpuId {
    let reg: LocalRegisterCopy<u64, MIDR_EL1::Register> = LocalRegisterCopy::new(midr);
    CpuId {
        implementer: (reg.read(MIDR_EL1::Implementer) & 0xFF) as u8,
        variant: (reg.read(MIDR_EL1::Variant) & 0xF) as u8,
        architecture: (reg.read(MIDR_EL1::Architecture) & 0xF) as u8,
        part: (reg.read(MIDR_EL1::PartNum) & 0xFFF) as u16,
        revision: (reg.read(MIDR_EL1::Revision) & 0xF) as u8,
    }
}

impl CpuId {
    /// The implementer's name, `None` when not known.
    pub const fn implementer_name(&self) -> Option<&'static str> {
        Some(match self.implementer {
            0x00 => "software (reserved)",
            0x41 => "Arm",
            0x42 => "Broadcom",
            0x43 => "Cavium",
            0x46 => "Fujitsu",
            0x48 => "HiSilicon",
            0x4E => "NVIDIA",
            0x50 => "Applied Micro",
            0x51 => "Qualcomm",
            0x53 => "Samsung",
            0x56 => "Marvell",
            0x61 => "Apple",
            0x69 => "Intel",
            0xC0 => "Ampere",
            _ => return None,
        })
    }

    /// The part's name where known (Arm Ltd parts), `None` otherwise.
    pub const fn part_name(&self) -> Option<&'static str> {
        if self.implementer != 0x41 {
            return None;
        }
        Some(match self.part {
            0xD02 => "Cortex-A34",
            0xD03 => "Cortex-A53",
            0xD04 => "Cortex-A35",
            0xD05 => "Cortex-A55",
            0xD06 => "Cortex-A65",
            0xD07 => "Cortex-A57",
            0xD08 => "Cortex-A72",
            0xD09 => "Cortex-A73",
            0xD0A => "Cortex-A75",
            0xD0B => "Cortex-A76",
            0xD0C => "Neoverse-N1",
            0xD0D => "Cortex-A77",
            0xD0E => "Cortex-A76AE",
            0xD0F => "AEMv8 model",
            0xD40 => "Neoverse-V1",
            0xD41 => "Cortex-A78",
            0xD42 => "Cortex-A78AE",
            0xD43 => "Cortex-A65AE",
            0xD44 => "Cortex-X1",
            0xD46 => "Cortex-A510",
            0xD47 => "Cortex-A710",
            0xD48 => "Cortex-X2",
            0xD49 => "Neoverse-N2",
            0xD4A => "Neoverse-E1",
            0xD4B => "Cortex-A78C",
            0xD4C => "Cortex-X1C",
            0xD4D => "Cortex-A715",
            0xD4E => "Cortex-X3",
            0xD4F => "Neoverse-V2",
            0xD80 => "Cortex-A520",
            0xD81 => "Cortex-A720",
            0xD82 => "Cortex-X4",
            0xD84 => "Neoverse-V3",
            0xD8E => "Neoverse-N3",
            _ => return None,
        })
    }
}

impl fmt::Display for CpuId {
    /// `Arm Cortex-A57 r1p0`; unknown parts: `Arm unknown (0xd99) r0p0`; unknown implementers:
    /// `unknown (0x12) unknown (0x345) r0p0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.implementer_name() {
            Some(name) => f.write_str(name)?,
            None => write!(f, "unknown (0x{:02x})", self.implementer)?,
        }
        match self.part_name() {
            Some(name) => write!(f, " {name}")?,
            None => write!(f, " unknown (0x{:03x})", self.part)?,
        }
        write!(f, " r{}p{}", self.variant, self.revision)
    }
}
