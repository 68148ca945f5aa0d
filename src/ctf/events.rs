//! pmprobe's event classes: their ids, their payloads' bytes, and the stream methods that write
//! them. [`write_metadata`](super::write_metadata) describes the same layouts in TSDL.
//!
//! | id | name | payload (little-endian, byte-packed) | bytes with its header |
//! |---:|---|---|---:|
//! | 0, 1, 2 | `mem_read`, `mem_write`, `mem_fetch` | pc `u32`, address `u32`, size `u16` | 14 |
//! | 3, 4, 5 | `mem_read64`, `mem_write64`, `mem_fetch64` | pc `u64`, address `u64`, size `u32` | 24 |
//! | 6 | `dma` | command `u8` (MFC opcode), tag `u8`, size `u32`, lsa `u32`, ea `u64`, issued `u64` | 30 |
//! | 7 | `dma_list_element` | as `dma`, then element `u16` | 32 |
//! | 8 | `stall` | reason `u8`, cycles `u32` | 9 |
//! | 9 | `pmu_count` | counter `u16` (the PMU event), raw `u64`, enabled `u64`, running `u64` | 30 |
//! | 10 | `pc_event` | pc `u64`, name `u16` (the PC event's number) | 14 |
//!
//! An access whose pc and address fit 32 bits and whose size fits 16 (every SPU local-store
//! access) takes the 14-byte form; any other the 24-byte one. The timestamp is the event's
//! header: a memory access's `tick`, a DMA transfer's completion cycle, the first cycle of a
//! run of stalled cycles (the payload's `cycles` long), a reading's or a PC event's time.

use crate::pmu::EventReading;
use crate::probe::listeners::{AccessKind, MemAccess};
use crate::spu::isa::IClass;
use crate::spu::mfc::DmaEvent;
use crate::spu::probes::StallReason;

use super::stream::{EventLost, PacketSink, StreamWriter};

/// `mem_read`: a data read whose pc and address fit 32 bits.
pub const MEM_READ: u32 = 0;
/// `mem_write`.
pub const MEM_WRITE: u32 = 1;
/// `mem_fetch`: an instruction fetch.
pub const MEM_FETCH: u32 = 2;
/// `mem_read64`: a data read with a 64-bit pc or address (or a size above 16 bits).
pub const MEM_READ64: u32 = 3;
/// `mem_write64`.
pub const MEM_WRITE64: u32 = 4;
/// `mem_fetch64`.
pub const MEM_FETCH64: u32 = 5;
/// `dma`: a DMA transfer that completed.
pub const DMA: u32 = 6;
/// `dma_list_element`: one element of a DMA list command.
pub const DMA_LIST_ELEMENT: u32 = 7;
/// `stall`: a run of cycles in which the SPU issued nothing, for one reason.
pub const STALL: u32 = 8;
/// `pmu_count`: one event's PMU reading.
pub const PMU_COUNT: u32 = 9;
/// `pc_event`: a PC event fired.
pub const PC_EVENT: u32 = 10;

/// The event classes' names, by id.
pub const EVENT_NAMES: [&str; 11] = [
    "mem_read",
    "mem_write",
    "mem_fetch",
    "mem_read64",
    "mem_write64",
    "mem_fetch64",
    "dma",
    "dma_list_element",
    "stall",
    "pmu_count",
    "pc_event",
];

/// The MFC opcodes a `dma` event's command can have (the SPU's command queue's), which the
/// metadata names with `command_name`.
pub const DMA_OPCODES: [u8; 28] = [
    0x20, 0x21, 0x22, 0x24, 0x25, 0x26, 0x30, 0x31, 0x32, 0x34, 0x35, 0x36, 0x40, 0x41, 0x42, 0x44,
    0x45, 0x46, 0xA0, 0xA1, 0xA2, 0xB0, 0xB4, 0xB8, 0xC0, 0xC8, 0xCC, 0xD0,
];

/// A `stall` event's reason code for a dependency on an instruction of class `c` is this plus
/// `c`'s place in [`IClass::ALL`].
pub const STALL_DEPENDENCY_BASE: u8 = 16;

/// The stall reasons other than dependencies: their codes and the metadata's labels.
pub const STALL_REASONS: [(StallReason, &str); 9] = [
    (StallReason::Initialisation, "initialisation"),
    (StallReason::BranchMiss, "branch_miss"),
    (StallReason::PrefetchMiss, "prefetch_miss"),
    (StallReason::FpResource, "fp_resource"),
    (StallReason::HintTarget, "hint_target"),
    (StallReason::DpPipeline, "dp_pipeline"),
    (StallReason::Channel, "channel"),
    (StallReason::ChannelWait, "channel_wait"),
    (StallReason::DmaLocalStore, "dma_local_store"),
];

/// A stall reason's code in a `stall` event: its place in [`STALL_REASONS`], or
/// [`STALL_DEPENDENCY_BASE`] plus the class's place in [`IClass::ALL`].
pub fn stall_code(reason: StallReason) -> u8 {
    match reason {
        StallReason::Initialisation => 0,
        StallReason::BranchMiss => 1,
        StallReason::PrefetchMiss => 2,
        StallReason::FpResource => 3,
        StallReason::HintTarget => 4,
        StallReason::DpPipeline => 5,
        StallReason::Channel => 6,
        StallReason::ChannelWait => 7,
        StallReason::DmaLocalStore => 8,
        StallReason::Dependency(class) => STALL_DEPENDENCY_BASE + class_place(class),
    }
}

/// `class`'s place in [`IClass::ALL`].
fn class_place(class: IClass) -> u8 {
    match class {
        IClass::Fx2 => 0,
        IClass::Shuf => 1,
        IClass::Fx3 => 2,
        IClass::Ls => 3,
        IClass::Br => 4,
        IClass::Spr => 5,
        IClass::Lnop => 6,
        IClass::Nop => 7,
        IClass::Fxb => 8,
        IClass::Fp6 => 9,
        IClass::Fp7 => 10,
        IClass::Fpd => 11,
    }
}

fn kind_offset(kind: AccessKind) -> u32 {
    match kind {
        AccessKind::Read => 0,
        AccessKind::Write => 1,
        AccessKind::InstructionFetch => 2,
    }
}

/// Copies `fields` one after the other into `payload` (whose length they add up to).
#[inline(always)]
fn put<const N: usize>(payload: &mut [u8; N], fields: &[&[u8]]) {
    let mut at = 0;
    for field in fields {
        if let Some(slot) = payload.get_mut(at..at + field.len()) {
            slot.copy_from_slice(field);
        }
        at += field.len();
    }
}

impl<S: PacketSink> StreamWriter<'_, S> {
    /// A memory access at its `tick`: `mem_read`/`mem_write`/`mem_fetch`, or their 64-bit
    /// forms when the pc, the address or the size does not fit the short one.
    #[inline(always)]
    pub fn mem_access(&mut self, access: &MemAccess) -> Result<(), EventLost> {
        let offset = kind_offset(access.kind);
        match (
            u32::try_from(access.pc),
            u32::try_from(access.address),
            u16::try_from(access.size),
        ) {
            (Ok(pc), Ok(address), Ok(size)) => {
                self.write_with(MEM_READ + offset, access.tick, |bytes: &mut [u8; 10]| {
                    bytes[..4].copy_from_slice(&pc.to_le_bytes());
                    bytes[4..8].copy_from_slice(&address.to_le_bytes());
                    bytes[8..].copy_from_slice(&size.to_le_bytes());
                })
            }
            _ => self.write_with(MEM_READ64 + offset, access.tick, |bytes: &mut [u8; 20]| {
                put(
                    bytes,
                    &[
                        &access.pc.to_le_bytes(),
                        &access.address.to_le_bytes(),
                        &access.size.to_le_bytes(),
                    ],
                );
            }),
        }
    }

    /// A completed DMA transfer at its completion cycle (`dma`, or `dma_list_element` for an
    /// element of a list command).
    pub fn dma(&mut self, event: &DmaEvent) -> Result<(), EventLost> {
        // The SPU's queue takes opcodes up to 0xFF only.
        let command = event.command.opcode as u8;
        let fields: [&[u8]; 6] = [
            &[command],
            &[event.tag],
            &event.size.to_le_bytes(),
            &event.lsa.to_le_bytes(),
            &event.ea.to_le_bytes(),
            &event.issued.to_le_bytes(),
        ];
        match event.element {
            None => self.write_with(DMA, event.completed, |bytes: &mut [u8; 26]| {
                put(bytes, &fields);
            }),
            Some(element) => {
                self.write_with(DMA_LIST_ELEMENT, event.completed, |bytes: &mut [u8; 28]| {
                    put(bytes, &fields);
                    bytes[26..].copy_from_slice(&element.to_le_bytes());
                })
            }
        }
    }

    /// `cycles` stalled cycles for `reason` from cycle `start` on: one `stall` event, or one
    /// per `u32::MAX` cycles of a longer run.
    pub fn stall(&mut self, start: u64, reason: StallReason, cycles: u64) -> Result<(), EventLost> {
        self.stall_code(start, stall_code(reason), cycles)
    }

    /// [`stall`](Self::stall) with the reason's code ([`stall_code`]).
    #[inline]
    pub fn stall_code(&mut self, start: u64, code: u8, cycles: u64) -> Result<(), EventLost> {
        match u32::try_from(cycles) {
            Ok(cycles) => self.write_with(STALL, start, |bytes: &mut [u8; 5]| {
                bytes[0] = code;
                bytes[1..].copy_from_slice(&cycles.to_le_bytes());
            }),
            Err(_) => self.long_stall(start, code, cycles),
        }
    }

    /// A run of more than `u32::MAX` cycles, in parts.
    #[cold]
    fn long_stall(&mut self, start: u64, code: u8, cycles: u64) -> Result<(), EventLost> {
        let (mut at, mut left) = (start, cycles);
        while left > 0 {
            let part = left.min(u64::from(u32::MAX));
            self.stall_code(at, code, part)?;
            at += part;
            left -= part;
        }
        Ok(())
    }

    /// One event's PMU reading at `timestamp` (`pmu_count`): its raw count and its times
    /// enabled and running, all since the readings began.
    pub fn pmu_count(&mut self, timestamp: u64, reading: &EventReading) -> Result<(), EventLost> {
        self.write_with(PMU_COUNT, timestamp, |bytes: &mut [u8; 26]| {
            put(
                bytes,
                &[
                    &reading.event.number().to_le_bytes(),
                    &reading.raw.to_le_bytes(),
                    &reading.enabled.to_le_bytes(),
                    &reading.running.to_le_bytes(),
                ],
            );
        })
    }

    /// PC event `event` (its number in the metadata's list of names) fired at `pc`.
    pub fn pc_event(&mut self, timestamp: u64, pc: u64, event: u16) -> Result<(), EventLost> {
        self.write_with(PC_EVENT, timestamp, |bytes: &mut [u8; 10]| {
            bytes[..8].copy_from_slice(&pc.to_le_bytes());
            bytes[8..].copy_from_slice(&event.to_le_bytes());
        })
    }
}
