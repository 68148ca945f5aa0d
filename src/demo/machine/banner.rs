//! Section 1: what this core is, how its memory is set up, its interrupt controller and power
//! firmware, the other cores (started here) and what each core's PMU offers.

use crate::demo::shared::host_meter::{HOST_EVENTS, Unsupported};
use crate::demo::shared::output::outln;
use pmprobe::pmu::{PmuBackend, PmuInfo, SysRegPmu, detect};
use pmprobe::rt::ZeroSlot;
use pmprobe::rt::smp::{self, MAX_CORES};
use pmprobe::sync::IrqSpinMutex;

/// Each core's PMU as that core sees it, by core number.
static CORE_PMUS: [IrqSpinMutex<ZeroSlot<Result<PmuInfo, pmprobe::pmu::Error>>>; MAX_CORES] =
    [const { IrqSpinMutex::new(ZeroSlot::new()) }; MAX_CORES];

/// Starts the other cores (and tries `extra_cores`), then lists every core: its MPIDR and its
/// own PMU (read on that core), and the cores that did not start, by MPIDR.
fn print_cores(extra_cores: &[u64]) {
    let report = smp::bring_up(extra_cores);
    if let Some(e) = report.no_psci {
        outln!("  cores    1 (no other core started: {e})");
        return;
    }
    outln!(
        "  cores    {} (the boot core + {} started with PSCI CPU_ON; numbered in that order)",
        smp::online(),
        report.started
    );
    let errors = smp::on_each_core(&|core| {
        let info = detect(&SysRegPmu::new());
        if let Some(slot) = CORE_PMUS.get(core.index()) {
            slot.lock(|slot| slot.set(info));
        }
    });
    for core in smp::cores() {
        let mpidr = smp::mpidr(core).unwrap_or(0);
        let pmu = CORE_PMUS
            .get(core.index())
            .and_then(|slot| slot.lock(|slot| slot.get().copied()));
        match pmu {
            Some(Ok(info)) => outln!(
                "  {core:<8} MPIDR {mpidr:#010x}, {} (PMUVer {}), N = {}",
                info.version,
                info.version.pmuver(),
                info.counters
            ),
            Some(Err(e)) => outln!("  {core:<8} MPIDR {mpidr:#010x}, PMU: {e}"),
            None => outln!("  {core:<8} MPIDR {mpidr:#010x}, did not run to read its PMU"),
        }
    }
    for failure in report.failures.iter().chain(errors.iter()) {
        outln!("  error    {failure}; the demo goes on with the cores that started");
    }
    if report.more_failures > 0 {
        outln!(
            "  error    {} more cores did not start",
            report.more_failures
        );
    }
    if report.left_off > 0 {
        outln!(
            "  cores    {} more cores left off: the runtime numbers {MAX_CORES}",
            report.left_off
        );
    }
}

/// Prints the banner and brings the other cores up; `false` when there is no usable PMU.
pub fn print(extra_cores: &[u64]) -> bool {
    let real = SysRegPmu::new();
    outln!("pmprobe demo firmware");
    outln!(
        "  CPU      {} (MIDR_EL1 0x{:08x})",
        pmprobe::pmu::decode_midr(real.midr()),
        real.midr()
    );
    outln!("  EL       {}", real.current_el());
    outln!("  memory   {}", pmprobe::rt::pagetable::MemoryState::read());
    match (pmprobe::rt::irq::version(), pmprobe::rt::irq::lines()) {
        (Ok(version), Ok(lines)) => outln!("  GIC      {version} ({lines} INTIDs)"),
        (Err(e), _) | (_, Err(e)) => outln!("  GIC      none: {e}"),
    }
    let psci = pmprobe::rt::psci::Psci::default();
    match psci.version() {
        Ok(version) => outln!("  PSCI     {version} through {}", psci.conduit()),
        Err(e) => outln!("  PSCI     none: {e}"),
    }
    print_cores(extra_cores);
    match detect(&real) {
        Ok(info) => {
            outln!(
                "  PMU      {} (PMUVer {})",
                info.version,
                info.version.pmuver()
            );
            outln!(
                "  counters N = {} event counters + cycle counter",
                info.counters
            );
            outln!(
                "  events   {} implemented common events: {}",
                info.events.len(),
                info.events
            );
            for event in HOST_EVENTS {
                if !info.events.contains(event) {
                    let lacking = Unsupported {
                        event,
                        events: info.events,
                    };
                    outln!("  events   {lacking}");
                }
            }
            true
        }
        Err(e) => {
            outln!("  PMU      {e}");
            false
        }
    }
}

/// `--fault`: executes an undefined instruction. The runtime's vector table prints the
/// exception report (class, ESR, ELR, FAR, SPSR) and ends QEMU with a non-zero status.
pub fn provoke_exception() -> ! {
    outln!();
    outln!("== --fault: executing an undefined instruction (udf #0x9) on purpose");
    // SAFETY: deliberately faults; the runtime's exception handler reports it and exits, so
    // execution never continues past this instruction.
    unsafe { core::arch::asm!("udf #0x9", options(noreturn)) }
}

/// Under `--no-icount`: says that the counts are not exact and what follows.
pub fn print_count_mode(no_icount: bool) {
    if no_icount {
        outln!(
            "  counts   not exact (QEMU without -icount): checks needing exact counts are skipped"
        );
    }
}
