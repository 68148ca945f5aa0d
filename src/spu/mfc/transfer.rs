//! The rules a transfer must follow (CBEA, "DMA command errors"), and DMA list elements.

use super::error::DmaErrorKind;
use super::port::LocalStoreBytes;
use crate::spu::main_memory::SignalRegister;

/// Bytes of an SPU's local store (a DMA must stay inside it).
pub const LOCAL_STORE_BYTES: u32 = 256 * 1024;
/// The largest transfer, and the largest list (16 KiB).
pub const MAX_TRANSFER: u32 = 16 * 1024;
/// Bytes of one list element.
pub const LIST_ELEMENT_BYTES: u32 = 8;

/// Checks a `get`, `put` or list element of `size` bytes between `lsa` and `ea` in a main
/// memory of `memory_size` bytes: the size (1, 2, 4, 8, or a multiple of 16 up to 16 KiB; 0
/// moves nothing), the alignment (natural under 16 bytes, 16-byte from 16 on, and the same low
/// 4 bits of LSA and EA), and that both ends lie inside their stores.
pub fn check_transfer(lsa: u32, ea: u64, size: u32, memory_size: u64) -> Result<(), DmaErrorKind> {
    let small = matches!(size, 1 | 2 | 4 | 8);
    if !small && (!size.is_multiple_of(16) || size > MAX_TRANSFER) {
        return Err(DmaErrorKind::Size);
    }
    let align = if small { u64::from(size) } else { 16 };
    if u64::from(lsa & 15) != ea & 15 || !ea.is_multiple_of(align) {
        return Err(DmaErrorKind::Alignment);
    }
    if u64::from(lsa) + u64::from(size) > u64::from(LOCAL_STORE_BYTES) {
        return Err(DmaErrorKind::LocalStoreRange);
    }
    if ea
        .checked_add(u64::from(size))
        .is_none_or(|end| end > memory_size)
    {
        return Err(DmaErrorKind::EaOutOfRange);
    }
    Ok(())
}

/// Checks a `sndsig`: 4 bytes to a signal-notification register, the LSA's low 4 bits equal to
/// the EA's. Returns the SPU and register it signals.
pub fn check_signal(lsa: u32, ea: u64, size: u32) -> Result<(u8, SignalRegister), DmaErrorKind> {
    if size != 4 {
        return Err(DmaErrorKind::Size);
    }
    if u64::from(lsa & 15) != ea & 15 {
        return Err(DmaErrorKind::Alignment);
    }
    if lsa >= LOCAL_STORE_BYTES {
        return Err(DmaErrorKind::LocalStoreRange);
    }
    SignalRegister::at(ea).ok_or(DmaErrorKind::EaOutOfRange)
}

/// Checks a list command: the list (at LS address `list`, `size` bytes: a multiple of 8 up to
/// 16 KiB, 2048 elements) must be 8-byte aligned and inside the local store, and its data's
/// first LS address too.
pub fn check_list(lsa: u32, list: u32, size: u32) -> Result<(), DmaErrorKind> {
    if !size.is_multiple_of(LIST_ELEMENT_BYTES) || size > MAX_TRANSFER {
        return Err(DmaErrorKind::Size);
    }
    if !list.is_multiple_of(LIST_ELEMENT_BYTES) {
        return Err(DmaErrorKind::Alignment);
    }
    if u64::from(list) + u64::from(size) > u64::from(LOCAL_STORE_BYTES) || lsa >= LOCAL_STORE_BYTES
    {
        return Err(DmaErrorKind::ListOutsideLocalStore);
    }
    Ok(())
}

/// One DMA list element: `[stall-and-notify (bit 0) | reserved | size (bits 17..31)]`, then
/// the EA's low word. The EA's high word is `MFC_EAH`, shared by the whole list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListElement {
    /// Stop after this element until `MFC_WrListStallAck` (ignored on the last element).
    pub stall: bool,
    /// Transfer size (15 bits; the reserved bits are ignored, as a Cell does).
    pub size: u32,
    /// The EA's low word.
    pub eal: u32,
}

impl ListElement {
    /// Decodes an element from its two big-endian words.
    pub fn decode(first: u32, second: u32) -> Self {
        ListElement {
            stall: first & 0x8000_0000 != 0,
            size: first & 0x7FFF,
            eal: second,
        }
    }

    /// Element `index` of the list at LS address `list`, read from `local_store`.
    pub fn read(local_store: &dyn LocalStoreBytes, list: u32, index: u16) -> Self {
        let mut bytes = [0u8; LIST_ELEMENT_BYTES as usize];
        local_store.read_bytes(list + u32::from(index) * LIST_ELEMENT_BYTES, &mut bytes);
        let [a, b, c, d, e, f, g, h] = bytes;
        ListElement::decode(
            u32::from_be_bytes([a, b, c, d]),
            u32::from_be_bytes([e, f, g, h]),
        )
    }

    /// Where this element's data goes given the list's running LS address: an element under
    /// 16 bytes takes the EA's low 4 bits.
    pub fn lsa(&self, running: u32) -> u32 {
        if self.size < 16 {
            (running & !15) | (self.eal & 15)
        } else {
            running
        }
    }

    /// The list's running LS address after this element (it was `running` before): the next
    /// 16-byte boundary past its data. A zero-size element moves nothing and leaves it.
    pub fn next_running(&self, running: u32) -> u32 {
        if self.size == 0 {
            return running;
        }
        (self.lsa(running) + self.size).next_multiple_of(16)
    }
}
