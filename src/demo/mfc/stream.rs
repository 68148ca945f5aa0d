//! Section: the streaming kernel over 1 MiB of main memory, once with one local-store buffer
//! and once with two, in pipeline mode, where DMA runs while the SPU computes. The figures
//! that show the overlap are the cycles the SPU waited on the MFC (the pipeline's
//! channel-wait stall class, which the MFC counts too as `DmaStats::wait_cycles`) and the
//! total cycles of each run; both outputs are compared with Rust, word for word.

use pmprobe::spu::main_memory::SharedMemory;
use pmprobe::spu::mfc::DmaStats;
use pmprobe::spu::pipeline::Statistics;
use pmprobe::spu::probes::SpuProbes;
use pmprobe::spu::unit::SpuUnit;

use super::kernels::{
    BLOCK_BYTES, Mismatch, STREAM_BLOCKS, STREAM_BYTES, STREAM_ELEMENTS, STREAM_OUTPUT,
    check_stream_output, clear, stream_mailbox, write_stream_input,
};
use super::section::{End, Ended, STREAM, Sliced, load, stopped};
use crate::demo::shared::checks::Checks;
use crate::demo::shared::host_meter::PerCycle;
use crate::demo::shared::output::{heading, outln};

/// The arena's SPU the stream runs on (the demo's kernels use SPU0..SPU3, the channel pair
/// SPU4 and SPU5).
pub const SPU: usize = 6;
/// Cycles a run may take (one buffer takes about 660 000).
const CYCLE_BUDGET: u64 = 5_000_000;
/// The SPU clock the bandwidth is given at: the Cell's 3.2 GHz, in units of 100 MHz.
const CLOCK_100MHZ: u64 = 32;

/// One run of the kernel.
struct StreamRun {
    buffers: u32,
    end: Option<End>,
    stats: Statistics,
    dma: DmaStats,
    /// What the kernel sent to its outbound mailbox: the output's checksum.
    checksum: Option<u32>,
    /// The output checked against Rust: Rust's checksum when every word matched.
    output: Result<u32, Mismatch>,
}

/// Fills the input, runs the kernel with one buffer and with two, prints the section and
/// checks it.
pub fn run(unit: &mut SpuUnit, memory: &dyn SharedMemory, checks: &mut Checks) {
    heading(format_args!(
        "MFC streaming: demo_stream.s on SPU{SPU}, 1 MiB of f32 through the local store in {STREAM_BLOCKS} blocks of {} KiB, y = 1.5*x + 3",
        BLOCK_BYTES / 1024
    ));
    outln!(
        "  EA 0 -> y = 1.5*x + 3 in place (fma) -> EA 0x100000; pipeline mode, real fetch. One buffer:"
    );
    outln!("  get, wait, compute, put, fenced get. Two: block k+1 in, k-1 out while k computes.");
    if let Err(error) = write_stream_input(memory) {
        checks.check(format_args!("stream_input"), false, format_args!("{error}"));
        return;
    }
    let runs = [1, 2].map(|buffers| run_once(unit, memory, buffers));
    outln!(
        "  buffers   cycles    insts  DMA wait  wait %  LS port  MFC busy  B/busy cyc     B/cycle  GB/s@3.2"
    );
    for run in &runs {
        let bytes = run.dma.bytes();
        outln!(
            "  {:>7} {:>8} {:>8} {:>9} {:>7} {:>8} {:>9} {:>11} {:>11} {:>7}",
            run.buffers,
            run.stats.cycles,
            run.stats.instructions,
            run.stats.channel_wait_stalls,
            PerCycle(100 * run.stats.channel_wait_stalls, run.stats.cycles),
            run.stats.dma_local_store_stalls,
            run.dma.busy_cycles,
            PerCycle(bytes, run.dma.busy_cycles),
            PerCycle(bytes, run.stats.cycles),
            PerCycle(bytes * CLOCK_100MHZ, run.stats.cycles * 10),
        );
    }
    for run in &runs {
        report(run, checks);
    }
    let [one, two] = &runs;
    let (waited_one, waited_two) = (one.stats.channel_wait_stalls, two.stats.channel_wait_stalls);
    checks.check(
        format_args!("stream_double_buffering_waits_less"),
        waited_two < waited_one && two.stats.cycles < one.stats.cycles,
        format_args!(
            "DMA wait {waited_two} cycles with two buffers, {waited_one} with one; {} cycles against {}",
            two.stats.cycles, one.stats.cycles
        ),
    );
}

/// Clears the output, runs the kernel with `buffers` buffers to its end and checks the output.
fn run_once(unit: &mut SpuUnit, memory: &dyn SharedMemory, buffers: u32) -> StreamRun {
    let mut run = StreamRun {
        buffers,
        end: None,
        stats: Statistics::new(),
        dma: DmaStats::new(),
        checksum: None,
        output: Ok(0),
    };
    if let Err(error) = clear(memory, STREAM_OUTPUT, STREAM_BYTES) {
        run.output = Err(Mismatch::Memory(error));
        return run;
    }
    if let Err(why) = load(unit, STREAM, &stream_mailbox(buffers)) {
        run.end = Some(Err(why));
        return run;
    }
    // One slice as long as the budget: the kernel never waits on the host.
    let mut sliced = Sliced::default();
    sliced.slice(unit, &SpuProbes::new(), CYCLE_BUDGET, CYCLE_BUDGET);
    run.end = Some(
        sliced
            .end
            .unwrap_or(Err("did not stop within the cycle budget")),
    );
    run.stats = *unit.stats();
    run.dma = *unit.arch().dma_stats();
    run.checksum = unit.read_outbound_mailbox();
    run.output = check_stream_output(memory);
    run
}

fn report(run: &StreamRun, checks: &mut Checks) {
    let b = run.buffers;
    let name = format_args!("stream_{b}buf_result");
    match &run.output {
        Ok(expected) if stopped(run.end.as_ref()) && run.checksum == Some(*expected) => {
            checks.check(
                name,
                true,
                format_args!(
                    "all {STREAM_ELEMENTS} y equal Rust f32, checksum {expected:#010x} = Rust's"
                ),
            );
        }
        Ok(expected) => checks.check(
            name,
            false,
            format_args!(
                "{}, checksum {:#010x}; Rust says {expected:#010x}",
                Ended(run.end.as_ref()),
                run.checksum.unwrap_or(0)
            ),
        ),
        Err(mismatch) => checks.check(
            name,
            false,
            format_args!("{}: {mismatch}", Ended(run.end.as_ref())),
        ),
    }
    let sums = run.stats.check_identities().is_ok();
    checks.check(
        format_args!("stream_{b}buf_wait_vs_mfc"),
        run.stats.channel_wait_stalls == run.dma.wait_cycles && sums,
        format_args!(
            "channel-wait stalls {} vs MFC wait cycles {}; cycle categories {} the total",
            run.stats.channel_wait_stalls,
            run.dma.wait_cycles,
            if sums { "sum to" } else { "do NOT sum to" }
        ),
    );
    let commands = 2 * u64::from(STREAM_BLOCKS);
    checks.check(
        format_args!("stream_{b}buf_bytes"),
        run.dma.bytes_in == STREAM_BYTES
            && run.dma.bytes_out == STREAM_BYTES
            && run.dma.commands == commands,
        format_args!(
            "{} bytes in, {} out, {} commands; 1 MiB each way, {commands} expected",
            run.dma.bytes_in, run.dma.bytes_out, run.dma.commands
        ),
    );
}
