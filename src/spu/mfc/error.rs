//! DMA errors: a command the MFC refuses stops its SPU with one of these.

use core::fmt;

use super::command::command_name;
use crate::spu::main_memory::EaRangeError;

/// What is wrong with a DMA command (the CBEA's DMA alignment and invalid-command errors,
/// made precise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DmaErrorKind {
    /// The opcode is not an MFC command the SPU may issue.
    UnknownCommand,
    /// The size is not 1, 2, 4, 8 or a multiple of 16 up to 16 KiB (for `sndsig`: not 4; for
    /// a list: not a multiple of 8 up to 16 KiB).
    Size,
    /// A transfer under 16 bytes is not naturally aligned, or the low 4 bits of LSA and EA
    /// differ, or a 16-byte or larger transfer is not 16-byte aligned, or a list is not
    /// 8-byte aligned in local store.
    Alignment,
    /// The transfer runs past the end of the local store.
    LocalStoreRange,
    /// The EA range is outside main memory (or, for `sndsig`, not a signal register).
    EaOutOfRange,
    /// A list, or a list element's data, lies outside the local store.
    ListOutsideLocalStore,
    /// An immediate atomic command was issued while another was still pending.
    AtomicBusy,
}

impl DmaErrorKind {
    /// A few words for the kind.
    pub fn description(self) -> &'static str {
        match self {
            DmaErrorKind::UnknownCommand => "unknown MFC command",
            DmaErrorKind::Size => "invalid transfer size",
            DmaErrorKind::Alignment => "misaligned transfer",
            DmaErrorKind::LocalStoreRange => "transfer past the end of the local store",
            DmaErrorKind::EaOutOfRange => "EA outside main memory",
            DmaErrorKind::ListOutsideLocalStore => "list element outside the local store",
            DmaErrorKind::AtomicBusy => "atomic command while another is pending",
        }
    }
}

/// A refused DMA command with everything it named: the SPU stops with this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaFault {
    /// What is wrong.
    pub kind: DmaErrorKind,
    /// The opcode (`MFC_Cmd` bits 16..31).
    pub opcode: u16,
    /// The tag as written (`MFC_TagID`).
    pub tag: u32,
    /// Local-store address (`MFC_LSA`; for a list element, where its data would go).
    pub lsa: u32,
    /// Effective address (`MFC_EAH`:`MFC_EAL`; for a list, `MFC_EAL` is the list's LS
    /// address; for a list element, the element's EA).
    pub ea: u64,
    /// Transfer size (`MFC_Size`, or the list element's size).
    pub size: u32,
    /// For a list element, its index in the list.
    pub element: Option<u16>,
}

impl DmaFault {
    /// The command's name (`get`, `putlf`, ...).
    pub fn command(&self) -> &'static str {
        command_name(self.opcode)
    }
}

impl fmt::Display for DmaFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DMA error: {} ({} {:#x}, tag {}, LSA {:#07x}, EA {:#x}, size {}",
            self.kind.description(),
            self.command(),
            self.opcode,
            self.tag,
            self.lsa,
            self.ea,
            self.size
        )?;
        if let Some(element) = self.element {
            write!(f, ", list element {element}")?;
        }
        f.write_str(")")
    }
}

impl core::error::Error for DmaFault {}

impl From<EaRangeError> for DmaErrorKind {
    fn from(_: EaRangeError) -> Self {
        DmaErrorKind::EaOutOfRange
    }
}
