//! Boot reaches main at EL1 with FP/SIMD usable; the PMU identification registers read what
//! QEMU's cortex-a57 model reports (checked from raw register values here; the decoded banner is
//! checked by the host test of the demo firmware).
#![no_std]
#![no_main]

use aarch64_cpu::registers::{CPACR_EL1, CurrentEL, ID_AA64DFR0_EL1, Readable};
use core::hint::black_box;

pmprobe::entry!(main);

/// Newton's method for sqrt(2): needs working FP registers and instructions.
fn sqrt2() -> f64 {
    let mut x = black_box(1.0f64);
    for _ in 0..black_box(6) {
        x = 0.5 * (x + black_box(2.0) / x);
    }
    x
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("boot");
    t.check_eq("current_el_is_1", CurrentEL.read(CurrentEL::EL), 1);
    t.check_eq("cpacr_fpen_enabled", CPACR_EL1.read(CPACR_EL1::FPEN), 0b11);
    let r = sqrt2();
    t.check_with(
        "fp_sqrt2",
        (r - core::f64::consts::SQRT_2).abs() < 1e-12,
        format_args!("{r}"),
    );
    let v = black_box([1.5f32, 2.5, -3.0, 4.25]);
    let dot: f32 = v.iter().zip(v.iter()).map(|(a, b)| a * b).sum();
    t.check_eq("fp_dot_f32", dot, 1.5 * 1.5 + 2.5 * 2.5 + 9.0 + 4.25 * 4.25);
    // Statics: .data keeps its initial value, .bss starts zeroed.
    static mut DATA: u32 = 0xC0FFEE;
    static mut BSS: [u64; 32] = [0; 32];
    // SAFETY: single-threaded guest, no interrupts enabled.
    let (data, bss_zero) = unsafe { (DATA, (*core::ptr::addr_of!(BSS)).iter().all(|&w| w == 0)) };
    t.check_eq("data_initialised", data, 0xC0FFEE);
    t.check("bss_zeroed", bss_zero);
    t.check_eq(
        "pmuver_is_pmuv3",
        ID_AA64DFR0_EL1.read(ID_AA64DFR0_EL1::PMUVer),
        1,
    );
    let pmcr: u64;
    let (ceid0, ceid1): (u64, u64);
    // SAFETY: reading PMU ID registers at EL1 has no side effects.
    unsafe {
        core::arch::asm!("mrs {0}, pmcr_el0", "mrs {1}, pmceid0_el0", "mrs {2}, pmceid1_el0",
            out(reg) pmcr, out(reg) ceid0, out(reg) ceid1, options(nomem, nostack));
    }
    t.check_eq("pmcr_n_is_6", (pmcr >> 11) & 0x1F, 6);
    // SW_INCR (0x00), INST_RETIRED (0x08), CPU_CYCLES (0x11) and nothing else.
    t.check_eq(
        "pmceid0_events",
        ceid0 & 0xFFFF_FFFF,
        (1 << 0x00) | (1 << 0x08) | (1 << 0x11),
    );
    t.check_eq("pmceid1_events", ceid1 & 0xFFFF_FFFF, 0);
    t.finish()
}
