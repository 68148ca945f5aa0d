//! Benchmark (prints figures; not a timed test): instructions the console spends per byte, for
//! `println!` of 64-byte lines, and the runtime's critical section, measured with the cycle
//! counter under QEMU `-icount shift=0` (one instruction per cycle). The same program builds
//! against any runtime that provides `pmprobe::println!`, so that two runtimes can be compared.
#![no_std]
#![no_main]

use core::arch::asm;
use core::hint::black_box;

pmprobe::entry!(main);

const LINES: u64 = 64;
/// 63 characters and the newline.
const LINE: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";

#[inline(always)]
fn cycles() -> u64 {
    let v: u64;
    // SAFETY: reading the cycle counter has no side effect.
    unsafe { asm!("isb", "mrs {v}, pmccntr_el0", v = out(reg) v, options(nostack)) };
    v
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("console_bench");
    // SAFETY: enables the cycle counter (PMCR_EL0.E, PMCNTENSET_EL0.C); nothing else uses the PMU.
    unsafe {
        asm!(
            "msr pmcr_el0, {e}",
            "msr pmcntenset_el0, {c}",
            "isb",
            e = in(reg) 1u64 | (1 << 6),
            c = in(reg) 1u64 << 31,
            options(nostack)
        );
    }
    let empty = {
        let a = cycles();
        cycles() - a
    };
    let start = cycles();
    for _ in 0..LINES {
        pmprobe::println!("{}", black_box(LINE));
    }
    let spent = cycles() - start - empty;
    let bytes = LINES * (LINE.len() as u64 + 1);
    pmprobe::println!(
        "console: {spent} instructions for {bytes} bytes of println! = {}.{:02} per byte",
        spent / bytes,
        spent * 100 / bytes % 100
    );
    t.check("counted", spent > bytes);
    t.finish()
}
