//! DMA bandwidth against transfer size, from the model in pipeline mode: an SPU moves 1 MiB
//! from main memory in transfers of each size, once waiting for every transfer before the
//! next (blocking), once with 16 in flight (the queue full), and the figures come out as
//! bytes per cycle and GB/s at 3.2 GHz. A first line gives one 128-byte get's time from issue
//! to completion, as the DMA probe point reports it. `cargo bench --bench spu_dma_bandwidth`;
//! the table is in BENCHMARKS.md beside the published figures.

use std::cell::Cell;

use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::main_memory::MainMemory;
use pmprobe::spu::mfc::DmaEvent;
use pmprobe::spu::probes::{NoProbes, SpuObserver};
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};

const TOTAL: u32 = 1 << 20;
const CLOCK_GHZ: f64 = 3.2;

/// A program that moves `TOTAL` bytes in transfers of `size` bytes, `batch` in flight before
/// it waits for them all.
fn program(size: u32, batch: u32) -> String {
    let rounds = TOTAL / size / batch;
    format!(
        "_start:
            ila $10, {rounds}
            il $11, 0
            ila $12, {size}
            il $2, 1
            wrch $MFC_WrTagMask, $2
        round:
            ila $13, {batch}
        one:
            ila $2, 0x10000
            wrch $MFC_LSA, $2
            il $2, 0
            wrch $MFC_EAH, $2
            wrch $MFC_EAL, $11
            wrch $MFC_Size, $12
            il $2, 0
            wrch $MFC_TagID, $2
            il $2, 0x40
            wrch $MFC_Cmd, $2
            a $11, $11, $12
            ai $13, $13, -1
            brnz $13, one
            il $2, 2
            wrch $MFC_WrTagUpdate, $2
            rdch $2, $MFC_RdTagStat
            ai $10, $10, -1
            brnz $10, round
            stop"
    )
}

/// Keeps the issue-to-completion time of the last transfer it hears of.
#[derive(Default)]
struct LastLatency(Cell<u64>);

impl SpuObserver for LastLatency {
    fn dma(&self, event: &DmaEvent) {
        self.0.set(event.completed - event.issued);
    }
}

/// Cycles the program takes in pipeline mode (real fetch).
fn cycles(size: u32, batch: u32) -> u64 {
    run(size, batch, &NoProbes)
}

/// Runs the program under `observer` and returns its cycles.
fn run(size: u32, batch: u32, observer: &impl SpuObserver) -> u64 {
    let memory: &'static MainMemory<Vec<u8>> =
        Box::leak(Box::new(MainMemory::new(vec![0u8; TOTAL as usize])));
    let mut image = vec![0u8; 4096];
    let assembled = assemble::<16>(&program(size, batch), &mut image).expect("the program");
    let mut unit = Box::new(SpuUnit::new(0));
    unit.load_program(&image[..assembled.len], assembled.entry)
        .expect("it fits");
    unit.attach_main_memory(memory);
    unit.set_mode(Mode::Pipeline);
    let outcome = unit
        .run(u64::MAX, observer, &mut Discard)
        .expect("the model runs");
    assert_eq!(unit.arch().dma_stats().bytes_in, u64::from(TOTAL));
    outcome.cycles
}

fn main() {
    let latency = LastLatency::default();
    run(128, 1, &latency);
    let line = latency.0.get();
    println!(
        "one 128 B get, issue to completion: {line} cycles ({:.0} ns at {CLOCK_GHZ} GHz)\n",
        line as f64 / CLOCK_GHZ
    );
    println!(
        "| transfer | blocking B/cycle | blocking GB/s | 16 in flight B/cycle | 16 in flight GB/s |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for size in [128, 256, 512, 1024, 2048, 4096, 8192, 16384] {
        let rate = |cycles: u64| f64::from(TOTAL) / cycles as f64;
        let blocking = rate(cycles(size, 1));
        let queued = rate(cycles(size, 16));
        println!(
            "| {size} B | {blocking:.2} | {:.1} | {queued:.2} | {:.1} |",
            blocking * CLOCK_GHZ,
            queued * CLOCK_GHZ
        );
    }
}
