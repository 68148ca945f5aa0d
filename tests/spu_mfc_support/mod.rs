//! What the MFC tests share: a main memory, programs assembled from GNU-style sources with the
//! `dma` macro below, runs in either mode with every DMA transfer recorded.

#![allow(dead_code)] // each test file uses its own part

use std::cell::RefCell;

use pmprobe::spu::exec::{RunEnd, RunOutcome};
use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::main_memory::{MainMemory, Requester, SharedMemory};
use pmprobe::spu::mfc::DmaEvent;
use pmprobe::spu::probes::{SpuObserver, StallReason};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

/// Both modes, for tests whose functional results must not depend on the mode.
pub const MODES: [Mode; 2] = [Mode::Instruction, Mode::Pipeline];

/// A main memory of `bytes` zero bytes, leaked: SPUs hold `'static` references to theirs.
pub fn memory(bytes: usize) -> &'static MainMemory<Vec<u8>> {
    Box::leak(Box::new(MainMemory::new(vec![0u8; bytes])))
}

/// Writes `bytes` at `ea` as the host.
pub fn host_write(memory: &dyn SharedMemory, ea: u64, bytes: &[u8]) {
    memory.write(Requester::Host, ea, bytes).unwrap();
}

/// `len` bytes of main memory at `ea`.
pub fn host_read(memory: &dyn SharedMemory, ea: u64, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    memory.read(ea, &mut out).unwrap();
    out
}

/// A recognisable pattern: byte `i` is `seed + i` (mod 256).
pub fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len).map(|i| seed.wrapping_add(i as u8)).collect()
}

/// `dma CMD, LSA, EA, SIZE, TAG`: writes the five parameter channels and `MFC_Cmd` with
/// immediates (the EA up to 32 bits through `ilhu`/`iohl` with gas's `@h`/`@l`, which take a
/// label too, where gas refuses `>>` and `&` on one), as `spu_mfcio.h`'s `mfc_get`
/// family does; `$2` is scratch. `wait TAGMASK`: waits for all the groups in the mask.
pub const MACROS: &str = "
.macro dma cmd, lsa, ea, size, tag
    ila $2, \\lsa
    wrch $MFC_LSA, $2
    il $2, 0
    wrch $MFC_EAH, $2
    ilhu $2, \\ea@h
    iohl $2, \\ea@l
    wrch $MFC_EAL, $2
    ila $2, \\size
    wrch $MFC_Size, $2
    ila $2, \\tag
    wrch $MFC_TagID, $2
    ila $2, \\cmd
    wrch $MFC_Cmd, $2
.endm
.macro wait mask
    ilhu $2, \\mask@h
    iohl $2, \\mask@l
    wrch $MFC_WrTagMask, $2
    il $2, 2
    wrch $MFC_WrTagUpdate, $2
    rdch $2, $MFC_RdTagStat
.endm
";

/// Records every notification a DMA test looks at.
#[derive(Default)]
pub struct Recorder {
    pub dma: RefCell<Vec<DmaEvent>>,
    pub channel_wait: RefCell<u64>,
    pub dma_local_store: RefCell<u64>,
}

impl SpuObserver for Recorder {
    fn dma(&self, event: &DmaEvent) {
        self.dma.borrow_mut().push(*event);
    }
    fn issue_stall(&self, reason: StallReason) {
        match reason {
            StallReason::ChannelWait => *self.channel_wait.borrow_mut() += 1,
            StallReason::DmaLocalStore => *self.dma_local_store.borrow_mut() += 1,
            _ => {}
        }
    }
    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        for _ in 0..n {
            self.issue_stall(reason);
        }
    }
}

/// An SPU loaded with `source` (the macros above prepended), attached to `memory`.
pub fn load(source: &str, memory: &'static dyn SharedMemory, mode: Mode, id: u8) -> Box<SpuUnit> {
    let text = format!("{MACROS}\n{source}");
    let mut image = vec![0u8; 64 * 1024];
    let program = assemble::<256>(&text, &mut image).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut unit = Box::new(SpuUnit::new(id));
    unit.load_program(&image[..program.len], program.entry)
        .unwrap();
    unit.arch_mut().attach_main_memory(memory);
    unit.set_mode(mode);
    unit
}

/// Runs `unit` for at most `cycles` cycles, recording its DMA transfers and waits.
pub fn run(unit: &mut SpuUnit, cycles: u64, recorder: &Recorder) -> RunOutcome {
    unit.run(cycles, recorder, &mut Discard).unwrap()
}

/// Loads and runs `source` until it stops (at most a million cycles).
pub fn run_program(
    source: &str,
    memory: &'static dyn SharedMemory,
    mode: Mode,
) -> (Box<SpuUnit>, RunOutcome, Vec<DmaEvent>) {
    let mut unit = load(source, memory, mode, 0);
    let recorder = Recorder::default();
    let outcome = run(&mut unit, 1_000_000, &recorder);
    let events = recorder.dma.take();
    (unit, outcome, events)
}

/// Whether the run ended with a `stop`.
pub fn stopped(outcome: &RunOutcome) -> bool {
    matches!(
        outcome.end,
        RunEnd::Stopped(pmprobe::spu::exec::StopReason::Stop { .. })
    )
}

/// `len` bytes of `unit`'s local store at `lsa`.
pub fn ls_bytes(unit: &SpuUnit, lsa: u32, len: u32) -> Vec<u8> {
    (lsa..lsa + len)
        .map(|a| unit.arch().local_store().load_byte(a))
        .collect()
}

/// The preferred word of register `$r`.
pub fn word(unit: &SpuUnit, r: u8) -> u32 {
    unit.arch().register(r).preferred_word()
}
