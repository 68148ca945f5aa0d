//! Reset entry: from `_start` to the user's main function.
//!
//! QEMU `virt` starts the (single) CPU at EL1 with the MMU and caches off. The assembly part sets
//! the stack, enables FP/SIMD (CPACR_EL1.FPEN = 0b11: the compiler may use SIMD registers in any
//! Rust function, so this must happen before the first one runs), zeroes `.bss` and installs the
//! vector table; the Rust part calls main and exits with its status.
use core::arch::global_asm;

global_asm!(
    r#"
    .section .text.boot, "ax"
    .global _start
_start:
    // Secondary cores (only with -smp > 1) park: the runtime is single-core.
    mrs     x1, mpidr_el1
    and     x1, x1, #0xff
    cbz     x1, 1f
0:  wfe
    b       0b
1:
    ldr     x1, =__pmprobe_stack_top
    mov     sp, x1
    // FP/SIMD on before any Rust code.
    mov     x1, #(0x3 << 20)
    msr     cpacr_el1, x1
    isb
    // Zero .bss (16-byte aligned by the linker script).
    ldr     x1, =__pmprobe_bss_start
    ldr     x2, =__pmprobe_bss_end
2:  cmp     x1, x2
    b.hs    3f
    stp     xzr, xzr, [x1], #16
    b       2b
3:
    ldr     x1, =__pmprobe_vectors
    msr     vbar_el1, x1
    isb
    bl      __pmprobe_rust_start
4:  b       4b
    .ltorg
"#
);

unsafe extern "Rust" {
    /// Defined by [`entry!`](crate::entry).
    fn __pmprobe_main() -> i32;
}

#[unsafe(no_mangle)]
extern "C" fn __pmprobe_rust_start() -> ! {
    super::console::init();
    // SAFETY: `__pmprobe_main` is the plain Rust function the `entry!` macro exports; the runtime
    // is fully set up (stack, .bss, FP) at this point.
    let status = unsafe { __pmprobe_main() };
    super::exit(status as u32)
}
