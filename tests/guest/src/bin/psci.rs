//! PSCI through smccc: the board's firmware answers on its conduit (QEMU `virt` at EL1: `hvc`),
//! reports this core as on, and a conduit that nothing answers (`smc` here: no EL3) gives a typed
//! error instead of an undefined-instruction crash.
#![no_std]
#![no_main]

use aarch64_cpu::registers::{MPIDR_EL1, Readable};
use pmprobe::rt::psci::{AffinityState, Conduit, Psci, PsciError};

pmprobe::entry!(main);

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("psci");
    let psci = Psci::default();
    t.check_eq("conduit_at_el1_is_hvc", psci.conduit(), Conduit::Hvc);
    let version = psci.version();
    pmprobe::println!("PSCI version through hvc: {version:?}");
    t.check_with(
        "version_1_x",
        matches!(version, Ok(v) if v.major == 1),
        format_args!("{version:?}"),
    );
    t.check_eq(
        "this_core_is_on",
        psci.affinity_info(MPIDR_EL1.get()),
        Ok(AffinityState::On),
    );
    let absent = Psci::new(Conduit::Smc);
    let unanswered = absent.version();
    pmprobe::println!("PSCI version through smc: {unanswered:?}");
    t.check_eq(
        "smc_without_firmware_is_an_error",
        unanswered,
        Err(PsciError::NotAnswering(Conduit::Smc)),
    );
    t.check_eq(
        "system_off_without_firmware_returns_the_error",
        absent.system_off(),
        PsciError::NotAnswering(Conduit::Smc),
    );
    // The probe disarms: a later real call still works.
    t.check("hvc_still_answers", psci.version().is_ok());
    t.finish()
}
