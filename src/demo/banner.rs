//! Section 1: what this core is, how its memory is set up, its interrupt controller and power
//! firmware, and what its PMU offers.

use pmprobe::pmu::{PmuBackend, SysRegPmu, detect};
use pmprobe::println;

/// Prints the banner; `false` when there is no usable PMU.
pub fn print() -> bool {
    let real = SysRegPmu::new();
    println!("pmprobe demo firmware");
    println!(
        "  CPU      {} (MIDR_EL1 0x{:08x})",
        pmprobe::pmu::decode_midr(real.midr()),
        real.midr()
    );
    println!("  EL       {}", real.current_el());
    println!("  memory   {}", pmprobe::rt::pagetable::MemoryState::read());
    match (pmprobe::rt::irq::version(), pmprobe::rt::irq::lines()) {
        (Ok(version), Ok(lines)) => println!("  GIC      {version} ({lines} INTIDs)"),
        (Err(e), _) | (_, Err(e)) => println!("  GIC      none: {e}"),
    }
    let psci = pmprobe::rt::psci::Psci::default();
    match psci.version() {
        Ok(version) => println!("  PSCI     {version} through {}", psci.conduit()),
        Err(e) => println!("  PSCI     none: {e}"),
    }
    match detect(&real) {
        Ok(info) => {
            println!(
                "  PMU      {} (PMUVer {})",
                info.version,
                info.version.pmuver()
            );
            println!(
                "  counters N = {} event counters + cycle counter",
                info.counters
            );
            println!(
                "  events   {} implemented common events: {}",
                info.events.len(),
                info.events
            );
            true
        }
        Err(e) => {
            println!("  PMU      {e}");
            false
        }
    }
}

/// `--fault`: executes an undefined instruction. The runtime's vector table prints the
/// exception report (class, ESR, ELR, FAR, SPSR) and ends QEMU with a non-zero status.
pub fn provoke_exception() -> ! {
    println!();
    println!("== --fault: executing an undefined instruction (udf #0x9) on purpose");
    // SAFETY: deliberately faults; the runtime's exception handler reports it and exits, so
    // execution never continues past this instruction.
    unsafe { core::arch::asm!("udf #0x9", options(noreturn)) }
}
