//! Section 5: the host table, what the host core spent per simulated SPU cycle on each SPU's
//! run with its listeners attached and on its bare run.

use pmprobe::spu::unit::Mode;

use crate::demo::shared::checks::Checks;
use crate::demo::shared::host_meter::{HostDelta, PerCycle, Unsupported};
use crate::demo::shared::mode_name::mode_name;
use crate::demo::shared::output::{heading, outln};

/// One SPU's figures for the host table.
#[derive(Clone, Copy)]
pub struct HostRow {
    pub spu: usize,
    pub mode: Mode,
    pub spu_cycles: u64,
    pub host: Option<HostDelta>,
    pub host_bare: Option<HostDelta>,
}

/// `alone`: the rows come from the one-core reference runs (the SPU phase ran on several
/// cores, whose counts QEMU does not keep apart under `-icount`).
/// `unsupported`: an event of the table this core's PMU lacks; the checks that need it are
/// skipped with that evidence.
pub fn print_host_table(
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
