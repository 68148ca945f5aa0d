//! Only one core runs the boot and main. Every other core of the machine is sent to the image's
//! first instruction with PSCI CPU_ON, as firmware that releases all cores at the entry point
//! would: each must be counted and parked by the entry's election, before it touches the boot
//! stack or `.bss` (a second boot would zero `.bss` under main and start main again, which the
//! host test sees as a second `start` line). The cores probed include one whose MPIDR Aff0 is 0
//! in another cluster (Aff1 = 1), when the machine has it.
#![no_std]
#![no_main]

use aarch64_cpu::registers::{MPIDR_EL1, Readable};
use pmprobe::rt::boot;
use pmprobe::rt::psci::{AffinityState, Psci};

pmprobe::entry!(main);

/// MPIDR affinity values to try: Aff0 1..=15 in cluster 0, and Aff0 0..=3 in cluster 1.
const CANDIDATES: [u64; 19] = [
    0x001, 0x002, 0x003, 0x004, 0x005, 0x006, 0x007, 0x008, 0x009, 0x00a, 0x00b, 0x00c, 0x00d,
    0x00e, 0x00f, 0x100, 0x101, 0x102, 0x103,
];

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("boot_smp");
    let me = MPIDR_EL1.get();
    t.check_eq("boot_core_is_this_core", boot::boot_core_mpidr(), me);
    t.check_eq("no_core_turned_away_yet", boot::turned_away_cores(), 0);
    let psci = Psci::default();
    let entry = boot::image_entry() as u64;
    let mut started = 0u32;
    let mut cluster_1_aff0_0 = false;
    for mpidr in CANDIDATES {
        if psci.affinity_info(mpidr) != Ok(AffinityState::Off) {
            continue;
        }
        let on = psci.cpu_on(mpidr, entry, 0);
        pmprobe::println!("core {mpidr:#05x}: CPU_ON at the image entry {entry:#x}: {on:?}");
        if on.is_ok() {
            started += 1;
            cluster_1_aff0_0 |= mpidr == 0x100;
        }
    }
    // Each started core runs a few dozen instructions before it is counted.
    let mut waited = 0u32;
    while boot::turned_away_cores() < started && waited < 10_000_000 {
        waited += 1;
        core::hint::spin_loop();
    }
    pmprobe::println!(
        "started {started} cores, turned away {}, cluster 1 core with Aff0 = 0: {cluster_1_aff0_0}",
        boot::turned_away_cores()
    );
    t.check_eq(
        "every_started_core_turned_away",
        boot::turned_away_cores(),
        started,
    );
    t.check_eq("boot_core_unchanged", boot::boot_core_mpidr(), me);
    t.check_eq("still_on_the_boot_core", MPIDR_EL1.get(), me);
    t.finish()
}
