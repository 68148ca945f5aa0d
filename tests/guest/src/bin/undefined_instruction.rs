//! Executes an undefined instruction: the runtime must print the exception report (class
//! "Unknown reason", ESR/ELR/FAR/SPSR) and exit with a non-zero status. The host test expects
//! exactly that failure.
#![no_std]
#![no_main]

pmprobe::entry!(main);

fn main() -> i32 {
    pmprobe::println!("about to execute udf #0x2a");
    // SAFETY: deliberately faults; the runtime's vector table handles the exception and exits.
    unsafe { core::arch::asm!("udf #0x2a") };
    pmprobe::println!("survived an undefined instruction (must not happen)");
    0
}
