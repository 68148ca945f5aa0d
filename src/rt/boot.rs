//! Reset entry: from the first instruction of the image to the user's main function.
//!
//! 1. `__pmprobe_entry` (the image's first instruction) turns the MMU and caches on with the
//!    identity map of [`super::pagetable`] (aarch64-rt's `enable_mmu`), then elects the boot
//!    core: the first core to claim [`boot_core_mpidr`] with an exclusive store boots; any other
//!    core that enters the image is counted in [`turned_away_cores`] and parked in `wfe` before it
//!    touches the stack or `.bss`. With PSCI firmware (QEMU `virt`, Arm Trusted Firmware) only the
//!    boot core enters the image; the election protects boards whose firmware releases every core
//!    at the entry point, whatever their MPIDR (an Aff0 of 0 in another cluster is still another
//!    core). Secondary cores are started later with PSCI `CPU_ON` on their own stacks
//!    ([`aarch64_rt::start_core`]), which does not pass through here.
//! 2. aarch64-rt's `entry` enables FP/SIMD (before any Rust code: the compiler may use SIMD
//!    registers in any function), zeroes `.bss`, sets the boot stack and the exception vectors.
//! 3. The runtime's main sets up the console and calls the function named by [`entry!`](crate::entry),
//!    then exits QEMU with its status.
use core::arch::global_asm;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Pages (4 KiB) of the boot core's stack: 1 MiB, as the demo keeps a 256 KiB SPU image on it.
const BOOT_STACK_PAGES: usize = 256;

/// MPIDR_EL1 of the core that claimed the boot (0 until then: MPIDR bit 31 is RES1, so a claimed
/// value is never 0). In `.data`, not `.bss`: the boot core zeroes `.bss` after claiming, and a
/// late core must still find the claim.
#[unsafe(no_mangle)]
#[unsafe(link_section = ".data.pmprobe_boot")]
static PMPROBE_BOOT_CORE: AtomicU64 = AtomicU64::new(0);

/// Cores that entered the image after the boot core and were parked.
#[unsafe(no_mangle)]
#[unsafe(link_section = ".data.pmprobe_boot")]
static PMPROBE_TURNED_AWAY: AtomicU32 = AtomicU32::new(0);

global_asm!(
    r#"
    .section .init.pmprobe_entry, "ax"
    .global __pmprobe_entry
__pmprobe_entry:
    // MMU and caches first: exclusives need Normal cacheable memory. Keeps x0-x3 (boot arguments).
    bl      enable_mmu
    adrp    x8, PMPROBE_BOOT_CORE
    add     x8, x8, :lo12:PMPROBE_BOOT_CORE
    mrs     x9, mpidr_el1
0:  ldaxr   x10, [x8]
    cbnz    x10, 1f
    stxr    w11, x9, [x8]
    cbnz    w11, 0b
    b       entry
    // Another core owns the boot: count this one and park it, off the boot stack and .bss.
1:  clrex
    adrp    x8, PMPROBE_TURNED_AWAY
    add     x8, x8, :lo12:PMPROBE_TURNED_AWAY
2:  ldxr    w10, [x8]
    add     w10, w10, #1
    stlxr   w11, w10, [x8]
    cbnz    w11, 2b
3:  wfe
    b       3b
"#
);

aarch64_rt::entry!(rust_main, BOOT_STACK_PAGES);

unsafe extern "Rust" {
    /// Defined by [`entry!`](crate::entry).
    fn __pmprobe_main() -> i32;
}

/// MPIDR_EL1 of the boot core (the one that runs main).
pub fn boot_core_mpidr() -> u64 {
    PMPROBE_BOOT_CORE.load(Ordering::Acquire)
}

/// How many cores entered the image after the boot core and were parked at the entry.
pub fn turned_away_cores() -> u32 {
    PMPROBE_TURNED_AWAY.load(Ordering::Acquire)
}

/// The address of the image's first instruction, `__pmprobe_entry`: where a cold-booting core
/// starts (and where a test sends extra cores with PSCI `CPU_ON` to check the election).
pub fn image_entry() -> usize {
    unsafe extern "C" {
        fn __pmprobe_entry();
    }
    __pmprobe_entry as *const () as usize
}

/// aarch64-rt's main: the runtime is set up (MMU, caches, FP, `.bss`, stack, vectors). Starts a
/// fresh frame-pointer chain: aarch64-rt's entry leaves x29 pointing at the end of `.bss` (it
/// zeroes `.bss` with it), which a stack walk would take for a caller's frame record. With
/// x29 = 0 the chain ends here and every sampled call stack has [`main_with_fresh_chain`] at
/// its root.
fn rust_main(_x0: u64, _x1: u64, _x2: u64, _x3: u64) -> ! {
    // SAFETY: never returns, so rust_main's own frame (whose record x29 pointed at) is
    // abandoned; the callee builds its frame record on the current stack from x29 = 0.
    unsafe {
        core::arch::asm!(
            "mov x29, xzr",
            "bl {main}",
            main = sym main_with_fresh_chain,
            options(noreturn),
        )
    }
}

/// The rest of [`rust_main`], the root frame of every call stack of the boot core.
extern "C" fn main_with_fresh_chain() -> ! {
    super::smp::init_boot_core();
    super::console::init();
    // SAFETY: `__pmprobe_main` is the plain Rust function that the `entry!` macro exports.
    let status = unsafe { __pmprobe_main() };
    super::exit(status as u32)
}
