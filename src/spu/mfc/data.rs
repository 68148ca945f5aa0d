//! Moving the data of a completed transfer between the local store and main memory, and
//! walking a DMA list.

use super::command::{Command, CommandKind};
use super::error::DmaErrorKind;
use super::port::LocalStoreBytes;
use super::transfer::{ListElement, check_transfer};
use crate::spu::main_memory::{LINE_BYTES, MemoryView, Requester, SignalRegister};

/// Bytes moved per step under the memory's lock (one DMA line).
const CHUNK: usize = LINE_BYTES as usize;

/// What an atomic command found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AtomicResult {
    /// The line was loaded and reserved, stored, or stored unconditionally.
    Done,
    /// `putllc` found its reservation gone: nothing was stored.
    ReservationLost,
}

/// Moves `size` bytes between `lsa` and `ea` for `command` (a checked transfer).
pub(super) fn move_data(
    command: Command,
    spu: u8,
    lsa: u32,
    ea: u64,
    size: u32,
    local_store: &mut dyn LocalStoreBytes,
    memory: &mut MemoryView<'_>,
) -> Result<AtomicResult, DmaErrorKind> {
    let mut line = [0u8; CHUNK];
    match command.kind {
        CommandKind::Get | CommandKind::GetList => {
            for offset in (0..size).step_by(CHUNK) {
                let len = (size - offset).min(CHUNK as u32) as usize;
                let chunk = line.get_mut(..len).unwrap_or_default();
                memory.read(ea + u64::from(offset), chunk)?;
                local_store.write_bytes(lsa + offset, chunk);
            }
        }
        CommandKind::Put | CommandKind::PutList => {
            for offset in (0..size).step_by(CHUNK) {
                let len = (size - offset).min(CHUNK as u32) as usize;
                let chunk = line.get_mut(..len).unwrap_or_default();
                local_store.read_bytes(lsa + offset, chunk);
                memory.write(Requester::Spu(spu), ea + u64::from(offset), chunk)?;
            }
        }
        CommandKind::Sndsig => {
            let mut word = [0u8; 4];
            local_store.read_bytes(lsa, &mut word);
            let (target, register) = SignalRegister::at(ea).ok_or(DmaErrorKind::EaOutOfRange)?;
            memory.write_signal(target, register, u32::from_be_bytes(word));
        }
        // The atomic commands move the whole 128-byte lines holding LSA and EA: the low 7
        // bits are ignored, not checked (a Cell does so).
        CommandKind::Getllar => {
            memory.load_and_reserve(spu, ea, &mut line)?;
            local_store.write_bytes(lsa & !(LINE_BYTES as u32 - 1), &line);
        }
        CommandKind::Putllc => {
            local_store.read_bytes(lsa & !(LINE_BYTES as u32 - 1), &mut line);
            if !memory.store_conditional(spu, ea, &line)? {
                return Ok(AtomicResult::ReservationLost);
            }
        }
        CommandKind::Putlluc | CommandKind::Putqlluc => {
            local_store.read_bytes(lsa & !(LINE_BYTES as u32 - 1), &mut line);
            memory.write(Requester::SpuAtomic(spu), ea & !(LINE_BYTES - 1), &line)?;
        }
        CommandKind::Barrier | CommandKind::Eieio | CommandKind::Sync => {}
    }
    Ok(AtomicResult::Done)
}

/// One list element ready to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Element {
    pub index: u16,
    pub lsa: u32,
    pub ea: u64,
    pub size: u32,
    pub stall: bool,
}

/// Reads list element `index` of the list at LS address `list` (EA high word `eah`), whose
/// data goes to `running` (the list's LS cursor), and checks it as a transfer.
pub(super) fn list_element(
    local_store: &dyn LocalStoreBytes,
    list: u32,
    index: u16,
    eah: u32,
    running: u32,
    memory_size: u64,
) -> Result<Element, (Element, DmaErrorKind)> {
    let decoded = ListElement::read(local_store, list, index);
    let element = Element {
        index,
        lsa: decoded.lsa(running),
        ea: (u64::from(eah) << 32) | u64::from(decoded.eal),
        size: decoded.size,
        stall: decoded.stall,
    };
    match check_transfer(element.lsa, element.ea, element.size, memory_size) {
        Ok(()) => Ok(element),
        // Any local-store range problem of an element is the list's.
        Err(DmaErrorKind::LocalStoreRange) => Err((element, DmaErrorKind::ListOutsideLocalStore)),
        Err(kind) => Err((element, kind)),
    }
}

/// The list cursor after `element` (it was `running` before): the next 16-byte boundary past
/// its data. A zero-size element moves nothing and leaves it.
pub(super) fn advance_cursor(running: u32, element: &Element) -> u32 {
    ListElement {
        stall: element.stall,
        size: element.size,
        // The low word of the EA: an element under 16 bytes takes its low 4 bits.
        eal: element.ea as u32,
    }
    .next_running(running)
}
