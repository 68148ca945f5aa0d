//! Sections 5 and 6: the host table, the stack distance chart, the trace files.

use pmprobe::rt::semihosting::HostError;
use pmprobe::spu::unit::Mode;

use super::checks::Checks;
use super::files::BufferedHostFile;
use super::host::{HostDelta, PerCycle, Unsupported};
use super::output::{heading, outln};
use super::plan::{
    DIN_FILE, DISTANCE_LINE_BYTES, Distances, KONATA_FILE, SMALL_TRACE_RECORDS, SmallTrace, Trace,
    mode_name,
};

/// One SPU's figures for the host table.
#[derive(Clone, Copy)]
pub struct HostRow {
    pub(super) spu: usize,
    pub(super) mode: Mode,
    pub(super) spu_cycles: u64,
    pub(super) host: Option<HostDelta>,
    pub(super) host_bare: Option<HostDelta>,
}

/// `alone`: the rows come from the one-core reference runs (the SPU phase ran on several
/// cores, whose counts QEMU does not keep apart under `-icount`).
/// `unsupported`: an event of the table this core's PMU lacks; the checks that need it are
/// skipped with that evidence.
pub(super) fn print_host_table(
    rows: &[HostRow],
    alone: bool,
    unsupported: Option<Unsupported>,
    checks: &mut Checks,
) {
    heading(format_args!(
        "Host core: its real PMU (INST_RETIRED, CPU_CYCLES) around the SPU runs"
    ));
    outln!("  attached: the counted run with the PMU feed (rotated every 2048 SPU cycles) and the");
    outln!("  listeners above; bare: a run with no listener on any probe point. Under -icount");
    outln!("  shift=0 one instruction = one cycle.");
    if alone {
        outln!("  Measured in the one-core reference runs, while the other cores were off.");
    }
    outln!(
        "  {:<5} {:<12} {:>10} {:>14} {:>14} {:>16} {:>14}",
        "SPU",
        "mode",
        "SPU cycles",
        "host insts",
        "host cycles",
        "insts/SPU cycle",
        "bare insts/cyc"
    );
    // [pipeline, instruction] x (SPU cycles, host instructions, host cycles, bare instructions)
    let mut sums = [(0u64, 0u64, 0u64, 0u64); 2];
    for row in rows {
        let (Some(host), Some(bare)) = (row.host, row.host_bare) else {
            match unsupported {
                Some(lacking) => outln!(
                    "  SPU{:<2} {:<12} {:>10} ({} not supported by this PMU)",
                    row.spu,
                    mode_name(row.mode),
                    row.spu_cycles,
                    lacking.event
                ),
                None => outln!(
                    "  SPU{:<2} {:<12} {:>10} (host PMU not available)",
                    row.spu,
                    mode_name(row.mode),
                    row.spu_cycles
                ),
            }
            continue;
        };
        outln!(
            "  SPU{:<2} {:<12} {:>10} {:>14} {:>14} {:>16} {:>14}",
            row.spu,
            mode_name(row.mode),
            row.spu_cycles,
            host.instructions,
            host.cycles,
            PerCycle(host.instructions, row.spu_cycles),
            PerCycle(bare.instructions, row.spu_cycles)
        );
        let sum = &mut sums[usize::from(row.mode == Mode::Instruction)];
        sum.0 += row.spu_cycles;
        sum.1 += host.instructions;
        sum.2 += host.cycles;
        sum.3 += bare.instructions;
    }
    for (name, (spu_cycles, insts, cycles, bare)) in
        [("pipeline", sums[0]), ("instruction", sums[1])]
    {
        outln!(
            "  {name} mode: {} host instructions ({} host cycles) per simulated SPU cycle attached, {} bare",
            PerCycle(insts, spu_cycles),
            PerCycle(cycles, spu_cycles),
            PerCycle(bare, spu_cycles)
        );
    }
    for row in rows {
        match (row.host, row.host_bare, unsupported) {
            (Some(host), Some(bare), _) => checks.check(
                format_args!("host_measured_spu{}", row.spu),
                bare.instructions > row.spu_cycles && host.instructions > bare.instructions,
                format_args!("the host retired more than one instruction per SPU cycle, more with listeners than without"),
            ),
            (_, _, Some(lacking)) => checks.skip(
                format_args!("host_measured_spu{}", row.spu),
                format_args!("{lacking}"),
            ),
            _ => {}
        }
    }
}

pub(super) fn print_stack_distance(distances: &Distances, accesses: u64, checks: &mut Checks) {
    heading(format_args!(
        "Stack distance of SPU1's LS data accesses ({DISTANCE_LINE_BYTES}-byte lines, log2 bins)"
    ));
    let recorded = distances.with(|calculator| {
        super::chart::print(calculator);
        (
            calculator.reads().total() + calculator.writes().total(),
            calculator.evictions(),
        )
    });
    let (recorded, evictions) = recorded.unwrap_or((0, u64::MAX));
    checks.equal(
        format_args!("stack_distance_accesses"),
        "accesses seen vs PMU LD_RETIRED + ST_RETIRED",
        recorded,
        accesses,
    );
    checks.equal(
        format_args!("stack_distance_exact"),
        "lines evicted from the calculator (0: every distance exact)",
        evictions,
        0,
    );
}

pub(super) fn write_trace(trace: &Trace, small: &SmallTrace, accesses: u64, checks: &mut Checks) {
    heading(format_args!(
        "Memory trace of SPU3 (Dinero IV din) through semihosting"
    ));
    let held = trace
        .with(|t| (t.len() as u64, t.dropped()))
        .unwrap_or((0, u64::MAX));
    checks.equal(
        format_args!("trace_complete"),
        "records held vs PMU LD_RETIRED + ST_RETIRED",
        held.0,
        accesses,
    );
    checks.equal(
        format_args!("trace_no_drops"),
        "records dropped by the big ring",
        held.1,
        0,
    );
    let small_counts = small
        .with(|t| (t.len() as u64, t.dropped()))
        .unwrap_or((0, 0));
    outln!(
        "  small ring ({SMALL_TRACE_RECORDS} records, drop newest): kept {}, dropped {} records",
        small_counts.0,
        small_counts.1
    );
    checks.check(
        format_args!("small_trace_overflow_counted"),
        small_counts.0 == SMALL_TRACE_RECORDS as u64 && small_counts.0 + small_counts.1 == accesses,
        format_args!(
            "kept + dropped = {} = accesses {accesses}",
            small_counts.0 + small_counts.1
        ),
    );
    let written = BufferedHostFile::create(DIN_FILE).and_then(|mut file| {
        let _ = trace.with(|t| t.write_din(&mut file));
        file.finish()
    });
    match written {
        Ok(bytes) => {
            outln!("  wrote {DIN_FILE} ({} records, {bytes} bytes)", held.0);
            checks.check(
                format_args!("din_written"),
                bytes > 0,
                format_args!("{DIN_FILE}"),
            );
        }
        Err(e) => checks.check(
            format_args!("din_written"),
            false,
            format_args!("{DIN_FILE}: {e}"),
        ),
    }
}

/// Reports the Kanata log written during a kernel's log run: (SPU, bytes or error, the
/// instructions that run completed).
pub(super) fn write_konata(
    written: Option<(usize, Result<usize, HostError>, u64)>,
    checks: &mut Checks,
) {
    heading(format_args!(
        "Konata pipeline log (Kanata 0004) through semihosting"
    ));
    match written {
        Some((spu, Ok(bytes), instructions)) => {
            outln!(
                "  wrote {KONATA_FILE} ({bytes} bytes): SPU{spu}'s log run (uncounted), every cycle, {instructions} instructions; open it in the Konata viewer"
            );
            checks.check(
                format_args!("konata_written"),
                bytes > 0,
                format_args!("{KONATA_FILE}"),
            );
        }
        Some((_, Err(e), _)) => {
            checks.check(
                format_args!("konata_written"),
                false,
                format_args!("{KONATA_FILE}: {e}"),
            );
        }
        None => checks.check(
            format_args!("konata_written"),
            false,
            format_args!("no kernel wrote the Konata log"),
        ),
    }
}
